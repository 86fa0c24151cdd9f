/* pprof.c - pprof's profile.proto, gzipped, which `go tool pprof` and its
 * web UI open.
 *
 * A sample per leaf path (stacks.c), with a value for every metric of the
 * event (a sample type each: work, idleness, overhead, useful work,
 * effort in nanoseconds, samples as a count).  A location is a frame with
 * the frames inlined into it on the path, innermost first, each line the
 * call's; functions carry their file and declaration line; mappings are
 * the modules, with their build ids.  Values are integers, rounded with
 * the remainder carried, so each type adds up to its total.
 *
 * Streaming: protobuf concatenates a message's serialized pieces as one
 * message (repeated fields append), so the profile is written as a
 * sequence of partial Profile messages, each packed by protobuf-c, holding
 * the samples of a batch and the strings, functions and locations they
 * are the first to use.  Memory is the tables of those, not the samples.
 * zlib writes the gzip stream. */
#define _GNU_SOURCE
#include "export.h"
#include "hash.h"
#include "hindex.h"
#include "profile.pb-c.h"
#include "tools.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#define BATCH 4096	/* samples per partial message */

/* A map from 64-bit keys (pointers, pairs) to ids 1, 2, ... */
struct idmap {
	uint64_t *key;		/* id - 1 -> key */
	size_t n, cap;
	struct hindex index;	/* key -> id - 1 */
};

/* The id of KEY, 0 when it has none; with ADD, a new one (*ADDED 1). */
static uint64_t idmap_get(struct idmap *m, uint64_t key, int add, int *added)
{
	if (added)
		*added = 0;
	struct hindex_pos pos;
	for (uint32_t i = hindex_find(&m->index, hash_mix(key), &pos); i != HINDEX_NONE;
	     i = hindex_next(&m->index, &pos))
		if (m->key[i] == key)
			return (uint64_t)i + 1;
	if (!add)
		return 0;
	grow_array(&m->key, &m->cap, m->n + 1, sizeof *m->key);
	m->key[m->n] = key;
	hindex_add(&m->index, &pos, (uint32_t)m->n);
	if (added)
		*added = 1;
	return ++m->n;
}

static void idmap_free(struct idmap *m)
{
	free(m->key);
	hindex_free(&m->index);
}

/* The profile being written: the tables so far, and the batch. */
struct pprof {
	const struct export *x;
	struct stacks *s;
	gzFile gz;
	int failed;
	struct idmap strings, functions, locations, mappings;
	/* The batch: what it is the first to use, and its samples. */
	char **str;
	size_t nstr, capstr;
	Perftools__Profiles__Function **fn;
	size_t nfn, capfn;
	Perftools__Profiles__Location **loc;
	size_t nloc, caploc;
	Perftools__Profiles__Sample **sample;
	size_t nsample;
	/* The walk: the first message's fields until it is written, the
	 * values' scales and rounding remainders, a path's room. */
	Perftools__Profiles__Profile *header;
	const double *scale;
	double *carry;
	uint32_t *path;
};

/* The index of string S (interned by the tree, or a constant) in the
 * string table, added to the batch when new. */
static int64_t string_of(struct pprof *p, const char *s)
{
	if (!s || !*s)
		return 0;
	int added;
	uint64_t id = idmap_get(&p->strings, (uint64_t)(uintptr_t)s, 1, &added);
	if (added) {
		grow_array(&p->str, &p->capstr, p->nstr + 1, sizeof *p->str);
		p->str[p->nstr++] = (char *)s;
	}
	return (int64_t)id;	/* "" is index 0, the first string written */
}

static uint64_t function_of(struct pprof *p, const struct dbr_ctx *c)
{
	/* Procedure and file are interned: their pointers name them. */
	uint64_t key = hash_mix((uint64_t)(uintptr_t)c->procedure) ^ (uint64_t)(uintptr_t)c->file ^
		       (uint64_t)c->line << 40;
	int added;
	uint64_t id = idmap_get(&p->functions, key, 1, &added);
	if (added) {
		Perftools__Profiles__Function *f = xcalloc(1, sizeof *f);
		perftools__profiles__function__init(f);
		f->id = id;
		f->name = f->system_name = string_of(p, c->procedure ? c->procedure : "?");
		f->filename = string_of(p, c->file);
		f->start_line = c->line > 0 ? c->line : 0;
		grow_array(&p->fn, &p->capfn, p->nfn + 1, sizeof *p->fn);
		p->fn[p->nfn++] = f;
	}
	return id;
}

static uint64_t mapping_of(struct pprof *p, const char *module)
{
	return module ? idmap_get(&p->mappings, (uint64_t)(uintptr_t)module, 0, NULL) : 0;
}

/* The location of the frames PATH[A..B) (a frame and what was inlined into
 * it, outermost first), NEXT the context below them on the path (the
 * leaf's own index when they end it); KEY names it. */
static uint64_t location_of(struct pprof *p, const uint32_t *path, size_t a, size_t b,
			    uint32_t next, uint64_t key)
{
	int added;
	uint64_t id = idmap_get(&p->locations, key, 1, &added);
	if (!added)
		return id;
	const struct dbr_ctx *c = p->s->tree->c;
	Perftools__Profiles__Location *l = xcalloc(1, sizeof *l);
	perftools__profiles__location__init(l);
	l->id = id;
	l->mapping_id = mapping_of(p, c[path[a]].module);
	l->n_line = b - a;
	l->line = xcalloc(l->n_line, sizeof *l->line);
	/* Innermost first: the last entry is the frame the others were
	 * inlined into. */
	for (size_t k = 0; k < l->n_line; k++) {
		size_t i = b - 1 - k;
		uint32_t below = i + 1 < b ? path[i + 1] : next;
		Perftools__Profiles__Line *ln = xcalloc(1, sizeof *ln);
		perftools__profiles__line__init(ln);
		ln->function_id = function_of(p, &c[path[i]]);
		ln->line = below == path[i] ? c[path[i]].line : stacks_line_of(p->s, path[i], below);
		l->line[k] = ln;
	}
	grow_array(&p->loc, &p->caploc, p->nloc + 1, sizeof *p->loc);
	p->loc[p->nloc++] = l;
	return id;
}

/* Packs what the batch holds as a partial Profile (and, for the first,
 * FIRST's fields) into the gzip stream, and empties it. */
static void flush(struct pprof *p, Perftools__Profiles__Profile *first)
{
	Perftools__Profiles__Profile m = PERFTOOLS__PROFILES__PROFILE__INIT;
	if (first)
		m = *first;
	m.n_string_table = p->nstr;
	m.string_table = p->str;
	m.n_function = p->nfn;
	m.function = p->fn;
	m.n_location = p->nloc;
	m.location = p->loc;
	m.n_sample = p->nsample;
	m.sample = p->sample;
	size_t size = perftools__profiles__profile__get_packed_size(&m);
	uint8_t *buf = xmalloc(size + 1);
	perftools__profiles__profile__pack(&m, buf);
	if (size && gzwrite(p->gz, buf, (unsigned)size) != (int)size)
		p->failed = 1;
	free(buf);
	for (size_t i = 0; i < p->nfn; i++)
		free(p->fn[i]);
	for (size_t i = 0; i < p->nloc; i++) {
		for (size_t k = 0; k < p->loc[i]->n_line; k++)
			free(p->loc[i]->line[k]);
		free(p->loc[i]->line);
		free(p->loc[i]);
	}
	for (size_t i = 0; i < p->nsample; i++) {
		free(p->sample[i]->location_id);
		free(p->sample[i]->value);
		free(p->sample[i]);
	}
	p->nstr = p->nfn = p->nloc = p->nsample = 0;
}

/* The sample of LEAF: its locations innermost first, and its VALUES
 * (rounded by ROUND, the remainders carried in CARRY). */
static void add_sample(struct pprof *p, uint32_t leaf, const double *values, const double *scale,
		       double *carry, uint32_t *path)
{
	const struct dbr_ctx *c = p->s->tree->c;
	size_t n = stacks_path(p->s, leaf, path, p->s->tree->n);
	Perftools__Profiles__Sample *smp = xcalloc(1, sizeof *smp);
	perftools__profiles__sample__init(smp);
	smp->location_id = xcalloc(n + 1, sizeof *smp->location_id);
	/* Groups of a frame (or root) and the inlined frames after it. */
	size_t end = n;
	while (end > 0) {
		size_t start = end - 1;
		while (start > 0 && c[path[start]].kind == KIND_INLINED[0])
			start--;
		/* Its key: the call site out of it (the next frame's parent),
		 * or, at the leaf, the leaf. */
		uint32_t next = end < n ? path[end] : leaf;
		uint64_t key = end < n ? (uint64_t)c[next].parent << 1 : ((uint64_t)leaf << 1) | 1;
		smp->location_id[smp->n_location_id++] = location_of(p, path, start, end, next, key);
		end = start;
	}
	smp->n_value = p->s->nm;
	smp->value = xcalloc(smp->n_value, sizeof *smp->value);
	for (size_t k = 0; k < p->s->nm; k++) {
		double exact = values[k] * scale[k] + carry[k];
		double whole = floor(exact + 0.5);
		carry[k] = exact - whole;
		smp->value[k] = (int64_t)whole;
	}
	p->sample[p->nsample++] = smp;
}

static void pprof_leaf(void *arg, uint32_t leaf, const double *values)
{
	struct pprof *p = arg;
	if (p->failed)
		return;
	add_sample(p, leaf, values, p->scale, p->carry, p->path);
	if (p->nsample == BATCH) {
		flush(p, p->header);
		p->header = NULL;	/* the first message had it */
	}
}

/* The first message's fields: sample types, mappings, period, times. */
static void header(struct pprof *p, Perftools__Profiles__Profile *h, const char *const *units,
		   const struct dbr_module *const *mod, size_t nmod)
{
	/* Index 0 is "", before any id (ids count from 1). */
	grow_array(&p->str, &p->capstr, p->nstr + 1, sizeof *p->str);
	p->str[p->nstr++] = "";
	h->n_sample_type = p->s->nm;
	h->sample_type = xcalloc(p->s->nm, sizeof *h->sample_type);
	for (size_t k = 0; k < p->s->nm; k++) {
		Perftools__Profiles__ValueType *v = xcalloc(1, sizeof *v);
		perftools__profiles__value_type__init(v);
		v->type = string_of(p, p->s->metric[k]);
		v->unit = string_of(p, units[k]);
		h->sample_type[k] = v;
		if (strcmp(p->s->metric[k], MET_WORK) == 0)
			h->default_sample_type = v->type;
	}
	h->n_mapping = nmod;
	h->mapping = xcalloc(nmod + 1, sizeof *h->mapping);
	for (size_t i = 0; i < nmod; i++) {
		Perftools__Profiles__Mapping *m = xcalloc(1, sizeof *m);
		perftools__profiles__mapping__init(m);
		m->id = i + 1;
		m->filename = string_of(p, mod[i]->path);
		m->build_id = string_of(p, mod[i]->build_id);
		m->has_functions = m->has_filenames = m->has_line_numbers = m->has_inline_frames = 1;
		h->mapping[i] = m;
	}
	Perftools__Profiles__ValueType *pt = xcalloc(1, sizeof *pt);
	perftools__profiles__value_type__init(pt);
	pt->type = string_of(p, p->x->event);
	pt->unit = string_of(p, strcmp(p->x->unit, "seconds") == 0 ? "nanoseconds" : "count");
	h->period_type = pt;
	double period = dbr_event_period(p->x->db, p->x->event);
	h->period = (int64_t)(strcmp(p->x->unit, "seconds") == 0 ? period * 1e9 : period);
	h->time_nanos = (int64_t)(dbr_info_number(p->x->db, "trace_origin", 0) * 1e9);
	h->duration_nanos = (int64_t)(dbr_info_number(p->x->db, "trace_duration", 0) * 1e9);
}

static void header_free(Perftools__Profiles__Profile *h)
{
	for (size_t k = 0; k < h->n_sample_type; k++)
		free(h->sample_type[k]);
	free(h->sample_type);
	for (size_t i = 0; i < h->n_mapping; i++)
		free(h->mapping[i]);
	free(h->mapping);
	free(h->period_type);
}

static int write_profile(struct pprof *p, struct dbr_module *mod, size_t nmod)
{
	struct stacks *s = p->s;
	double *scale = xcalloc(s->nm + 1, sizeof *scale), *carry = xcalloc(s->nm + 1, sizeof *carry);
	const char **units = xcalloc(s->nm + 1, sizeof *units);
	uint32_t *path = xmalloc((s->tree->n + 1) * sizeof *path);
	for (size_t k = 0; k < s->nm; k++) {
		const char *u;
		stacks_scale(p->x->unit, s->metric[k], &u);
		int time = strcmp(u, "microseconds") == 0;
		scale[k] = time ? 1e9 : 1;
		units[k] = time ? "nanoseconds" : "count";
	}
	/* A mapping per module the tree names (its names are interned: a
	 * module's pointer names it), numbered as listed. */
	const struct dbr_module **used = xcalloc(nmod + 1, sizeof *used);
	size_t nused = 0;
	for (uint32_t c = 0; c < s->tree->n; c++) {
		const char *name = s->tree->c[c].module;
		if (!name || idmap_get(&p->mappings, (uint64_t)(uintptr_t)name, 0, NULL))
			continue;
		for (size_t i = 0; i < nmod; i++)
			if (strcmp(name, mod[i].path) == 0) {
				idmap_get(&p->mappings, (uint64_t)(uintptr_t)name, 1, NULL);
				used[nused++] = &mod[i];
				break;
			}
	}
	Perftools__Profiles__Profile h = PERFTOOLS__PROFILES__PROFILE__INIT;
	p->sample = xcalloc(BATCH, sizeof *p->sample);
	header(p, &h, units, used, nused);
	free(used);
	p->header = &h;
	p->scale = scale;
	p->carry = carry;
	p->path = path;
	if (stacks_each(s, pprof_leaf, p) != EXIT_OK)
		p->failed = 1;
	flush(p, p->header);
	header_free(&h);
	free(p->sample);
	free(scale);
	free(carry);
	free(units);
	free(path);
	return p->failed ? -1 : 0;
}

int export_pprof(const struct export *x)
{
	char **all;
	size_t nall, nmod = 0;
	struct dbr_module *mod = NULL;
	if (dbr_event_metrics(x->db, x->event, &all, &nall) < 0 ||
	    dbr_modules(x->db, &mod, &nmod) < 0)
		return msg_error("%s", dbr_error(x->db));
	const char **m = xcalloc(nall + 1, sizeof *m);
	size_t nm = 0;
	/* Every metric of the event, samples first (pprof's convention for
	 * a count of events), culprit's own cost left out. */
	for (size_t i = 0; i < nall; i++)
		if (strcmp(all[i], MET_SAMPLES) == 0)
			m[nm++] = all[i];
	for (size_t i = 0; i < nall; i++)
		if (strcmp(all[i], MET_SAMPLES) != 0 && strcmp(all[i], MET_MEASUREMENT) != 0)
			m[nm++] = all[i];
	struct stacks s;
	int rc = stacks_open(&s, x->db, x->event, m, nm);
	if (rc == 0) {
		struct pprof p = { .x = x, .s = &s };
		fflush(x->out);
		int fd = dup(fileno(x->out));
		p.gz = fd >= 0 ? gzdopen(fd, "wb") : NULL;
		if (!p.gz) {
			if (fd >= 0)
				close(fd);
			rc = msg_error("cannot start the gzip stream");
		} else {
			int failed = write_profile(&p, mod, nmod);
			if (gzclose(p.gz) != Z_OK || failed)
				rc = msg_error("cannot write the profile");
		}
		free(p.str);
		free(p.fn);
		free(p.loc);
		idmap_free(&p.strings);
		idmap_free(&p.functions);
		idmap_free(&p.locations);
		idmap_free(&p.mappings);
		stacks_close(&s);
	}
	for (size_t i = 0; i < nall; i++)
		free(all[i]);
	free(all);
	free(m);
	dbr_modules_free(mod, nmod);
	return rc;
}
