/* speedscope.c - speedscope's file format (its "sampled" profiles, frames
 * shared): one profile per metric of the event, each leaf path a sample
 * weighted by its value, frames with their file and line.
 * https://www.speedscope.app/file-format-schema.json describes it. */
#include "config.h"
#include "export.h"
#include "hash.h"
#include "hindex.h"
#include "tools.h"

#include <stdlib.h>
#include <string.h>

/* The frames: one per procedure (with file and line), inlined or not. */
struct frames {
	uint32_t *of;		/* by context: its frame index + 1; 0: not a frame */
	uint32_t n;
};

static uint64_t frame_hash(const struct dbr_ctx *c)
{
	return hash_mix((uint64_t)(uintptr_t)c->procedure ^
			hash_mix((uint64_t)(uintptr_t)c->file ^ (uint64_t)(unsigned)c->line << 1 ^
				 (c->kind == KIND_INLINED[0])));
}

static int same_frame(const struct dbr_ctx *a, const struct dbr_ctx *b)
{
	/* Names are interned by the tree: equal names, equal pointers. */
	return a->procedure == b->procedure && a->file == b->file && a->line == b->line &&
	       (a->kind == KIND_INLINED[0]) == (b->kind == KIND_INLINED[0]);
}

/* Numbers every frame of the tree and writes the shared frame list. */
static void write_frames(FILE *f, const struct dbr_tree *t, struct frames *fr)
{
	const struct dbr_ctx **first = NULL;	/* by frame index: its first context */
	size_t cap = 0;
	struct hindex index = { 0 };		/* frame identity -> index */
	fr->of = xcalloc(t->n + 1, sizeof *fr->of);
	fputs("\"shared\":{\"frames\":[", f);
	for (uint32_t i = 0; i < t->n; i++) {
		const struct dbr_ctx *c = &t->c[i];
		if (!dbr_is_frame(c->kind) && c->kind != KIND_ROOT[0])
			continue;
		struct hindex_pos pos;
		uint32_t k = hindex_find(&index, frame_hash(c), &pos);
		while (k != HINDEX_NONE && !same_frame(first[k], c))
			k = hindex_next(&index, &pos);
		if (k == HINDEX_NONE) {
			k = fr->n++;
			grow_array(&first, &cap, fr->n, sizeof *first);
			first[k] = c;
			hindex_add(&index, &pos, k);
			fputs(fr->n > 1 ? ",{\"name\":" : "{\"name\":", f);
			char *name = xasprintf("%s%s", c->procedure ? c->procedure : "?",
					       c->kind == KIND_INLINED[0] ? " [inlined]" : "");
			json_string(f, name);
			free(name);
			if (c->file) {
				fputs(",\"file\":", f);
				json_string(f, c->file);
				if (c->line > 0)
					fprintf(f, ",\"line\":%d", c->line);
			}
			putc('}', f);
		}
		fr->of[i] = k + 1;
	}
	fputs("]},", f);
	free(first);
	hindex_free(&index);
}

/* One profile's pass over the leaves: their paths, or their weights. */
struct pass {
	FILE *f;
	const struct stacks *s;
	const struct frames *fr;
	size_t k;
	double scale;
	int weights, first;
	uint32_t *path;
};

static void profile_leaf(void *arg, uint32_t leaf, const double *values)
{
	struct pass *p = arg;
	if (values[p->k] == 0)
		return;
	if (p->weights) {
		fprintf(p->f, p->first ? "%.17g" : ",%.17g", values[p->k] * p->scale);
	} else {
		size_t n = stacks_path(p->s, leaf, p->path, p->s->tree->n);
		fputs(p->first ? "[" : ",[", p->f);
		for (size_t j = 0; j < n; j++)
			fprintf(p->f, j ? ",%u" : "%u", p->fr->of[p->path[j]] - 1);
		putc(']', p->f);
	}
	p->first = 0;
}

/* Metric K's profile: its samples, then their weights, a pass each. */
static int write_profile(const struct export *x, const struct stacks *s, const struct frames *fr,
			 size_t k, uint32_t *path)
{
	FILE *f = x->out;
	const char *unit;
	double scale = stacks_scale(x->unit, s->metric[k], &unit);
	fputs("{\"type\":\"sampled\",\"name\":", f);
	char *name = xasprintf("%s %s", x->event, s->metric[k]);
	json_string(f, name);
	free(name);
	fprintf(f, ",\"unit\":\"%s\",\"startValue\":0,\"endValue\":%.17g,\"samples\":[",
		strcmp(unit, "microseconds") == 0 ? "microseconds" : "none",
		dbr_metric_total(x->db, x->event, s->metric[k], NULL) * scale);
	/* Each pass sees one metric: the others are not read. */
	struct stacks one = *s;
	one.metric = &s->metric[k];
	one.nm = 1;
	struct pass p = { f, &one, fr, 0, scale, 0, 1, path };
	int rc = stacks_each(&one, profile_leaf, &p);
	fputs("],\"weights\":[", f);
	p.weights = 1;
	p.first = 1;
	if (rc == 0)
		rc = stacks_each(&one, profile_leaf, &p);
	fputs("]}", f);
	return rc;
}

int export_speedscope(const struct export *x)
{
	char **all;
	size_t nall;
	if (dbr_event_metrics(x->db, x->event, &all, &nall) < 0)
		return msg_error("%s", dbr_error(x->db));
	/* The metrics that are the event's (not culprit's own cost). */
	const char **m = xcalloc(nall + 1, sizeof *m);
	size_t nm = 0;
	for (size_t i = 0; i < nall; i++)
		if (!x->metric ? strcmp(all[i], MET_MEASUREMENT) != 0 : strcmp(all[i], x->metric) == 0)
			m[nm++] = all[i];
	struct stacks s;
	int rc = stacks_open(&s, x->db, x->event, m, nm);
	if (rc == 0) {
		FILE *f = x->out;
		struct frames fr = { 0 };
		uint32_t *path = xmalloc((s.tree->n + 1) * sizeof *path);
		fputs("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",", f);
		write_frames(f, s.tree, &fr);
		fputs("\"profiles\":[", f);
		for (size_t k = 0; k < nm && rc == 0; k++) {
			if (k)
				putc(',', f);
			rc = write_profile(x, &s, &fr, k, path);
		}
		fputs("],\"name\":", f);
		json_string(f, dbr_file(x->db));
		fputs(",\"activeProfileIndex\":0,\"exporter\":\"culprit " PACKAGE_VERSION "\"}\n", f);
		free(path);
		free(fr.of);
		stacks_close(&s);
	}
	for (size_t i = 0; i < nall; i++)
		free(all[i]);
	free(all);
	free(m);
	return rc;
}
