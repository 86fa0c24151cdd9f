/* dump.c - `culprit dump`: a human-readable (or tab-separated) listing of
 * one measurement file, for debugging culprit and for its tests.
 *
 * A thread file's frames are named with the load map of its process file,
 * found in the same directory by its nonce; without one (or with --raw)
 * frames are shown as module+offset.  Every string from the measured
 * program is printed with control characters replaced.
 */
#define _GNU_SOURCE
#include "driver.h"
#include "mfile_format.h"
#include "mfile_read.h"
#include "symbolize.h"
#include "tools.h"

#include <dirent.h>
#include <getopt.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char dump_usage[] =
	"usage: culprit dump [--raw] [--tsv | --flat | --trace] FILE\n"
	"\n"
	"Prints a measurement file (*.thread or *.process) from a culprit run.\n"
	"\n"
	"      --raw    do not name functions; show module+offset\n"
	"      --tsv    thread files: one tab-separated line per tree node\n"
	"      --flat   thread files: exclusive values per function, largest first\n"
	"      --trace  thread files: one tab-separated line per traced sample\n"
	"  -h, --help   show this help\n";

enum format { FMT_TEXT, FMT_TSV, FMT_FLAT, FMT_TRACE };

/* Prints S with anything unprintable replaced (safe_text.c), so that a
 * name from the measured program cannot send control sequences to the
 * terminal. */
static void put_safe(FILE *f, const char *s)
{
	fput_safe(f, s, 0);
}

static void put_time(uint64_t ns)
{
	time_t t = (time_t)(ns / 1000000000u);
	struct tm tm;
	char buf[64];
	if (ns && localtime_r(&t, &tm) && strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm))
		printf("%s.%03u", buf, (unsigned)(ns / 1000000u % 1000u));
	else
		printf("-");
}

static void dump_sections(const char *path, const struct mfile *mf)
{
	char tn[5];
	printf("file        ");
	put_safe(stdout, path);
	printf("\nformat      %u.%u, %s file\nsections   ", mf->version_major, mf->version_minor,
	       mf->kind == MFILE_PROCESS ? "process" : "thread");
	for (uint32_t i = 0; i < mf->nsections; i++)
		printf(" %s(%" PRIu64 ")", mfile_tag_name(mf->sections[i].tag, tn),
		       mf->sections[i].length);
	printf("\n");
	for (uint32_t i = 0; i < mf->nnotes; i++) {
		printf("note        ");
		put_safe(stdout, mf->notes[i]);
		printf("\n");
	}
}

static void dump_process(const struct mfile *mf)
{
	const struct mfile_process *p = &mf->u.process;
	printf("process     pid %u, parent %u, generation %u", p->pid, p->ppid, p->generation);
	if (p->mpi_rank >= 0) {
		printf(", MPI rank %d (", p->mpi_rank);
		put_safe(stdout, p->rank_source);
		printf(")");
	}
	printf("\nnonce       %016" PRIx64 "\nexperiment  ", p->nonce);
	put_safe(stdout, p->experiment);
	printf("\nhost        ");
	put_safe(stdout, p->host);
	printf("\nexecutable  ");
	put_safe(stdout, p->exe);
	printf("\ncwd         ");
	put_safe(stdout, p->cwd);
	printf("\nstarted     ");
	put_time(p->start_realtime_ns);
	/* A snapshot: the process was still running when it was written. */
	int snap = mf->snapshot_ns != 0;
	printf(snap ? "\nsnapshot    " : "\nended       ");
	put_time(p->end_realtime_ns);
	printf(snap ? " (%.3f s), still running: it did not end normally%s" : " (%.3f s), by %s",
	       (double)(p->end_monotonic_ns - p->start_monotonic_ns) / 1e9,
	       snap ? "" : mfile_end_reason_name(p->end_reason));
	if (snap)
		;
	else if (p->end_reason == MFILE_END_SIGNAL)
		printf(" %d (%s)", p->end_status, strsignal(p->end_status));
	else if (p->end_status >= 0)
		printf(", status %d", p->end_status);
	printf("\nthreads     %u\ncommand    ", p->thread_count);
	for (uint32_t i = 0; i < p->argc; i++) {
		printf(" ");
		put_safe(stdout, p->argv[i]);
	}
	printf("\n\nevents:\n");
	for (uint32_t i = 0; i < p->nevents; i++) {
		const struct mfile_event *e = &p->events[i];
		printf("  %u  %-20s %-6s %-11s %s %" PRIu64 "%s  perf type %u config %#" PRIx64 "\n",
		       i, e->name, e->unit, mfile_source_name(e->source),
		       e->flags & MFILE_EVENT_FREQ ? "frequency" : "period", e->period,
		       e->flags & MFILE_EVENT_FREQ ? " Hz" : "", e->perf_type, e->perf_config);
	}
	printf("\nmodules (%u):\n", p->nmodules);
	for (uint32_t i = 0; i < p->nmodules; i++) {
		const struct mfile_module *m = &p->modules[i];
		printf("  %3u  ", m->id);
		put_safe(stdout, m->path);
		printf("%s%s%s\n       build-id ", m->flags & MFILE_MOD_MAIN ? "  [main]" : "",
		       m->flags & MFILE_MOD_VDSO ? "  [vdso]" : "",
		       m->flags & MFILE_MOD_COLLECTOR ? "  [culprit]" : "");
		for (uint32_t k = 0; k < m->build_id_len; k++)
			printf("%02x", m->build_id[k]);
		if (!m->build_id_len)
			printf("-");
		printf("  bias %#" PRIx64 "  loaded %.6f s", m->load_bias, (double)m->load_ns / 1e9);
		if (m->unload_ns)
			printf("  unloaded %.6f s", (double)m->unload_ns / 1e9);
		printf("\n");
		for (uint32_t k = 0; k < m->nsegments; k++) {
			const struct mfile_segment *s = &m->segments[k];
			printf("       segment %#" PRIx64 "-%#" PRIx64 " %c%c%c offset %#" PRIx64 "\n",
			       s->vaddr, s->vaddr + s->memsz, s->p_flags & 4 ? 'r' : '-',
			       s->p_flags & 2 ? 'w' : '-', s->p_flags & 1 ? 'x' : '-', s->file_offset);
		}
	}
}

/* The process file of thread T: same directory, same nonce. */
static struct mfile *find_process(const char *thread_path, uint64_t nonce, char **dir_out)
{
	char *copy = xstrdup(thread_path);
	char *dir = xstrdup(dirname(copy));
	free(copy);
	DIR *d = opendir(dir);
	struct dirent *e;
	struct mfile *found = NULL;

	while (d && !found && (e = readdir(d))) {
		size_t n = strlen(e->d_name);
		if (n < 9 || strcmp(e->d_name + n - 8, ".process") != 0)
			continue;
		char *path = xasprintf("%s/%s", dir, e->d_name);
		struct mfile *mf;
		struct mfile_error err;
		if (mfile_load(path, &mf, &err) == 0) {
			if (mf->kind == MFILE_PROCESS && mf->u.process.nonce == nonce)
				found = mf;
			else
				mfile_free(mf);
		}
		free(path);
	}
	if (d)
		closedir(d);
	*dir_out = dir;
	return found;
}

/* How a thread file's frames are named: from its process file's load map,
 * by the symbols of the modules it lists. */
struct namer {
	struct symbolizer *sym;		/* NULL: do not name functions */
	const struct mfile_process *proc;	/* NULL: no process file found */
	struct sym_module **module;	/* by index in proc->modules */
	struct mfile *process_file;	/* owned: the file PROC is in */
	char *dir;			/* owned: the thread file's directory */
	const struct mfile_thread *thread;	/* whose logical frames' names */
};

static const struct mfile_module *find_module(const struct namer *nm, uint32_t id, size_t *index)
{
	for (uint32_t i = 0; nm->proc && i < nm->proc->nmodules; i++)
		if (nm->proc->modules[i].id == id) {
			*index = i;
			return &nm->proc->modules[i];
		}
	return NULL;
}

static const char *module_base(const struct namer *nm, uint32_t id)
{
	size_t i;
	const struct mfile_module *m = find_module(nm, id, &i);
	if (!m)
		return NULL;
	const char *slash = strrchr(m->path, '/');
	return slash ? slash + 1 : m->path;
}

/* The name of the function containing node N's address (the real one:
 * calls inlined into it are the postmortem's business), or NULL. */
static const char *node_function(const struct namer *nm, const struct mfile_node *n)
{
	size_t i;
	if (n->kind != MFILE_NODE_FRAME || !n->module || !nm->sym || !find_module(nm, n->module, &i))
		return NULL;
	/* A return address points after its call; look up the call itself. */
	uint64_t at = (n->flags & MFILE_NODE_EXACT) || n->key == 0 ? n->key : n->key - 1;
	const struct sym_result *r = sym_resolve(nm->module[i], at);
	const char *name = r->frame[0].procedure;
	/* "module+0x..." stands for no name at all. */
	return strchr(name, '+') && strstr(name, "+0x") ? NULL : name;
}

static void node_label(const struct namer *nm, const struct mfile_node *n, char *buf,
		       size_t size)
{
	const char *fn, *mod;

	switch (n->kind) {
	case MFILE_NODE_ROOT:
		snprintf(buf, size, "<thread root>");
		return;
	case MFILE_NODE_MARKER:
		snprintf(buf, size, "<%s unwind>", mfile_marker_name(n->key));
		return;
	case MFILE_NODE_REF:
		snprintf(buf, size, "<context %" PRIu64 " of thread %" PRIu64 ">",
			 n->key & 0xffffffffu, n->key >> 32);
		return;
	case MFILE_NODE_LOGICAL: {
		uint32_t line;
		const struct mfile_lname *l =
			nm->thread ? mfile_lname_find(nm->thread, n->module, n->key, &line) : NULL;
		if (l)
			snprintf(buf, size, "%s (%s:%u)%s", l->name, l->file, line,
				 (n->flags & MFILE_NODE_EXACT) ? " *" : "");
		else
			snprintf(buf, size, "<logical %u:%#" PRIx64 ">", n->module, n->key);
		return;
	}
	}
	fn = node_function(nm, n);
	mod = n->module ? module_base(nm, n->module) : NULL;
	if (!n->module)
		snprintf(buf, size, "%#" PRIx64 " (no module)", n->key);
	else if (fn)
		snprintf(buf, size, "%s (%s+%#" PRIx64 ")", fn, mod ? mod : "?", n->key);
	else if (mod)
		snprintf(buf, size, "%s+%#" PRIx64, mod, n->key);
	else
		snprintf(buf, size, "module%u+%#" PRIx64, n->module, n->key);
}

struct tree {
	const struct mfile_thread *t;
	double *excl;		/* nnodes * ncolumns */
	double *incl;
	uint32_t *first_child, *next_sibling, *depth;
};

static void tree_build(struct tree *tr, const struct mfile_thread *t)
{
	uint32_t n = t->nnodes, c = t->ncolumns ? t->ncolumns : 1;
	tr->t = t;
	tr->excl = xcalloc((size_t)n * c, sizeof(double));
	tr->incl = xcalloc((size_t)n * c, sizeof(double));
	tr->first_child = xcalloc(n, sizeof(uint32_t));
	tr->next_sibling = xcalloc(n, sizeof(uint32_t));
	tr->depth = xcalloc(n, sizeof(uint32_t));
	for (uint32_t i = 0; i < t->nvalues; i++) {
		const struct mfile_value *v = &t->values[i];
		tr->excl[(size_t)v->node * c + v->column] += v->value;
	}
	memcpy(tr->incl, tr->excl, (size_t)n * c * sizeof(double));
	for (uint32_t i = n; i-- > 1;)	/* parents precede children */
		for (uint32_t k = 0; k < c; k++)
			tr->incl[(size_t)t->nodes[i].parent * c + k] += tr->incl[(size_t)i * c + k];
	for (uint32_t i = 0; i < n; i++)
		tr->first_child[i] = tr->next_sibling[i] = MFILE_NONE;
	for (uint32_t i = n; i-- > 1;) {
		uint32_t p = t->nodes[i].parent;
		tr->next_sibling[i] = tr->first_child[p];
		tr->first_child[p] = i;
		tr->depth[i] = 0;
	}
	for (uint32_t i = 1; i < n; i++)
		tr->depth[i] = tr->depth[t->nodes[i].parent] + 1;
}

static void tree_free(struct tree *tr)
{
	free(tr->excl);
	free(tr->incl);
	free(tr->first_child);
	free(tr->next_sibling);
	free(tr->depth);
}

/* One line on the thread's trace: how much, over how long, in how many
 * bytes. */
static void dump_trace_summary(const struct mfile_thread *t)
{
	const struct mfile_trace *tr = &t->trace;
	if (!tr->records && !tr->dropped)
		return;
	struct mfile_trace_iter it;
	struct mfile_trace_record r = { 0 };
	uint64_t first = 0, idle = 0;
	mfile_trace_begin(t, &it);
	for (uint64_t i = 0; mfile_trace_next(&it, &r) > 0; i++) {
		if (i == 0)
			first = r.time_ns;
		idle += mfile_trace_is_idle(r.state);
	}
	printf("trace       %" PRIu64 " samples (%" PRIu64 " idle) over %.3f s in %" PRIu64
	       " bytes, %.1f a sample", tr->records, idle,
	       tr->records ? (double)(r.time_ns - first) / 1e9 : 0.0, tr->nbytes,
	       tr->records ? (double)tr->nbytes / (double)tr->records : 0.0);
	if (tr->dropped)
		printf("; %" PRIu64 " samples past its size limit not traced", tr->dropped);
	printf("\n");
}

/* --trace: every traced sample, its time in CLOCK_MONOTONIC ns (one
 * clock for all threads and processes of a machine). */
static void dump_trace_tsv(const struct mfile_thread *t)
{
	struct mfile_trace_iter it;
	struct mfile_trace_record r;
	printf("time_ns\tevent\tstate\tnode\tvalue\tworking\tidle\n");
	mfile_trace_begin(t, &it);
	while (mfile_trace_next(&it, &r) > 0) {
		int idle = mfile_trace_is_idle(r.state);
		printf("%" PRIu64 "\t%u\t%s\t", r.time_ns, r.event, mfile_trace_state_name(r.state));
		if (idle)
			printf("-");
		else
			printf("%u", r.node);
		printf("\t%" PRIu64 "\t%u\t%u\n", r.value, r.working, r.idle);
	}
}

static void dump_thread_header(const struct mfile *mf)
{
	const struct mfile_thread *t = &mf->u.thread;
	printf("thread      seq %u, tid %u, pid %u, generation %u, name \"", t->seq, t->tid,
	       t->pid, t->generation);
	put_safe(stdout, t->name);
	printf("\"\nprocess     nonce %016" PRIx64 "\nstarted     ", t->process_nonce);
	put_time(t->start_realtime_ns);
	int snap = mf->snapshot_ns != 0;
	printf(snap ? "\nsnapshot    " : "\nended       ");
	put_time(t->end_realtime_ns);
	printf(snap ? " (%.3f s), still running%s\n" : " (%.3f s), by %s\n",
	       t->end_realtime_ns > t->start_realtime_ns
	       ? (double)(t->end_realtime_ns - t->start_realtime_ns) / 1e9 : 0,
	       snap ? "" : mfile_end_reason_name(t->end_reason));
	if (t->creator_seq != MFILE_NONE)
		printf("created at  context %u of thread %u\n", t->creator_node, t->creator_seq);
	printf("counters   ");
	for (uint32_t i = 0; i < t->ncounters; i++) {
		printf(" ");
		put_safe(stdout, t->counters[i].name);
		printf("=%" PRIu64, t->counters[i].value);
	}
	printf("\n");
	dump_trace_summary(t);
	/* Where it blocked: the kind by number (unwind-plugins/plugin.h). */
	for (uint32_t i = 0; i < t->nwaits; i++) {
		const struct mfile_wait *w = &t->waits[i];
		printf("wait        kind %u, ", w->kind);
		put_safe(stdout, t->columns[w->cause].metric);
		printf(", site %u:%#" PRIx64 ", object %#" PRIx64 ": %" PRIu64 " waits, %.6f s, "
		       "longest %.6f s\n", w->module, w->site, w->object, w->count,
		       (double)w->total_ns / 1e9, (double)w->max_ns / 1e9);
	}
	for (uint32_t i = 0; i < t->nlnames; i++) {
		const struct mfile_lname *l = &t->lnames[i];
		printf("logical     namespace %u, ident %#" PRIx64 " (line in %u bits): ", l->ns,
		       l->ident, l->line_bits);
		put_safe(stdout, l->name);
		printf(" in ");
		put_safe(stdout, l->file);
		printf(":%u\n", l->first_line);
	}
	/* Its tasks by the call that created them. */
	for (uint32_t i = 0; i < t->ntasks; i++) {
		const struct mfile_task *k = &t->tasks[i];
		printf("tasks       site %u:%#" PRIx64 ": %" PRIu64 " tasks, %.6f s running, "
		       "%.6f s waited before them\n", k->module, k->site, k->count,
		       (double)k->size_ns / 1e9, (double)k->wait_ns / 1e9);
	}
}

static const char *event_name(const struct mfile_process *p, uint32_t ev, char *buf, size_t size)
{
	if (p && ev < p->nevents)
		return p->events[ev].name;
	snprintf(buf, size, "event%u", ev);
	return buf;
}

static void dump_tree_text(const struct tree *tr, const struct namer *nm)
{
	const struct mfile_thread *t = tr->t;
	uint32_t c = t->ncolumns ? t->ncolumns : 1;
	char ebuf[32];

	/* Show the samples and work of the first event. */
	uint32_t col_samples = 0, col_work = 0;
	for (uint32_t k = 0; k < t->ncolumns; k++) {
		if (t->columns[k].event != 0)
			continue;
		if (strcmp(t->columns[k].metric, "samples") == 0)
			col_samples = k;
		if (strcmp(t->columns[k].metric, "work") == 0)
			col_work = k;
	}
	printf("\ncalling-context tree, %u nodes; %s samples inclusive/exclusive, work inclusive\n\n",
	       t->nnodes, t->ncolumns ? event_name(nm->proc, t->columns[0].event, ebuf, sizeof ebuf) : "-");
	/* Depth-first, children in id order. */
	uint32_t *stack = xcalloc(t->nnodes + 1, sizeof *stack);
	uint32_t sp = 0;
	stack[sp++] = 0;
	while (sp) {
		uint32_t id = stack[--sp];
		char label[512];
		node_label(nm, &t->nodes[id], label, sizeof label);
		printf("%8.0f %8.0f %12.6g  %*s", tr->incl[(size_t)id * c + col_samples],
		       tr->excl[(size_t)id * c + col_samples], tr->incl[(size_t)id * c + col_work],
		       (int)(2 * (tr->depth[id] > 60 ? 60 : tr->depth[id])), "");
		put_safe(stdout, label);
		printf("\n");
		/* push children in reverse so the lowest id prints first */
		uint32_t kids = 0;
		for (uint32_t ch = tr->first_child[id]; ch != MFILE_NONE; ch = tr->next_sibling[ch])
			stack[sp + kids++] = ch;
		for (uint32_t a = 0, b = kids ? kids - 1 : 0; a < b; a++, b--) {
			uint32_t x = stack[sp + a];
			stack[sp + a] = stack[sp + b];
			stack[sp + b] = x;
		}
		sp += kids;
	}
	free(stack);
}

static void dump_tree_tsv(const struct tree *tr, const struct namer *nm)
{
	const struct mfile_thread *t = tr->t;
	char ebuf[32];

	printf("node\tparent\tdepth\tkind\tflags\tmodule\tkey\tfunction\tmodule_path");
	for (uint32_t k = 0; k < t->ncolumns; k++)
		printf("\t%s:%s", event_name(nm->proc, t->columns[k].event, ebuf, sizeof ebuf),
		       t->columns[k].metric);
	printf("\n");
	for (uint32_t id = 0; id < t->nnodes; id++) {
		const struct mfile_node *n = &t->nodes[id];
		const char *fn = node_function(nm, n);
		size_t mi;
		const struct mfile_module *mod = n->module ? find_module(nm, n->module, &mi) : NULL;
		const char *mp = mod ? mod->path : NULL;
		printf("%u\t%d\t%u\t%s\t%u\t%u\t%#" PRIx64 "\t", id,
		       n->parent == MFILE_NONE ? -1 : (int)n->parent, tr->depth[id],
		       mfile_node_kind_name(n->kind), n->flags, n->module, n->key);
		put_safe(stdout, fn ? fn : "-");
		printf("\t");
		put_safe(stdout, mp ? mp : "-");
		for (uint32_t k = 0; k < t->ncolumns; k++)
			printf("\t%.17g", tr->excl[(size_t)id * t->ncolumns + k]);
		printf("\n");
	}
}

struct flat_row {
	char *name;
	double *v;
};

static int by_first_value(const void *a, const void *b)
{
	const struct flat_row *x = a, *y = b;
	return x->v[0] < y->v[0] ? 1 : x->v[0] > y->v[0] ? -1 : strcmp(x->name, y->name);
}

static void dump_flat(const struct tree *tr, const struct namer *nm)
{
	const struct mfile_thread *t = tr->t;
	uint32_t c = t->ncolumns;
	uint32_t nrows = 0;
	char ebuf[32];

	if (!c)
		return;
	struct flat_row *rows = xcalloc(t->nnodes + 1, sizeof *rows);
	for (uint32_t id = 0; id < t->nnodes; id++) {
		int any = 0;
		for (uint32_t k = 0; k < c; k++)
			any |= tr->excl[(size_t)id * c + k] != 0;
		if (!any)
			continue;
		char label[512];
		const char *fn = node_function(nm, &t->nodes[id]);
		if (fn)
			snprintf(label, sizeof label, "%s", fn);
		else
			node_label(nm, &t->nodes[id], label, sizeof label);
		uint32_t r = 0;
		while (r < nrows && strcmp(rows[r].name, label) != 0)
			r++;
		if (r == nrows) {
			rows[r].name = xstrdup(label);
			rows[r].v = xcalloc(c, sizeof(double));
			nrows++;
		}
		for (uint32_t k = 0; k < c; k++)
			rows[r].v[k] += tr->excl[(size_t)id * c + k];
	}
	qsort(rows, nrows, sizeof *rows, by_first_value);
	for (uint32_t k = 0; k < c; k++)
		printf("%s:%s\t", event_name(nm->proc, t->columns[k].event, ebuf, sizeof ebuf),
		       t->columns[k].metric);
	printf("function\n");
	for (uint32_t r = 0; r < nrows; r++) {
		for (uint32_t k = 0; k < c; k++)
			printf("%.17g\t", rows[r].v[k]);
		put_safe(stdout, rows[r].name);
		printf("\n");
		free(rows[r].name);
		free(rows[r].v);
	}
	free(rows);
}

/* Names the frames of the thread file at PATH whose process has NONCE,
 * unless RAW; without a process file beside it, frames stay unnamed. */
static void namer_open(struct namer *nm, const char *path, uint64_t nonce, int raw)
{
	memset(nm, 0, sizeof *nm);
	nm->process_file = find_process(path, nonce, &nm->dir);
	if (!nm->process_file)
		return;
	nm->proc = &nm->process_file->u.process;
	if (raw)
		return;
	nm->sym = symbolizer_new();
	nm->module = xcalloc(nm->proc->nmodules + 1, sizeof *nm->module);
	for (uint32_t i = 0; i < nm->proc->nmodules; i++) {
		const struct mfile_module *m = &nm->proc->modules[i];
		/* The vdso's saved copy is in the measurement directory. */
		char *p = (m->flags & MFILE_MOD_VDSO) ? xasprintf("%s/%s", nm->dir, m->path)
						      : xstrdup(m->path);
		nm->module[i] = symbolizer_module(nm->sym, p, m->build_id, m->build_id_len, NULL);
		free(p);
	}
}

static void namer_close(struct namer *nm)
{
	symbolizer_free(nm->sym);
	free(nm->module);
	mfile_free(nm->process_file);
	free(nm->dir);
}

/* What `culprit dump` was asked to do. */
struct dump_options {
	int raw;			/* --raw: module+offset, no names */
	enum format format;		/* --tsv, --flat, --trace, or text */
	int help;			/* -h: print the usage, do nothing else */
	const char *path;		/* the measurement file */
};

/* Reads the command line into *O.  Returns EXIT_OK, or EXIT_USAGE after
 * the usage.  Stops at -h, like the usage it asks for. */
static int parse_dump_options(int argc, char **argv, struct dump_options *o)
{
	static const struct option opts[] = {
		{ "raw", no_argument, NULL, 'r' },
		{ "tsv", no_argument, NULL, 't' },
		{ "flat", no_argument, NULL, 'f' },
		{ "trace", no_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof *o);
	o->format = FMT_TEXT;
	argv[0] = "culprit dump";	/* getopt's messages start with it */
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'r': o->raw = 1; break;
		case 't': o->format = FMT_TSV; break;
		case 'f': o->format = FMT_FLAT; break;
		case 'T': o->format = FMT_TRACE; break;
		case 'h': o->help = 1; return EXIT_OK;
		default: fputs(dump_usage, stderr); return EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
		fputs(dump_usage, stderr);
		return EXIT_USAGE;
	}
	o->path = argv[optind];
	return EXIT_OK;
}

static int dump_process_file(const struct dump_options *o, const struct mfile *mf)
{
	if (o->format != FMT_TEXT)
		return msg_usage("dump", "%s is a process file; --tsv, --flat and --trace are for "
				 "thread files", o->path);
	dump_sections(o->path, mf);
	dump_process(mf);
	return EXIT_OK;
}

static int dump_thread_file(const struct dump_options *o, const struct mfile *mf)
{
	const struct mfile_thread *t = &mf->u.thread;
	struct namer nm;
	struct tree tr;

	namer_open(&nm, o->path, t->process_nonce, o->raw);
	nm.thread = t;
	tree_build(&tr, t);
	if (o->format == FMT_TEXT) {
		dump_sections(o->path, mf);
		dump_thread_header(mf);
		if (!nm.proc)
			printf("note        no process file with this nonce beside it: frames are not named\n");
		dump_tree_text(&tr, &nm);
	} else if (o->format == FMT_TSV) {
		dump_tree_tsv(&tr, &nm);
	} else if (o->format == FMT_TRACE) {
		dump_trace_tsv(t);
	} else {
		dump_flat(&tr, &nm);
	}
	tree_free(&tr);
	namer_close(&nm);
	return EXIT_OK;
}

int cmd_dump(int argc, char **argv)
{
	struct dump_options o;
	struct mfile *mf;
	struct mfile_error err;

	int status = parse_dump_options(argc, argv, &o);
	if (status != EXIT_OK)
		return status;
	if (o.help) {
		fputs(dump_usage, stdout);
		return EXIT_OK;
	}
	if (mfile_load(o.path, &mf, &err) < 0) {
		make_safe(err.msg);
		msg_error("%s: %s", o.path, err.msg);
		return EXIT_FAIL;
	}
	status = mf->kind == MFILE_PROCESS ? dump_process_file(&o, mf) : dump_thread_file(&o, mf);
	mfile_free(mf);
	return status;
}
