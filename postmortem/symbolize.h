/* symbolize.h - names and source lines for sampled addresses, with
 * elfutils libdw.
 *
 * A symbolizer holds every module (ELF file) an experiment sampled, keyed
 * by path and build-id so that each is analysed once however many
 * processes and threads used it.  An address resolves to its frames:
 * the function that contains it, then each call inlined into that
 * function down to the instruction, with the source line in each frame.
 *
 * Threads: different modules may be resolved from different threads at
 * once; one module must be used by one thread at a time.
 */
#ifndef CULPRIT_SYMBOLIZE_H
#define CULPRIT_SYMBOLIZE_H

#include <stddef.h>
#include <stdint.h>

struct sym_frame {
	const char *procedure;	/* demangled name; never NULL */
	const char *decl_file;	/* where the procedure is defined, or NULL */
	unsigned decl_line;
	const char *file;	/* the line this frame is at: the call of the next
				   frame, or for the last frame the address itself;
				   NULL when there is no line information */
	unsigned line;
	int inlined;		/* an inlined instance rather than a real call */
	int unnamed;		/* no symbol: PROCEDURE is "module+0xoffset" */
	/* For the merge (merge.c), which is single-threaded: the strings
	 * above as ids of its string table, filled on first use. */
	uint32_t id_procedure, id_decl_file, id_file;
};

struct sym_result {
	unsigned nframes;	/* at least 1 */
	int interned;		/* the frames' id_ fields are set */
	struct sym_frame frame[];	/* outermost (the real function) first */
};

struct symbolizer;
struct sym_module;

struct symbolizer *symbolizer_new(void);
void symbolizer_free(struct symbolizer *s);

/* The module for the file at PATH with this build-id (which may be empty).
 * DISPLAY is the name shown when nothing better is known (NULL: PATH's
 * base name).  The module is opened lazily. */
struct sym_module *symbolizer_module(struct symbolizer *s, const char *path,
				     const unsigned char *build_id, uint32_t build_id_len,
				     const char *display);
size_t symbolizer_count(const struct symbolizer *s);
struct sym_module *symbolizer_at(const struct symbolizer *s, size_t i);

const char *sym_module_path(const struct sym_module *m);
/* The name shown for the module: its path, or DISPLAY when it was given
 * one ([vdso]). */
const char *sym_module_name(const struct sym_module *m);

/* Notes that ADDR will be resolved, so that sym_resolve_wanted() can do
 * all of a module's work in one go (in a worker thread). */
void sym_want(struct sym_module *m, uint64_t addr);
void sym_resolve_wanted(struct sym_module *m);

/* The frames at ADDR, an ELF virtual address of the module (for a return
 * address, pass the address of the call: one byte before).  The result
 * is cached and owned by M. */
struct sym_result *sym_resolve(struct sym_module *m, uint64_t addr);

/* Calls FN for the source file of every frame of every address resolved
 * so far (a file once per frame, so possibly many times). */
void sym_module_files(const struct sym_module *m, void (*fn)(void *arg, const char *file),
		      void *arg);

/* Why the module could not be analysed (missing file, changed since the
 * run), or NULL.  Its addresses then resolve to "module+offset". */
const char *sym_module_problem(struct sym_module *m);

/* Whether any of the module's code had line information. */
int sym_module_has_lines(const struct sym_module *m);

/* Whether any address of the module was resolved. */
int sym_module_used(const struct sym_module *m);

/* The recorded build-id in hex into OUT (129 bytes); "" when none. */
void sym_module_build_id(const struct sym_module *m, char *out);

#endif
