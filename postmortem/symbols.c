/* symbols.c - function names through libdwfl, one Dwfl per module.
 *
 * A module is reported at base 0, so that its addresses are its own ELF
 * virtual addresses: the form the collector records.  Keeping modules in
 * separate Dwfl sessions lets modules that occupied the same addresses at
 * different times (dlclose, then dlopen) coexist. */
#define _GNU_SOURCE
#include "symbols.h"
#include "mfile_format.h"

#include <elfutils/libdwfl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct symtab_module {
	const struct mfile_module *rec;
	char *path;		/* file to open */
	Dwfl *dwfl;
	Dwfl_Module *mod;
	int tried;
};

struct symtab {
	struct symtab_module *mods;
	uint32_t n;
};

static char *debuginfo_path;
static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

struct symtab *symtab_new(const struct mfile_process *p, const char *dir)
{
	struct symtab *s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	s->mods = calloc(p->nmodules ? p->nmodules : 1, sizeof *s->mods);
	if (!s->mods) {
		free(s);
		return NULL;
	}
	s->n = p->nmodules;
	for (uint32_t i = 0; i < p->nmodules; i++) {
		const struct mfile_module *m = &p->modules[i];
		s->mods[i].rec = m;
		if ((m->flags & MFILE_MOD_VDSO) && dir) {
			if (asprintf(&s->mods[i].path, "%s/%s", dir, m->path) < 0)
				s->mods[i].path = NULL;
		} else {
			s->mods[i].path = strdup(m->path);
		}
	}
	return s;
}

void symtab_free(struct symtab *s)
{
	if (!s)
		return;
	for (uint32_t i = 0; i < s->n; i++) {
		if (s->mods[i].dwfl)
			dwfl_end(s->mods[i].dwfl);
		free(s->mods[i].path);
	}
	free(s->mods);
	free(s);
}

static struct symtab_module *find(const struct symtab *s, uint32_t id)
{
	for (uint32_t i = 0; i < s->n; i++)
		if (s->mods[i].rec->id == id)
			return &s->mods[i];
	return NULL;
}

const char *symtab_module_path(const struct symtab *s, uint32_t module)
{
	struct symtab_module *m = find(s, module);
	return m ? m->rec->path : NULL;
}

static Dwfl_Module *open_module(struct symtab_module *m)
{
	if (m->tried)
		return m->mod;
	m->tried = 1;
	if (!m->path || !m->path[0])
		return NULL;
	m->dwfl = dwfl_begin(&callbacks);
	if (!m->dwfl)
		return NULL;
	const char *base = strrchr(m->path, '/');
	m->mod = dwfl_report_elf(m->dwfl, base ? base + 1 : m->path, m->path, -1, 0, false);
	dwfl_report_end(m->dwfl, NULL, NULL);
	return m->mod;
}

const char *symtab_function(struct symtab *s, uint32_t module, uint64_t addr,
			    uint64_t *offset)
{
	struct symtab_module *m = find(s, module);
	if (!m)
		return NULL;
	Dwfl_Module *mod = open_module(m);
	if (!mod)
		return NULL;
	GElf_Off off = 0;
	GElf_Sym sym;
	const char *name = dwfl_module_addrinfo(mod, addr, &off, &sym, NULL, NULL, NULL);
	if (offset)
		*offset = off;
	return name;
}
