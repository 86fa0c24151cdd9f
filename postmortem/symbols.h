/* symbols.h - names for sampled addresses, with elfutils libdwfl.
 *
 * Built from one process file's load map.  Each module's ELF (and its
 * separate debug info, found by build-id or debuglink) is opened once, on
 * first use, however many threads sampled it.
 */
#ifndef CULPRIT_SYMBOLS_H
#define CULPRIT_SYMBOLS_H

#include <stdint.h>

#include "mfile_read.h"

struct symtab;

/* A symbol table for the modules of P.  DIR is the measurement directory,
 * where the vdso copies are.  P must outlive the result. */
struct symtab *symtab_new(const struct mfile_process *p, const char *dir);
void symtab_free(struct symtab *s);

/* The function containing ADDR (an ELF virtual address) in MODULE, or NULL
 * if unknown; *OFFSET gets ADDR's distance from the function's start.  The
 * string lives as long as S. */
const char *symtab_function(struct symtab *s, uint32_t module, uint64_t addr,
			    uint64_t *offset);

/* The module's path as recorded, or NULL for an unknown id. */
const char *symtab_module_path(const struct symtab *s, uint32_t module);

#endif
