/* layout.h - where CPython keeps what the plugin reads, by version.
 *
 * CPython's internal structures change with every minor version and are
 * not part of its API, so the plugin reads them by offsets known for each
 * version it supports, and for any other version stays off (python.c
 * says so in one line).  The offsets are those of x86-64 release builds
 * with the GIL; tests/programs/py_layout.c, run by tests/run-python.sh,
 * checks them against the interpreter's own headers where they are
 * installed (python3-dev).
 *
 * 3.11 (Debian 12):
 *   _PyRuntime.gilstate.autoTSSkey  the pthread key of each thread's
 *                                   PyThreadState (Py_tss_t: int
 *                                   initialised, then the key)
 *   _PyRuntime.ceval.gil            the GIL: its mutex and conditions
 *   PyThreadState.cframe            -> _PyCFrame, whose current_frame is
 *                                   the innermost _PyInterpreterFrame
 *   _PyInterpreterFrame             f_code, previous (the caller),
 *                                   prev_instr (the instruction being run),
 *                                   is_entry (the outermost frame of one
 *                                   _PyEval_EvalFrameDefault call)
 *   PyCodeObject                    co_firstlineno, co_filename,
 *                                   co_qualname, co_linetable (bytes),
 *                                   co_code_adaptive (the instructions)
 *   str objects                     compact: the characters follow the
 *                                   header (ASCII after PyASCIIObject,
 *                                   others after PyCompactUnicodeObject)
 *
 * 3.12: the thread states' key is _PyRuntime.autoTSSkey and the GIL the
 * main interpreter's own (_PyRuntime._main_interpreter._gil); frames lost
 * is_entry: each evaluation loop call puts a shim frame of its own
 * (owner FRAME_OWNED_BY_CSTACK) past its outermost one, and the code
 * object's fields moved.
 *
 * 3.13: no _PyCFrame: PyThreadState.current_frame is the innermost frame;
 * a frame's code is f_executable and its instruction instr_ptr (the one
 * running, where 3.12's prev_instr was the one before the next: the same
 * line either way).
 */
#ifndef CULPRIT_PYTHON_LAYOUT_H
#define CULPRIT_PYTHON_LAYOUT_H

#include <stdint.h>

struct py_layout {
	unsigned major, minor;
	/* _PyRuntime */
	uint32_t runtime_tss_key;	/* the Py_tss_t of thread states */
	uint32_t runtime_gil;		/* struct _gil_runtime_state */
	uint32_t gil_size;
	/* PyThreadState, _PyCFrame (FRAME_IN_TSTATE: tstate_cframe is the
	 * offset of the thread state's own current frame) */
	uint32_t tstate_cframe;
	uint32_t cframe_current;
	uint8_t frame_in_tstate;
	/* _PyInterpreterFrame: the outermost frame of an evaluation loop
	 * call is marked is_entry (3.11), or followed by a shim frame whose
	 * owner is owner_cstack (3.12) */
	uint32_t frame_code, frame_previous, frame_prev_instr, frame_is_entry;
	uint32_t frame_owner, owner_cstack;
	uint8_t entry_by_owner;
	/* PyCodeObject */
	uint32_t code_firstlineno, code_filename, code_qualname, code_linetable;
	uint32_t code_instructions;
	/* objects */
	uint32_t ob_type;
	uint32_t bytes_size, bytes_data;	/* PyBytesObject: ob_size, ob_sval */
	uint32_t str_length, str_state;		/* PyASCIIObject */
	uint32_t str_ascii_data, str_compact_data;
};

static const struct py_layout py_layouts[] = {
	{
		.major = 3, .minor = 11,
		.runtime_tss_key = 592, .runtime_gil = 360, .gil_size = 208,
		.tstate_cframe = 56, .cframe_current = 8,
		.frame_code = 32, .frame_previous = 48, .frame_prev_instr = 56,
		.frame_is_entry = 68,
		.code_firstlineno = 72, .code_filename = 112, .code_qualname = 128,
		.code_linetable = 136, .code_instructions = 184,
		.ob_type = 8, .bytes_size = 16, .bytes_data = 32,
		.str_length = 16, .str_state = 32,
		.str_ascii_data = 48, .str_compact_data = 72,
	},
	{
		.major = 3, .minor = 12,
		.runtime_tss_key = 1544, .runtime_gil = 76392 + 1040, .gil_size = 208,
		.tstate_cframe = 56, .cframe_current = 0,
		.frame_code = 0, .frame_previous = 8, .frame_prev_instr = 56,
		.frame_owner = 70, .owner_cstack = 3, .entry_by_owner = 1,
		.code_firstlineno = 68, .code_filename = 112, .code_qualname = 128,
		.code_linetable = 136, .code_instructions = 192,
		.ob_type = 8, .bytes_size = 16, .bytes_data = 32,
		.str_length = 16, .str_state = 32,
		.str_ascii_data = 40, .str_compact_data = 56,
	},
	{
		.major = 3, .minor = 13,
		.runtime_tss_key = 2160, .runtime_gil = 88352 + 7752, .gil_size = 208,
		.tstate_cframe = 72, .frame_in_tstate = 1,
		.frame_code = 0, .frame_previous = 8, .frame_prev_instr = 56,
		.frame_owner = 70, .owner_cstack = 3, .entry_by_owner = 1,
		.code_firstlineno = 68, .code_filename = 112, .code_qualname = 128,
		.code_linetable = 136, .code_instructions = 200,
		.ob_type = 8, .bytes_size = 16, .bytes_data = 32,
		.str_length = 16, .str_state = 32,
		.str_ascii_data = 40, .str_compact_data = 56,
	},
};

#endif
