/* partial.c - shares of the merge, packed and merged again (partial.h).
 *
 * The bytes are the machine's own: the ranks of one `mpirun` run the
 * same culprit on the same architecture. */
#define _GNU_SOURCE
#include "partial.h"

#include "bytes.h"

#include "experiment.h"
#include "hash.h"
#include "merge.h"
#include "tables.h"
#include "tools.h"
#include "trace.h"

#include <stdlib.h>
#include <string.h>

#define PARTIAL_MAGIC 0x54524150u	/* "PART" */

/* ---- the share ------------------------------------------------------------- */

void partial_owners(const struct experiment *e, int nranks, int *owner)
{
	double total = 0, before = 0;
	for (size_t i = 0; i < e->nthread; i++)
		total += 1.0 + e->thread[i]->t->nnodes + e->thread[i]->t->nvalues;
	for (size_t i = 0; i < e->nthread;) {
		/* A process goes to the rank its middle falls to: shares
		 * are runs of whole processes, and N equal processes on N
		 * ranks are one each. */
		size_t j = i;
		double w = 0;
		for (; j < e->nthread && e->thread[j]->proc == e->thread[i]->proc; j++)
			w += 1.0 + e->thread[j]->t->nnodes + e->thread[j]->t->nvalues;
		int rank = (int)((before + w / 2) * nranks / total);
		if (rank >= nranks)
			rank = nranks - 1;
		for (; i < j; i++)
			owner[i] = rank;
		before += w;
	}
}

void partial_init(struct partial *pt, struct ctree *tree, struct trace_rows *trace)
{
	memset(pt, 0, sizeof *pt);
	pt->tree = tree;
	pt->trace = trace;
}

void partial_free(struct partial *pt)
{
	free(pt->value);
	free(pt->thread);
	free(pt->total);
	memset(pt, 0, sizeof *pt);
}

static void keep_value(void *arg, const struct exp_thread *th, uint32_t ctx, uint32_t metric,
		       double incl, double excl)
{
	struct partial *pt = arg;
	grow_array(&pt->value, &pt->capvalue, pt->nvalue + 1, sizeof *pt->value);
	pt->value[pt->nvalue++] = (struct thread_row){ ctx, metric, th->id, incl, excl };
}

/* Room for one more thread's totals; returns them. */
static double *next_totals(struct partial *pt, uint32_t thread)
{
	size_t nm = pt->tree->nmetric;
	grow_array(&pt->thread, &pt->capthread, pt->nthread + 1, sizeof *pt->thread);
	grow_array(&pt->total, &pt->captotal, (pt->nthread + 1) * nm + 1, sizeof *pt->total);
	pt->thread[pt->nthread] = thread;
	return &pt->total[pt->nthread++ * nm];
}

void partial_merge(struct partial *pt, struct experiment *e, size_t first, size_t end)
{
	/* The others' trees first: this rank's memory is then its share. */
	for (size_t i = 0; i < e->nthread; i++)
		if (i < first || i >= end)
			exp_thread_release(e->thread[i]);
	progress_start("merging");
	for (size_t i = first; i < end; i++) {
		struct exp_thread *th = e->thread[i];
		progress_update("thread %zu of %zu", i + 1, e->nthread);
		double *totals = next_totals(pt, th->id);
		ctree_add_thread(pt->tree, th, keep_value, pt, totals);
		trace_rows_add_thread(pt->trace, pt->tree, th);
		exp_thread_release(th);
	}
	progress_end();
}

/* ---- bytes out ----------------------------------------------------------- */

static void pack_strings(struct pack *p, const struct ctree *t)
{
	uint32_t n = strtab_count(t->str);
	put_u32(p, n);
	for (uint32_t id = 1; id < n; id++) {
		const char *s = strtab_get(t->str, id);
		uint32_t len = (uint32_t)strlen(s) + 1;
		put_u32(p, len);
		put(p, s, len);
	}
}

static void pack_nodes(struct pack *p, const struct ctree *t)
{
	put_u32(p, (uint32_t)t->n);
	for (size_t i = 1; i < t->n; i++) {
		const struct ctx_node *n = &t->node[i];
		uint32_t w[7] = { n->parent, n->procedure, n->module, n->file, n->line, n->folded,
				  n->kind };
		put(p, w, sizeof w);
	}
	uint32_t nclass = 0, nsecondary = 0;
	for (size_t i = 0; i < t->n; i++) {
		nclass += ctree_class(t, (uint32_t)i) != NULL;
		nsecondary += ctree_secondary(t, (uint32_t)i) != 0;
	}
	put_u32(p, nclass);
	for (size_t i = 0; i < t->n; i++) {
		const struct ctx_class *c = ctree_class(t, (uint32_t)i);
		if (c) {
			uint32_t w[3] = { (uint32_t)i, c->type, c->by };
			put(p, w, sizeof w);
		}
	}
	put_u32(p, nsecondary);
	for (size_t i = 0; i < t->n; i++)
		if (ctree_secondary(t, (uint32_t)i))
			put_u32(p, (uint32_t)i);
}

static void pack_stats(struct pack *p, const struct ctree *t)
{
	put_u32(p, (uint32_t)t->nmetric);
	for (size_t m = 0; m < t->nmetric; m++) {
		const struct ctx_stat *s = t->mstat[m];
		put_f64(p, t->metric[m].total);
		uint64_t n = 0;
		for (size_t i = 0; s && i < t->n; i++)
			n += s[i].incl != 0 || s[i].excl != 0;
		put_u64(p, s ? n : UINT64_MAX);	/* UINT64_MAX: not kept at all */
		for (size_t i = 0; s && i < t->n; i++) {
			if (s[i].incl == 0 && s[i].excl == 0)
				continue;
			put_u32(p, (uint32_t)i);
			put_f64(p, s[i].incl);
			put_f64(p, s[i].excl);
		}
	}
	put_u64(p, t->nthreads);
	put_u32(p, (uint32_t)t->thread_derivable);
}

/* The threads' values in runs of one thread and metric, 20 bytes a value
 * (the merge gives them so: thread by thread, metric by metric). */
static void pack_values(struct pack *p, const struct partial *pt)
{
	uint64_t runs = 0;
	for (size_t i = 0; i < pt->nvalue; i++)
		runs += i == 0 || pt->value[i].thread != pt->value[i - 1].thread ||
			pt->value[i].metric != pt->value[i - 1].metric;
	put_u64(p, runs);
	for (size_t i = 0; i < pt->nvalue;) {
		size_t j = i;
		while (j < pt->nvalue && pt->value[j].thread == pt->value[i].thread &&
		       pt->value[j].metric == pt->value[i].metric)
			j++;
		uint32_t head[3] = { pt->value[i].thread, pt->value[i].metric, (uint32_t)(j - i) };
		put(p, head, sizeof head);
		for (; i < j; i++) {
			put_u32(p, pt->value[i].ctx);
			put_f64(p, pt->value[i].incl);
			put_f64(p, pt->value[i].excl);
		}
	}
}

/* The tree's metrics, by event and name in order, as one number: two
 * trees' values add up only where they agree. */
static uint64_t metrics_fingerprint(const struct ctree *t)
{
	uint64_t h = t->nmetric;
	for (size_t m = 0; m < t->nmetric; m++) {
		h = hash_string(h, t->event[t->metric[m].event].name);
		h = hash_string(h, t->metric[m].name);
	}
	return h;
}

unsigned char *partial_pack(const struct partial *pt, size_t *len)
{
	struct pack p = { NULL, 0, 0 };
	const struct trace_rows *tr = pt->trace;
	put_u32(&p, PARTIAL_MAGIC);
	put_u64(&p, metrics_fingerprint(pt->tree));
	pack_strings(&p, pt->tree);
	pack_nodes(&p, pt->tree);
	pack_stats(&p, pt->tree);
	pack_values(&p, pt);
	put_u64(&p, pt->nthread);
	put(&p, pt->thread, pt->nthread * sizeof *pt->thread);
	put(&p, pt->total, pt->nthread * pt->tree->nmetric * sizeof *pt->total);
	put_u64(&p, tr->dropped);
	put_u64(&p, tr->threads);
	put_u64(&p, tr->n);
	put(&p, tr->row, tr->n * sizeof *tr->row);
	*len = p.n;
	return p.b;
}

/* ---- bytes in ------------------------------------------------------------ */

/* The share's string ids, as this tree's. */
static uint32_t *absorb_strings(struct unpack *u, struct ctree *t, uint32_t *n)
{
	*n = get_u32(u);
	if (*n == 0 || *n > (size_t)(u->end - u->p)) {
		u->bad = 1;
		return NULL;
	}
	uint32_t *map = xcalloc(*n, sizeof *map);
	for (uint32_t id = 1; id < *n && !u->bad; id++) {
		uint32_t len = get_u32(u);
		if (len == 0 || len > (size_t)(u->end - u->p) || u->p[len - 1] != 0) {
			u->bad = 1;
			break;
		}
		map[id] = strtab_intern(t->str, (const char *)u->p);
		u->p += len;
	}
	return map;
}

static int string_ok(uint32_t id, uint32_t nstr)
{
	return id < nstr;
}

/* The share's contexts, as this tree's; their classes and whether other
 * than first threads reached them. */
static uint32_t *absorb_nodes(struct unpack *u, struct ctree *t, const uint32_t *smap,
			      uint32_t nstr, uint32_t *n)
{
	*n = get_u32(u);
	if (*n == 0 || (uint64_t)(*n - 1) * 28 > (uint64_t)(u->end - u->p)) {
		u->bad = 1;
		return NULL;
	}
	uint32_t *map = xmalloc(*n * sizeof *map);
	map[0] = 0;
	for (uint32_t i = 1; i < *n && !u->bad; i++) {
		uint32_t w[7];
		get(u, w, sizeof w);
		if (w[0] >= i || !string_ok(w[1], nstr) || !string_ok(w[2], nstr) ||
		    !string_ok(w[3], nstr) || !string_ok(w[5], nstr) || w[6] >= CTX_KINDS) {
			u->bad = 1;
			break;
		}
		map[i] = ctree_child(t, map[w[0]], (int)w[6], smap[w[1]], smap[w[2]], smap[w[3]],
				     w[4]);
		if (w[5] && !t->node[map[i]].folded)
			t->node[map[i]].folded = smap[w[5]];	/* as first seen */
	}
	for (uint32_t k = get_u32(u); k > 0 && !u->bad; k--) {
		uint32_t w[3];
		get(u, w, sizeof w);
		if (w[0] >= *n || !string_ok(w[1], nstr) || !string_ok(w[2], nstr)) {
			u->bad = 1;
			break;
		}
		if (!ctree_class(t, map[w[0]]))
			ctree_set_class(t, map[w[0]], &(struct ctx_class){ smap[w[1]], smap[w[2]] });
	}
	for (uint32_t k = get_u32(u); k > 0 && !u->bad; k--) {
		uint32_t i = get_u32(u);
		if (i >= *n) {
			u->bad = 1;
			break;
		}
		ctree_mark_secondary(t, map[i]);
	}
	return map;
}

static void absorb_stats(struct unpack *u, struct ctree *t, const uint32_t *map, uint32_t n)
{
	if (get_u32(u) != t->nmetric) {
		u->bad = 1;
		return;
	}
	for (size_t m = 0; m < t->nmetric && !u->bad; m++) {
		t->metric[m].total += get_f64(u);
		uint64_t count = get_u64(u);
		if (count == UINT64_MAX)
			continue;
		if (count > (uint64_t)(u->end - u->p) / 20) {
			u->bad = 1;
			return;
		}
		if (!t->mstat[m])
			t->mstat[m] = xcalloc(t->cap, sizeof *t->mstat[m]);
		for (; count > 0 && !u->bad; count--) {
			uint32_t i = get_u32(u);
			double incl = get_f64(u), excl = get_f64(u);
			if (i >= n) {
				u->bad = 1;
				return;
			}
			t->mstat[m][map[i]].incl += incl;
			t->mstat[m][map[i]].excl += excl;
		}
	}
	t->nthreads += get_u64(u);
	t->thread_derivable &= get_u32(u) != 0;
}

static void absorb_values(struct unpack *u, struct partial *pt, const uint32_t *map, uint32_t n,
			  uint32_t threads)
{
	size_t nm = pt->tree->nmetric;
	uint64_t runs = get_count(u, 12);
	for (uint64_t k = 0; k < runs && !u->bad; k++) {
		uint32_t head[3];
		get(u, head, sizeof head);
		if (head[0] == 0 || head[0] > threads || head[1] >= nm ||
		    head[2] > (uint64_t)(u->end - u->p) / 20) {
			u->bad = 1;
			return;
		}
		grow_array(&pt->value, &pt->capvalue, pt->nvalue + head[2] + 1, sizeof *pt->value);
		for (uint32_t e = 0; e < head[2]; e++) {
			uint32_t ctx = get_u32(u);
			double incl = get_f64(u), excl = get_f64(u);
			if (ctx >= n) {
				u->bad = 1;
				return;
			}
			pt->value[pt->nvalue++] = (struct thread_row){ map[ctx], head[1], head[0],
								       incl, excl };
		}
	}
	uint64_t nt = get_count(u, sizeof(uint32_t) + nm * sizeof(double));
	const unsigned char *ids = u->p;
	u->p += nt * sizeof(uint32_t);
	for (uint64_t k = 0; k < nt && !u->bad; k++) {
		uint32_t id;
		memcpy(&id, ids + k * sizeof id, sizeof id);
		if (id == 0 || id > threads) {
			u->bad = 1;
			return;
		}
		get(u, next_totals(pt, id), nm * sizeof(double));
	}
}

static void absorb_trace(struct unpack *u, struct trace_rows *tr, const uint32_t *map, uint32_t n,
			 uint32_t threads)
{
	tr->dropped += get_u64(u);
	tr->threads += get_u64(u);
	uint64_t nr = get_count(u, sizeof *tr->row);
	grow_array(&tr->row, &tr->cap, tr->n + nr + 1, sizeof *tr->row);
	for (uint64_t k = 0; k < nr && !u->bad; k++) {
		struct trace_row *row = &tr->row[tr->n];
		get(u, row, sizeof *row);
		if ((row->ctx != CTX_NONE && row->ctx >= n) || row->thread == 0 ||
		    row->thread > threads) {
			u->bad = 1;
			return;
		}
		if (row->ctx != CTX_NONE)
			row->ctx = map[row->ctx];
		tr->n++;
	}
}

int partial_absorb(struct partial *pt, const unsigned char *bytes, size_t len,
		   uint32_t threads)
{
	struct unpack u = { bytes, bytes + len, 0 };
	uint32_t nstr = 0, nnode = 0, *nmap = NULL;
	if (get_u32(&u) != PARTIAL_MAGIC || get_u64(&u) != metrics_fingerprint(pt->tree))
		return -1;
	uint32_t *smap = absorb_strings(&u, pt->tree, &nstr);
	if (!u.bad)
		nmap = absorb_nodes(&u, pt->tree, smap, nstr, &nnode);
	if (!u.bad)
		absorb_stats(&u, pt->tree, nmap, nnode);
	if (!u.bad)
		absorb_values(&u, pt, nmap, nnode, threads);
	if (!u.bad)
		absorb_trace(&u, pt->trace, nmap, nnode, threads);
	free(smap);
	free(nmap);
	return u.bad || u.p != u.end ? -1 : 0;
}

struct thread_values *partial_values(struct partial *pt, sqlite3 *db)
{
	struct thread_values *v = thread_values_new(db, pt->tree);
	if (!v)
		return NULL;
	for (size_t i = 0; i < pt->nthread; i++)
		if (thread_values_totals_id(v, pt->thread[i], &pt->total[i * pt->tree->nmetric]) < 0) {
			thread_values_free(v);
			return NULL;
		}
	thread_values_adopt(v, pt->value, pt->nvalue, pt->capvalue);
	pt->value = NULL;
	pt->nvalue = pt->capvalue = 0;
	return v;
}
