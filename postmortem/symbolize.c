/* symbolize.c - addresses to functions, inlined calls and lines.
 *
 * Each module gets its own libdwfl session, reported at base 0 so that its
 * addresses are its own ELF virtual addresses: the form the collector
 * records.  Separate debug information is found by build-id (where
 * Debian's -dbgsym packages install it) or by .gnu_debuglink.
 *
 * For an address with DWARF, the scopes that hold it (scopes.c: nested
 * and LTO functions too) give the real function and every inlined call
 * instance inside it, each with the line it was called from.  Without
 * DWARF the symbol table names the function (the line table may still
 * give its line); without that, "module+0xoffset" stands in.
 */
#define _GNU_SOURCE
#include "symbolize.h"
#include "hash.h"
#include "hindex.h"
#include "scopes.h"
#include "tools.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* libstdc++'s demangler (C++ names in DWARF and symbol tables). */
char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

#define MAX_INLINE 64
/* DWARF scopes around an address: functions, inlined calls, blocks. */
#define MAX_SCOPES 256

struct sym_module {
	char *path;
	char *display;			/* base name, for module+offset */
	int named;			/* display was given: use it as the name */
	unsigned char build_id[64];
	uint32_t build_id_len;
	int opened;
	char *problem;
	int has_lines;
	int used;
	Dwfl *dwfl;
	Dwfl_Module *mod;
	struct strtab *strings;		/* names and files of the results */
	/* cache: the addresses resolved and their results, by the order
	 * asked, with an index by address */
	uint64_t *key;
	struct sym_result **val;
	size_t count, cap;
	struct hindex index;
	/* addresses to resolve in bulk */
	uint64_t *want;
	size_t nwant, capwant;
	/* compilation units by address, for when libdw cannot find them */
	struct cu_range *cus;
	struct scope_index *scopes;	/* nested functions by unit (scopes.h) */
	struct member_name *members;	/* qualified names made (member_name) */
	size_t nmembers, capmembers;
	size_t ncus;
	int cus_built;
};

/* A member function's qualified name, by its declaration's DIE (the
 * Dwarf it is in too: a dwz alternate file has offsets of its own). */
struct member_name {
	Dwarf *dwarf;
	Dwarf_Off decl;
	const char *name;	/* in the module's strings */
	const char *decl_file;	/* its class's, where its own is missing */
	unsigned decl_line;
};

/* A compilation unit's address range.  libdw (0.188) finds the unit of
 * an address through .debug_aranges, which clang does not emit; this
 * index, built from the units' own ranges, stands in for it. */
struct cu_range {
	uint64_t lo, hi;
	Dwarf_Die cu;
};

struct symbolizer {
	struct sym_module **mod;
	size_t count, cap;
};

static char *debuginfo_path;
static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

struct symbolizer *symbolizer_new(void)
{
	return xcalloc(1, sizeof(struct symbolizer));
}

static void module_free(struct sym_module *m)
{
	free(m->cus);
	scope_index_free(m->scopes);
	free(m->members);
	if (m->dwfl)
		dwfl_end(m->dwfl);
	for (size_t i = 0; i < m->count; i++)
		free(m->val[i]);
	free(m->key);
	free(m->val);
	hindex_free(&m->index);
	free(m->want);
	strtab_free(m->strings);
	free(m->path);
	free(m->display);
	free(m->problem);
	free(m);
}

void symbolizer_free(struct symbolizer *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->count; i++)
		module_free(s->mod[i]);
	free(s->mod);
	free(s);
}

struct sym_module *symbolizer_module(struct symbolizer *s, const char *path,
				     const unsigned char *build_id, uint32_t build_id_len,
				     const char *display)
{
	if (build_id_len > sizeof ((struct sym_module *)0)->build_id)
		build_id_len = 0;
	for (size_t i = 0; i < s->count; i++) {
		struct sym_module *m = s->mod[i];
		if (strcmp(m->path, path) == 0 && m->build_id_len == build_id_len &&
		    memcmp(m->build_id, build_id, build_id_len) == 0)
			return m;
	}
	struct sym_module *m = xcalloc(1, sizeof *m);
	m->path = xstrdup(path);
	m->named = display != NULL;
	if (!display) {
		const char *slash = strrchr(path, '/');
		display = slash ? slash + 1 : path;
	}
	m->display = xstrdup(display);
	memcpy(m->build_id, build_id, build_id_len);
	m->build_id_len = build_id_len;
	m->strings = strtab_new();
	m->scopes = scope_index_new();
	grow_array(&s->mod, &s->cap, s->count + 1, sizeof *s->mod);
	s->mod[s->count++] = m;
	return m;
}

size_t symbolizer_count(const struct symbolizer *s)
{
	return s->count;
}

struct sym_module *symbolizer_at(const struct symbolizer *s, size_t i)
{
	return s->mod[i];
}

const char *sym_module_path(const struct sym_module *m)
{
	return m->path;
}

const char *sym_module_name(const struct sym_module *m)
{
	return m->named ? m->display : m->path;
}

int sym_module_has_lines(const struct sym_module *m)
{
	return m->has_lines;
}

int sym_module_used(const struct sym_module *m)
{
	return m->used;
}

static void hex(char *out, const unsigned char *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", b[i]);
	out[2 * n] = 0;
}

void sym_module_build_id(const struct sym_module *m, char *out)
{
	hex(out, m->build_id, m->build_id_len);
}

static void open_module(struct sym_module *m)
{
	if (m->opened)
		return;
	m->opened = 1;
	m->dwfl = dwfl_begin(&callbacks);
	if (!m->dwfl) {
		m->problem = xasprintf("%s: %s", m->path, dwfl_errmsg(-1));
		return;
	}
	m->mod = dwfl_report_elf(m->dwfl, m->display, m->path, -1, 0, false);
	dwfl_report_end(m->dwfl, NULL, NULL);
	if (!m->mod) {
		m->problem = xasprintf("cannot read %s (%s); its addresses are shown as "
				       "%s+offset", m->path, dwfl_errmsg(-1), m->display);
		return;
	}
	const unsigned char *id;
	GElf_Addr vaddr;
	int len = dwfl_module_build_id(m->mod, &id, &vaddr);
	if (m->build_id_len && (len != (int)m->build_id_len ||
				memcmp(id, m->build_id, m->build_id_len) != 0)) {
		char want[129];
		hex(want, m->build_id, m->build_id_len);
		m->problem = xasprintf("%s has changed since the run (its build-id is not %s); "
				       "its addresses are shown as %s+offset",
				       m->path, want, m->display);
		dwfl_end(m->dwfl);
		m->dwfl = NULL;
		m->mod = NULL;
	}
}

const char *sym_module_problem(struct sym_module *m)
{
	open_module(m);
	return m->problem;
}

static int by_lo(const void *a, const void *b)
{
	const struct cu_range *x = a, *y = b;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static void build_cu_index(struct sym_module *m)
{
	Dwarf_Addr bias;
	Dwarf *dw;
	size_t cap = 0;

	m->cus_built = 1;
	if (!m->mod || !(dw = dwfl_module_getdwarf(m->mod, &bias)))
		return;
	Dwarf_Off off = 0, next;
	size_t hsize;
	while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		if (dwarf_offdie(dw, off + hsize, &cu)) {
			Dwarf_Addr base, lo, hi;
			ptrdiff_t r = 0;
			while ((r = dwarf_ranges(&cu, r, &base, &lo, &hi)) > 0) {
				if (hi <= lo)
					continue;
				grow_array(&m->cus, &cap, m->ncus + 1, sizeof *m->cus);
				m->cus[m->ncus++] = (struct cu_range){ lo + bias, hi + bias, cu };
			}
		}
		off = next;
	}
	qsort(m->cus, m->ncus, sizeof *m->cus, by_lo);
}

/* The compilation unit containing ADDR, by libdw or by our index. */
static Dwarf_Die *find_cu(struct sym_module *m, uint64_t addr, Dwarf_Addr *bias)
{
	Dwarf_Die *cu = dwfl_module_addrdie(m->mod, addr, bias);
	if (cu)
		return cu;
	if (!m->cus_built)
		build_cu_index(m);
	size_t lo = 0, hi = m->ncus;
	while (lo < hi) {	/* the last range starting at or below addr */
		size_t mid = lo + (hi - lo) / 2;
		if (m->cus[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i-- > 0 && lo - i <= 64;)	/* ranges may nest or overlap */
		if (addr >= m->cus[i].lo && addr < m->cus[i].hi) {
			dwfl_module_getdwarf(m->mod, bias);
			return &m->cus[i].cu;
		}
	return NULL;
}

/* A function's name: its demangled linkage name when it has one, else its
 * plain name, following abstract origins and specifications. */
static const char *die_name(Dwarf_Die *die, char **to_free)
{
	Dwarf_Attribute attr;
	const char *name = NULL;

	*to_free = NULL;
	if (dwarf_attr_integrate(die, DW_AT_linkage_name, &attr) ||
	    dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr)) {
		name = dwarf_formstring(&attr);
		int status;
		if (name && name[0] == '_' && name[1] == 'Z') {
			char *d = __cxa_demangle(name, NULL, NULL, &status);
			if (d) {
				*to_free = d;
				return d;
			}
		}
	}
	if (dwarf_attr_integrate(die, DW_AT_name, &attr)) {
		const char *plain = dwarf_formstring(&attr);
		int status;
		/* GCC names a C++ function's outlined OpenMP body by its
		 * mangled name: "_Z3fooi._omp_fn.0". */
		if (plain && plain[0] == '_' && plain[1] == 'Z') {
			char *d = __cxa_demangle(plain, NULL, NULL, &status);
			if (d) {
				*to_free = d;
				return d;
			}
		}
		if (plain)
			return plain;
	}
	return name;
}

static const char *decl_file(struct sym_module *m, Dwarf_Die *die);

/* A name in M's strings built from the FMT. */
static const char *m_printf(struct sym_module *m, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static const char *m_printf(struct sym_module *m, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = NULL;
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	if (!s)
		return "?";
	const char *r = strtab_get(m->strings, strtab_intern(m->strings, s));
	free(s);
	return r;
}

/* How a scope around a member's declaration reads in its name: a class,
 * a namespace, an enclosing function; "{lambda:LINE}" for a class
 * without a name (GCC's closure types).  NULL for a scope that adds
 * nothing.  *WHOLE: the scope's name is qualified already (a function's
 * demangled linkage name), so that scopes outside it add nothing. */
static const char *scope_part(struct sym_module *m, Dwarf_Die *scope, int *whole)
{
	char *owned = NULL;
	const char *name = NULL;
	int line = 0;
	*whole = 0;
	switch (dwarf_tag(scope)) {
	case DW_TAG_subprogram:
		name = die_name(scope, &owned);
		*whole = owned != NULL;	/* demangled: qualified already */
		name = name ? m_printf(m, "%s", name) : NULL;
		break;
	case DW_TAG_class_type:
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
		name = dwarf_diename(scope);
		if (!name) {
			dwarf_decl_line(scope, &line);
			name = m_printf(m, "{lambda:%d}", line);
		}
		break;
	case DW_TAG_namespace:
		name = dwarf_diename(scope);
		if (!name)
			name = "(anonymous namespace)";
		break;
	default:
		break;
	}
	free(owned);
	return name;
}

/* The name of a member function that DWARF gives without a linkage name
 * (GCC's lambdas: every one is "operator()"), qualified by the scopes
 * around its declaration as a demangled name would be:
 * "region(long)::{lambda:62}::operator()"; and where it is declared when
 * its DIE does not say (GCC's lambdas again: their class does).  The
 * name is NAME, and the place unset, for a DIE that is no member.
 * Remembered by declaration, per module (each module is resolved by one
 * thread at a time: no state shared between modules). */
static struct member_name member_name(struct sym_module *m, Dwarf_Die *die, const char *name)
{
	struct member_name plain = { .name = name };
	Dwarf_Attribute attr;
	Dwarf_Die decl = *die, next;
	int member = 0;
	for (int hops = 0; hops < 8; hops++) {
		int spec = dwarf_attr(&decl, DW_AT_specification, &attr) != NULL;
		if (!spec && !dwarf_attr(&decl, DW_AT_abstract_origin, &attr))
			break;
		if (!dwarf_formref_die(&attr, &next))
			break;
		member |= spec;
		decl = next;
	}
	/* An inlined call's origin may be the declaration in the class;
	 * GCC marks a lambda's operator() artificial (and its outlined
	 * OpenMP bodies, which are no members: see below). */
	if (!member && !dwarf_hasattr(&decl, DW_AT_declaration) &&
	    !dwarf_hasattr(&decl, DW_AT_artificial))
		return plain;
	Dwarf *dw = dwarf_cu_getdwarf(decl.cu);
	Dwarf_Off off = dwarf_dieoffset(&decl);
	for (size_t i = 0; i < m->nmembers; i++)
		if (m->members[i].decl == off && m->members[i].dwarf == dw)
			return m->members[i];
	struct member_name made = { .dwarf = dw, .decl = off, .name = name };
	Dwarf_Die *scopes = NULL;
	int n = dwarf_getscopes_die(&decl, &scopes);
	/* scopes[0] is the declaration, scopes[n - 1] its unit; a member's
	 * next scope out is its class. */
	int tag = n > 2 ? dwarf_tag(&scopes[1]) : 0;
	if (tag == DW_TAG_class_type || tag == DW_TAG_structure_type || tag == DW_TAG_union_type) {
		for (int i = 1; i < n - 1 && i < 32; i++) {
			int whole;
			const char *part = scope_part(m, &scopes[i], &whole);
			if (part)
				made.name = m_printf(m, "%s::%s", part, made.name);
			if (whole)
				break;
		}
		int line = 0;
		made.decl_file = decl_file(m, &scopes[1]);
		if (made.decl_file && dwarf_decl_line(&scopes[1], &line) == 0 && line > 0)
			made.decl_line = (unsigned)line;
	}
	free(scopes);
	grow_array(&m->members, &m->capmembers, m->nmembers + 1, sizeof *m->members);
	m->members[m->nmembers++] = made;
	return made;
}

/* A symbol table name, demangled and without its version (@@GLIBC_2.34). */
static char *symbol_name(const char *raw)
{
	char *name = xstrdup(raw);
	char *at = strchr(name, '@');
	if (at && at != name)
		*at = 0;
	if (name[0] == '_' && name[1] == 'Z') {
		int status;
		char *d = __cxa_demangle(name, NULL, NULL, &status);
		if (d) {
			free(name);
			return d;
		}
	}
	return name;
}

/* FILE made absolute against DIR (the compilation directory) and cleaned
 * of "." and ".." lexically, interned in M.  Source paths in DWARF are
 * often relative to where the compiler ran. */
static const char *source_path(struct sym_module *m, const char *dir, const char *file)
{
	if (!file)
		return NULL;
	/* A relative compilation directory (as in builds that remap it) is
	 * relative to a build root we do not know, and libdw may already
	 * have joined it: leave such paths as they are. */
	char *joined = file[0] == '/' || !dir || dir[0] != '/' ? xstrdup(file)
							       : xasprintf("%s/%s", dir, file);
	char *out = xmalloc(strlen(joined) + 2);
	size_t n = 0;
	int absolute = joined[0] == '/';
	for (char *save = NULL, *part = strtok_r(joined, "/", &save); part;
	     part = strtok_r(NULL, "/", &save)) {
		if (strcmp(part, ".") == 0)
			continue;
		if (strcmp(part, "..") == 0 && n > 0 &&
		    !(n >= 2 && strcmp(out + n - 2, "..") == 0 && (n == 2 || out[n - 3] == '/'))) {
			while (n > 0 && out[n - 1] != '/')
				n--;
			if (n > 0)
				n--;	/* the slash */
			continue;
		}
		if (n > 0 || absolute)
			out[n++] = '/';
		size_t k = strlen(part);
		memcpy(out + n, part, k);
		n += k;
	}
	if (n == 0)
		out[n++] = absolute ? '/' : '.';
	out[n] = 0;
	const char *r = strtab_get(m->strings, strtab_intern(m->strings, out));
	free(out);
	free(joined);
	return r;
}

/* The compilation directory of the unit DIE belongs to. */
static const char *comp_dir(Dwarf_Die *die)
{
	Dwarf_Die cu;
	Dwarf_Attribute attr;
	if (!dwarf_diecu(die, &cu, NULL, NULL) || !dwarf_attr(&cu, DW_AT_comp_dir, &attr))
		return NULL;
	return dwarf_formstring(&attr);
}

/* File INDEX of the line table of UNIT (a unit's DIE). */
static const char *file_of_unit(Dwarf_Die *unit, Dwarf_Word index)
{
	Dwarf_Files *files;
	size_t nfiles;
	if (dwarf_getsrcfiles(unit, &files, &nfiles) != 0 || index >= nfiles)
		return NULL;
	return dwarf_filesrc(files, index, NULL, NULL);
}

/* File INDEX of the line table of the unit DIE belongs to (DW_AT_call_file). */
static const char *unit_file(Dwarf_Die *die, Dwarf_Word index)
{
	Dwarf_Die cu;
	return dwarf_diecu(die, &cu, NULL, NULL) ? file_of_unit(&cu, index) : NULL;
}

/* DIE's declaration file, made absolute against the directory of the
 * unit that declares it: with -flto a function's declaration is in
 * another unit than its code, found through its abstract origin.  libdw
 * 0.188 takes file index 0 for "none", as DWARF 4 does, but in DWARF 5
 * (clang 14's default) it is the unit's primary source file: look such
 * an index up in the unit's file table. */
static const char *decl_file(struct sym_module *m, Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	Dwarf_Word index;
	Dwarf_Die unit;
	if (!dwarf_attr_integrate(die, DW_AT_decl_file, &attr) ||
	    !dwarf_cu_die(attr.cu, &unit, NULL, NULL, NULL, NULL, NULL, NULL))
		return NULL;
	const char *f = dwarf_decl_file(die);
	if (!f && dwarf_formudata(&attr, &index) == 0 && index == 0)
		f = file_of_unit(&unit, index);
	return source_path(m, comp_dir(&unit), f);
}

/* The line of ADDR into F, the innermost frame, when the line table has
 * one: also for a function known only by its symbol (no DIE, or none
 * that covers it), whose lines are still in the table. */
static void sampled_line(struct sym_module *m, Dwarf_Die *cu, Dwarf_Addr bias, uint64_t addr,
			 struct sym_frame *f)
{
	Dwfl_Line *line = dwfl_module_getsrc(m->mod, addr);
	int lineno = 0;
	const char *file = line ? dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL) : NULL;
	const char *dir = line ? dwfl_line_comp_dir(line) : NULL;
	if (!file && cu) {
		/* The unit's own line table, where libdw's lookup needed the
		 * aranges the unit lacks. */
		Dwarf_Line *dl = dwarf_getsrc_die(cu, addr - bias);
		if (dl && dwarf_lineno(dl, &lineno) == 0)
			file = dwarf_linesrc(dl, NULL, NULL);
		dir = comp_dir(cu);
	}
	if (file && lineno > 0) {
		f->file = source_path(m, dir, file);
		f->line = (unsigned)lineno;
		m->has_lines = 1;
	}
}

static struct sym_result *resolve(struct sym_module *m, uint64_t addr)
{
	struct sym_frame fr[MAX_INLINE];
	char *owned[MAX_INLINE];
	unsigned n = 0;

	open_module(m);
	if (m->mod) {
		Dwarf_Addr bias = 0;
		Dwarf_Die *cu = find_cu(m, addr, &bias);
		Dwarf_Die scopes[MAX_SCOPES];
		int ns = cu ? scope_chain(m->scopes, cu, addr - bias, scopes, MAX_SCOPES) : 0;
		/* Outermost function first, then the calls inlined into it. */
		for (int i = 0; i < ns && n < MAX_INLINE; i++) {
			Dwarf_Die *die = &scopes[i];
			int tag = dwarf_tag(die);
			if (tag != DW_TAG_subprogram && tag != DW_TAG_inlined_subroutine)
				continue;
			if (tag == DW_TAG_subprogram && n > 0)
				n = 0;	/* a nested function: start from it */
			const char *name = die_name(die, &owned[n]);
			struct member_name member = { .name = name };
			if (name && !owned[n])	/* no linkage name */
				member = member_name(m, die, name);
			struct sym_frame *f = &fr[n];
			memset(f, 0, sizeof *f);
			name = member.name;
			f->procedure = strtab_get(m->strings, strtab_intern(m->strings, name ? name : "?"));
			free(owned[n]);
			f->decl_file = decl_file(m, die);
			int dl = 0;
			if (dwarf_decl_line(die, &dl) == 0 && dl > 0)
				f->decl_line = (unsigned)dl;
			if (!f->decl_file && member.decl_file) {
				f->decl_file = member.decl_file;
				f->decl_line = member.decl_line;
			}
			f->inlined = tag == DW_TAG_inlined_subroutine;
			if (f->inlined && n > 0) {
				Dwarf_Attribute attr;
				Dwarf_Word file = 0, line = 0;
				if (dwarf_attr(die, DW_AT_call_file, &attr))
					dwarf_formudata(&attr, &file);
				if (dwarf_attr(die, DW_AT_call_line, &attr))
					dwarf_formudata(&attr, &line);
				fr[n - 1].file = source_path(m, comp_dir(die), unit_file(die, file));
				fr[n - 1].line = (unsigned)line;
			}
			n++;
		}
		if (n == 0) {
			GElf_Off off;
			GElf_Sym sym;
			const char *raw = dwfl_module_addrinfo(m->mod, addr, &off, &sym, NULL, NULL, NULL);
			if (raw) {
				char *name = symbol_name(raw);
				memset(&fr[0], 0, sizeof fr[0]);
				fr[0].procedure = strtab_get(m->strings, strtab_intern(m->strings, name));
				free(name);
				n = 1;
			}
		}
		if (n > 0)
			sampled_line(m, cu, bias, addr, &fr[n - 1]);
	}
	if (n == 0) {
		char name[300];
		snprintf(name, sizeof name, "%s+%#llx", m->display, (unsigned long long)addr);
		memset(&fr[0], 0, sizeof fr[0]);
		fr[0].procedure = strtab_get(m->strings, strtab_intern(m->strings, name));
		fr[0].unnamed = 1;
		n = 1;
	}
	struct sym_result *r = xmalloc(sizeof *r + n * sizeof r->frame[0]);
	r->nframes = n;
	r->interned = 0;
	memcpy(r->frame, fr, n * sizeof fr[0]);
	return r;
}

struct sym_result *sym_resolve(struct sym_module *m, uint64_t addr)
{
	struct hindex_pos pos;
	for (uint32_t i = hindex_find(&m->index, hash_mix(addr), &pos); i != HINDEX_NONE;
	     i = hindex_next(&m->index, &pos))
		if (m->key[i] == addr)
			return m->val[i];
	struct sym_result *r = resolve(m, addr);
	m->used = 1;
	size_t cap = m->cap;
	grow_array(&m->key, &cap, m->count + 1, sizeof *m->key);
	grow_array(&m->val, &m->cap, m->count + 1, sizeof *m->val);
	m->key[m->count] = addr;
	m->val[m->count] = r;
	hindex_add(&m->index, &pos, (uint32_t)m->count++);
	return r;
}

void sym_module_files(const struct sym_module *m, void (*fn)(void *arg, const char *file),
		      void *arg)
{
	for (size_t i = 0; i < m->count; i++) {
		const struct sym_result *r = m->val[i];
		for (unsigned j = 0; r && j < r->nframes; j++)
			if (r->frame[j].file)
				fn(arg, r->frame[j].file);
	}
}

void sym_want(struct sym_module *m, uint64_t addr)
{
	grow_array(&m->want, &m->capwant, m->nwant + 1, sizeof *m->want);
	m->want[m->nwant++] = addr;
}

void sym_resolve_wanted(struct sym_module *m)
{
	for (size_t i = 0; i < m->nwant; i++)
		sym_resolve(m, m->want[i]);
	free(m->want);
	m->want = NULL;
	m->nwant = m->capwant = 0;
}
