/* py_layout.c - checks the CPython layout the plugin reads
 * (unwind-plugins/python/layout.h) against the installed interpreter's
 * own headers: built by tests/run-python.sh where python3-dev is there,
 * with Py_BUILD_CORE for the internal ones.  Prints each field that
 * differs and exits 1; exits 0 when all agree, 77 when layout.h has no
 * entry for this version. */
#define Py_BUILD_CORE 1
#include <Python.h>
#include <internal/pycore_frame.h>
#include <internal/pycore_runtime.h>
#if PY_MINOR_VERSION >= 12
#include <internal/pycore_interp.h>
#endif

#include <stddef.h>
#include <stdio.h>

#include "layout.h"

static int bad;

static void same(const char *what, size_t want, uint32_t have)
{
	if (want != have) {
		printf("%s: the headers say %zu, layout.h %u\n", what, want, have);
		bad = 1;
	}
}

int main(void)
{
	const struct py_layout *l = NULL;
	for (size_t i = 0; i < sizeof py_layouts / sizeof *py_layouts; i++)
		if (py_layouts[i].major == PY_MAJOR_VERSION && py_layouts[i].minor == PY_MINOR_VERSION)
			l = &py_layouts[i];
	if (!l) {
		printf("layout.h has no CPython %d.%d\n", PY_MAJOR_VERSION, PY_MINOR_VERSION);
		return 77;
	}
#if PY_MINOR_VERSION == 11
	same("_PyRuntime.gilstate.autoTSSkey", offsetof(_PyRuntimeState, gilstate.autoTSSkey),
	     l->runtime_tss_key);
	same("_PyRuntime.ceval.gil", offsetof(_PyRuntimeState, ceval.gil), l->runtime_gil);
	same("_PyInterpreterFrame.is_entry", offsetof(_PyInterpreterFrame, is_entry),
	     l->frame_is_entry);
#else
#if PY_MINOR_VERSION >= 13
	same("PyThreadState.current_frame", offsetof(PyThreadState, current_frame), l->tstate_cframe);
	same("current frame in the thread state", 1, l->frame_in_tstate);
#endif
	same("_PyRuntime.autoTSSkey", offsetof(_PyRuntimeState, autoTSSkey), l->runtime_tss_key);
	same("_PyRuntime._main_interpreter._gil",
	     offsetof(_PyRuntimeState, _main_interpreter) + offsetof(PyInterpreterState, _gil),
	     l->runtime_gil);
	same("_PyInterpreterFrame.owner", offsetof(_PyInterpreterFrame, owner), l->frame_owner);
	same("FRAME_OWNED_BY_CSTACK", FRAME_OWNED_BY_CSTACK, l->owner_cstack);
#endif
	same("Py_tss_t._key", offsetof(Py_tss_t, _key), 4);
	same("sizeof gil", sizeof(struct _gil_runtime_state), l->gil_size);
#if PY_MINOR_VERSION < 13
	same("PyThreadState.cframe", offsetof(PyThreadState, cframe), l->tstate_cframe);
	same("_PyCFrame.current_frame", offsetof(_PyCFrame, current_frame), l->cframe_current);
	same("_PyInterpreterFrame.f_code", offsetof(_PyInterpreterFrame, f_code), l->frame_code);
	same("_PyInterpreterFrame.prev_instr", offsetof(_PyInterpreterFrame, prev_instr),
	     l->frame_prev_instr);
#else
	same("_PyInterpreterFrame.f_executable", offsetof(_PyInterpreterFrame, f_executable),
	     l->frame_code);
	same("_PyInterpreterFrame.instr_ptr", offsetof(_PyInterpreterFrame, instr_ptr),
	     l->frame_prev_instr);
#endif
	same("_PyInterpreterFrame.previous", offsetof(_PyInterpreterFrame, previous),
	     l->frame_previous);
	same("PyCodeObject.co_firstlineno", offsetof(PyCodeObject, co_firstlineno),
	     l->code_firstlineno);
	same("PyCodeObject.co_filename", offsetof(PyCodeObject, co_filename), l->code_filename);
	same("PyCodeObject.co_qualname", offsetof(PyCodeObject, co_qualname), l->code_qualname);
	same("PyCodeObject.co_linetable", offsetof(PyCodeObject, co_linetable), l->code_linetable);
	same("PyCodeObject.co_code_adaptive", offsetof(PyCodeObject, co_code_adaptive),
	     l->code_instructions);
	same("PyObject.ob_type", offsetof(PyObject, ob_type), l->ob_type);
	same("PyVarObject.ob_size", offsetof(PyVarObject, ob_size), l->bytes_size);
	same("PyBytesObject.ob_sval", offsetof(PyBytesObject, ob_sval), l->bytes_data);
	same("PyASCIIObject.length", offsetof(PyASCIIObject, length), l->str_length);
	same("PyASCIIObject.state", offsetof(PyASCIIObject, state), l->str_state);
	same("sizeof PyASCIIObject", sizeof(PyASCIIObject), l->str_ascii_data);
	same("sizeof PyCompactUnicodeObject", sizeof(PyCompactUnicodeObject),
	     l->str_compact_data);
	return bad;
}
