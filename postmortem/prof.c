/* prof.c - `culprit prof`: measurement directories to an SQLite database.
 *
 *   1. load every file, in parallel (experiment.c)
 *   2. name every sampled address, one module per worker (symbolize.c)
 *   3. merge the threads one by one into the experiment's tree, writing
 *      each thread's values as it goes, and classifying overhead where
 *      samples landed (merge.c, overhead.c)
 *   4. write the tree, its statistics, the procedure totals and the
 *      diagnoses (diagnose.c)
 *
 * The database is written to a temporary file beside the output and
 * renamed into place only when complete, so an interrupted run leaves no
 * half-written database behind. */
#define _GNU_SOURCE
#include "config.h"
#include "commands.h"
#include "database.h"
#include "diagnose.h"
#include "experiment.h"
#include "merge.h"
#include "mfile_format.h"
#include "overhead.h"
#include "quality.h"
#include "symbolize.h"
#include "tools.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>


static const char prof_usage[] =
	"usage: culprit prof [-o FILE] [-j N] [--force] [--strict] [-q] DIR...\n"
	"\n"
	"Turns the measurement directories of culprit runs into one SQLite database\n"
	"(default: the first DIR's name with .db added).  Query it with `culprit report`\n"
	"or any SQLite client; doc/schema.md describes it.\n"
	"\n"
	"  -o, --output=FILE   the database to write\n"
	"  -j, --jobs=N        threads to read and analyse with (default: all cores)\n"
	"      --force         replace FILE if it exists\n"
	"      --strict        stop at the first damaged or orphaned measurement file\n"
	"                      (default: warn and go on without it)\n"
	"  -q, --quiet         do not print the summary line\n"
	"      --overhead-rules=FILE  overhead rules to try before the user's\n"
	"                      ($XDG_CONFIG_HOME/culprit/*.rules) and the built-in\n"
	"                      ones; repeat for several (see culprit-prof(1))\n"
	"      --no-default-rules  do not use the built-in overhead rules\n"
	"      --show-rules    print the overhead rules in the order tried, and exit\n"
	"      --diagnose-idleness=P   a context's idleness is high at P% of its\n"
	"                      effort (default 20)\n"
	"      --diagnose-overhead=P   its overhead is high at P% (default 20)\n"
	"      --diagnose-share=P      diagnose contexts whose idleness + overhead is\n"
	"                      at least P% of all effort (default 2)\n"
	"  -h, --help          show this help\n";

/* Binds V without a copy: every string bound here outlives the statement's
 * next step (interned strings, the experiment's records). */
static void bind_text(sqlite3_stmt *s, int i, const char *v)
{
	if (v)
		sqlite3_bind_text(s, i, v, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(s, i);
}

static void bind_real(sqlite3_stmt *s, int i, double v)
{
	sqlite3_bind_double(s, i, v);
}

/* What a metric's percentages are of: the total effort of its event, or
 * for samples, all samples.  0 when there is none. */
static double percent_base(const struct ctree *t, uint32_t metric)
{
	const struct ctx_metric *m = &t->metric[metric];
	if (strcmp(m->name, "samples") == 0)
		return m->total;
	uint32_t effort = t->derived[m->event].effort;
	return effort == CTX_NONE ? 0 : t->metric[effort].total;
}

static void bind_percent(sqlite3_stmt *s, int i, double v, double base)
{
	if (base > 0)
		sqlite3_bind_double(s, i, 100 * v / base);
	else
		sqlite3_bind_null(s, i);
}

static double seconds(uint64_t ns)
{
	return (double)ns / 1e9;
}

/* A thread's value at a context, kept until all threads are merged so
 * that the rows go to SQLite in key order: inserting them thread by
 * thread scattered them over the whole table, several times slower. */
struct thread_row {
	uint32_t ctx, metric, thread;
	double incl, excl;
};

struct writer {
	sqlite3 *db;
	const struct ctree *tree;
	struct thread_row *rows;
	size_t nrows, caprows;
	sqlite3_stmt *proc;	/* procedure_metrics */
};

static void thread_value(void *arg, const struct exp_thread *th, uint32_t ctx, uint32_t metric,
			 double incl, double excl)
{
	struct writer *w = arg;
	grow_array(&w->rows, &w->caprows, w->nrows + 1, sizeof *w->rows);
	w->rows[w->nrows++] = (struct thread_row){ ctx, metric, th->id, incl, excl };
}

static int by_key(const void *a, const void *b)
{
	const struct thread_row *x = a, *y = b;
	if (x->ctx != y->ctx)
		return x->ctx < y->ctx ? -1 : 1;
	if (x->metric != y->metric)
		return x->metric < y->metric ? -1 : 1;
	return x->thread < y->thread ? -1 : x->thread > y->thread;
}

static void write_thread_rows(struct writer *w)
{
	const struct ctree *t = w->tree;
	sqlite3_stmt *s = db_prepare(w->db, "INSERT INTO context_thread_metrics VALUES (?,?,?,?,?,?)");
	qsort(w->rows, w->nrows, sizeof *w->rows, by_key);
	for (size_t i = 0; i < w->nrows; i++) {
		const struct thread_row *r = &w->rows[i];
		const struct ctx_metric *m = &t->metric[r->metric];
		sqlite3_bind_int64(s, 1, (sqlite3_int64)r->ctx + 1);
		sqlite3_bind_int64(s, 2, r->thread);
		bind_text(s, 3, t->event[m->event].name);
		bind_text(s, 4, m->name);
		bind_real(s, 5, r->incl);
		bind_real(s, 6, r->excl);
		db_step_reset(w->db, s);
	}
	sqlite3_finalize(s);
	free(w->rows);
	w->rows = NULL;
	w->nrows = w->caprows = 0;
}

static void procedure_value(void *arg, uint32_t procedure, uint32_t module, uint32_t file,
			    uint32_t metric, double incl, double excl)
{
	struct writer *w = arg;
	const struct ctree *t = w->tree;
	const struct ctx_metric *m = &t->metric[metric];
	sqlite3_stmt *s = w->proc;
	bind_text(s, 1, strtab_get(t->str, procedure));
	bind_text(s, 2, strtab_get(t->str, module));
	bind_text(s, 3, strtab_get(t->str, file));
	bind_text(s, 4, t->event[m->event].name);
	bind_text(s, 5, m->name);
	bind_real(s, 6, incl);
	bind_real(s, 7, excl);
	double base = percent_base(t, metric);
	bind_percent(s, 8, incl, base);
	bind_percent(s, 9, excl, base);
	db_step_reset(w->db, s);
}

static void write_notes(sqlite3 *db, const struct mfile *mf, uint32_t process, uint32_t thread)
{
	sqlite3_stmt *s = db_prepare(db, "INSERT INTO notes VALUES (?,?,?)");
	for (uint32_t i = 0; i < mf->nnotes; i++) {
		sqlite3_bind_int64(s, 1, process);
		if (thread)
			sqlite3_bind_int64(s, 2, thread);
		else
			sqlite3_bind_null(s, 2);
		bind_text(s, 3, mf->notes[i]);
		db_step_reset(db, s);
	}
	sqlite3_finalize(s);
}

static void write_identity(sqlite3 *db, const struct experiment *e)
{
	sqlite3_stmt *s = db_prepare(db,
		"INSERT INTO processes (id, pid, ppid, generation, mpi_rank, host, executable, "
		"command, cwd, start_time, end_time, end_reason, end_status, experiment, "
		"measurement_file) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
	for (size_t i = 0; i < e->nproc; i++) {
		const struct exp_process *ep = e->proc[i];
		const struct mfile_process *p = ep->p;
		size_t len = 0;
		for (uint32_t a = 0; a < p->argc; a++)
			len += strlen(p->argv[a]) + 1;
		char *cmd = xcalloc(len + 1, 1);
		for (uint32_t a = 0; a < p->argc; a++) {
			if (a)
				strcat(cmd, " ");
			strcat(cmd, p->argv[a]);
		}
		sqlite3_bind_int64(s, 1, ep->id);
		sqlite3_bind_int64(s, 2, p->pid);
		sqlite3_bind_int64(s, 3, p->ppid);
		sqlite3_bind_int64(s, 4, p->generation);
		if (p->mpi_rank >= 0)
			sqlite3_bind_int64(s, 5, p->mpi_rank);
		else
			sqlite3_bind_null(s, 5);
		bind_text(s, 6, p->host);
		bind_text(s, 7, p->exe);
		bind_text(s, 8, cmd);
		bind_text(s, 9, p->cwd);
		bind_real(s, 10, seconds(p->start_realtime_ns));
		bind_real(s, 11, seconds(p->end_realtime_ns));
		bind_text(s, 12, mfile_end_reason_name(p->end_reason));
		if (p->end_status >= 0)
			sqlite3_bind_int64(s, 13, p->end_status);
		else
			sqlite3_bind_null(s, 13);
		bind_text(s, 14, p->experiment);
		bind_text(s, 15, ep->path);
		db_step_reset(db, s);
		write_notes(db, ep->mf, ep->id, 0);
		free(cmd);
	}
	sqlite3_finalize(s);

	s = db_prepare(db, "INSERT INTO threads (id, process_id, pid, tid, seq, mpi_rank, name, "
			   "start_time, end_time, end_reason, measurement_file) "
			   "VALUES (?,?,?,?,?,?,?,?,?,?,?)");
	sqlite3_stmt *c = db_prepare(db, "INSERT INTO thread_counters VALUES (?,?,?)");
	for (size_t i = 0; i < e->nthread; i++) {
		const struct exp_thread *t = e->thread[i];
		const struct mfile_process *p = t->proc->p;
		sqlite3_bind_int64(s, 1, t->id);
		sqlite3_bind_int64(s, 2, t->proc->id);
		sqlite3_bind_int64(s, 3, p->pid);
		sqlite3_bind_int64(s, 4, t->tid);
		sqlite3_bind_int64(s, 5, t->seq);
		if (p->mpi_rank >= 0)
			sqlite3_bind_int64(s, 6, p->mpi_rank);
		else
			sqlite3_bind_null(s, 6);
		bind_text(s, 7, t->name);
		bind_real(s, 8, seconds(t->start_ns));
		bind_real(s, 9, seconds(t->end_ns));
		bind_text(s, 10, mfile_end_reason_name(t->end_reason));
		bind_text(s, 11, t->path);
		db_step_reset(db, s);
		write_notes(db, t->mf, t->proc->id, t->id);
		for (uint32_t k = 0; k < t->t->ncounters; k++) {
			sqlite3_bind_int64(c, 1, t->id);
			bind_text(c, 2, t->t->counters[k].name);
			sqlite3_bind_int64(c, 3, (sqlite3_int64)t->t->counters[k].value);
			db_step_reset(db, c);
		}
	}
	sqlite3_finalize(s);
	sqlite3_finalize(c);
}

static const char *event_description(const char *name)
{
	if (strcmp(name, "cputime") == 0)
		return "CPU time of each thread";
	if (strcmp(name, "realtime") == 0)
		return "wall-clock time of each thread, blocked or not";
	return "a perf_event counter (libpfm4 name)";
}

static const char *metric_description(const char *name)
{
	if (strcmp(name, "samples") == 0)
		return "samples recorded";
	if (strcmp(name, "work") == 0)
		return "the event's measured value in threads that were not idle workers";
	if (strcmp(name, "idleness") == 0)
		return "work times idle workers over working workers: idleness blamed on the code "
		       "that ran while other workers idled";
	if (strcmp(name, "idleness:serial") == 0)
		return "idleness while workers had no parallel work: serial code ran";
	if (strcmp(name, "idleness:barrier") == 0)
		return "idleness while workers waited at a barrier for the rest: load imbalance";
	if (strcmp(name, "idleness:lock") == 0)
		return "idleness while workers waited for a lock or critical section";
	if (strcmp(name, "idleness:taskwait") == 0)
		return "idleness while workers waited for child tasks to finish";
	if (strcmp(name, "overhead") == 0)
		return "work in the parallel runtime rather than the program: instructions tagged "
		       "or matched by an overhead rule";
	if (strcmp(name, "useful_work") == 0)
		return "work minus overhead: the program's own computation";
	if (strcmp(name, "effort") == 0)
		return "work plus idleness: everything the workers spent, working or not";
	if (strcmp(name, "measurement") == 0)
		return "the event's value in samples taken in culprit's own work (its callbacks "
		       "and captures), where it was paid: the measurement's cost, not in work";
	return "";
}

static void write_events(sqlite3 *db, const struct ctree *t)
{
	sqlite3_stmt *s = db_prepare(db, "INSERT INTO events VALUES (?,?,?,?,?,?)");
	for (size_t i = 0; i < t->nevent; i++) {
		const struct ctx_event *ev = &t->event[i];
		bind_text(s, 1, ev->name);
		bind_text(s, 2, ev->unit);
		bind_text(s, 3, mfile_source_name(ev->source));
		if (ev->flags & MFILE_EVENT_FREQ) {
			sqlite3_bind_null(s, 4);
			bind_real(s, 5, (double)ev->period);
		} else {
			bind_real(s, 4, (double)ev->period * ev->scale);
			if (ev->scale != 1)
				bind_real(s, 5, 1.0 / ((double)ev->period * ev->scale));
			else
				sqlite3_bind_null(s, 5);
		}
		bind_text(s, 6, event_description(ev->name));
		db_step_reset(db, s);
	}
	sqlite3_finalize(s);
	s = db_prepare(db, "INSERT INTO metrics VALUES (?,?,?,?,?,?)");
	for (size_t i = 0; i < t->nmetric; i++) {
		const struct ctx_metric *m = &t->metric[i];
		char *described = NULL;
		bind_text(s, 1, t->event[m->event].name);
		bind_text(s, 2, m->name);
		bind_text(s, 3, m->unit);
		if (strncmp(m->name, "overhead:", 9) == 0)
			described = xasprintf("work in the parallel runtime's code classified as %s "
					      "overhead (see contexts.overhead_by)", m->name + 9);
		bind_text(s, 4, described ? described : metric_description(m->name));
		bind_real(s, 5, m->total);
		bind_percent(s, 6, m->total, percent_base(t, (uint32_t)i));
		db_step_reset(db, s);
		free(described);
	}
	sqlite3_finalize(s);
}

static void write_tree(sqlite3 *db, const struct ctree *t)
{
	sqlite3_stmt *c = db_prepare(db, "INSERT INTO contexts VALUES (?,?,?,?,?,?,?,?,?,?)");
	sqlite3_stmt *m = db_prepare(db, "INSERT INTO context_metrics VALUES "
					 "(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
	double *base = xcalloc(t->nmetric + 1, sizeof *base);
	for (size_t k = 0; k < t->nmetric; k++)
		base[k] = percent_base(t, (uint32_t)k);
	double n = t->nthreads ? (double)t->nthreads : 1;

	/* One table at a time: each insert then appends to one B-tree. */
	for (size_t i = 0; i < t->n; i++) {
		const struct ctx_node *node = &t->node[i];
		sqlite3_bind_int64(c, 1, (sqlite3_int64)i + 1);
		if (node->parent == CTX_NONE)
			sqlite3_bind_null(c, 2);
		else
			sqlite3_bind_int64(c, 2, (sqlite3_int64)node->parent + 1);
		sqlite3_bind_int64(c, 3, node->depth);
		bind_text(c, 4, ctx_kind_name[node->kind]);
		bind_text(c, 5, strtab_get(t->str, node->procedure));
		bind_text(c, 6, strtab_get(t->str, node->module));
		bind_text(c, 7, strtab_get(t->str, node->file));
		if (node->line)
			sqlite3_bind_int64(c, 8, node->line);
		else
			sqlite3_bind_null(c, 8);
		const struct ctx_class *cls = ctree_class(t, (uint32_t)i);
		bind_text(c, 9, cls ? strtab_get(t->str, cls->type) : NULL);
		bind_text(c, 10, cls ? strtab_get(t->str, cls->by) : NULL);
		db_step_reset(db, c);
	}
	progress_update("context values");
	for (size_t i = 0; i < t->n; i++) {
		for (size_t k = 0; k < t->nmetric; k++) {
			const struct ctx_stat *s = ctree_stat(t, (uint32_t)i, (uint32_t)k);
			if (s->incl == 0 && s->excl == 0)
				continue;
			double im = s->incl / n, em = s->excl / n;
			double iv = s->incl_sq / n - im * im, ev = s->excl_sq / n - em * em;
			sqlite3_bind_int64(m, 1, (sqlite3_int64)i + 1);
			bind_text(m, 2, t->event[t->metric[k].event].name);
			bind_text(m, 3, t->metric[k].name);
			bind_real(m, 4, s->incl);
			bind_real(m, 5, s->excl);
			bind_real(m, 6, im);
			bind_real(m, 7, s->incl_n < t->nthreads ? 0 : s->incl_min);
			bind_real(m, 8, s->incl_max);
			bind_real(m, 9, sqrt(iv > 0 ? iv : 0));
			bind_real(m, 10, em);
			bind_real(m, 11, s->excl_n < t->nthreads ? 0 : s->excl_min);
			bind_real(m, 12, s->excl_max);
			bind_real(m, 13, sqrt(ev > 0 ? ev : 0));
			bind_percent(m, 14, s->incl, base[k]);
			bind_percent(m, 15, s->excl, base[k]);
			db_step_reset(db, m);
		}
	}
	free(base);
	sqlite3_finalize(c);
	sqlite3_finalize(m);
}

static void write_modules(sqlite3 *db, struct symbolizer *sym)
{
	sqlite3_stmt *s = db_prepare(db, "INSERT INTO modules VALUES (?,?,?,?,?,?)");
	for (size_t i = 0; i < symbolizer_count(sym); i++) {
		struct sym_module *m = symbolizer_at(sym, i);
		sqlite3_bind_int64(s, 1, (sqlite3_int64)i + 1);
		/* The name contexts.module uses: [vdso] for the kernel's. */
		bind_text(s, 2, sym_module_name(m));
		char id[129];
		sym_module_build_id(m, id);
		bind_text(s, 3, id[0] ? id : NULL);
		sqlite3_bind_int64(s, 4, sym_module_has_lines(m));
		bind_text(s, 5, sym_module_used(m) ? sym_module_problem(m) : NULL);
		bind_text(s, 6, sym_module_path(m));
		db_step_reset(db, s);
	}
	sqlite3_finalize(s);
}

static void write_info(sqlite3 *db, char *const *dirs, int ndirs)
{
	sqlite3_stmt *s = db_prepare(db, "INSERT INTO culprit_info VALUES (?,?)");
	char when[64];
	time_t t = time(NULL);
	struct tm tm;
	strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%S%z", localtime_r(&t, &tm));
	size_t len = 0;
	for (int d = 0; d < ndirs; d++)
		len += strlen(dirs[d]) + 1;
	char *all = xcalloc(len + 1, 1);
	for (int d = 0; d < ndirs; d++) {
		if (d)
			strcat(all, " ");
		strcat(all, dirs[d]);
	}
	const char *kv[][2] = {
		{ "format", "culprit" },
		{ "culprit_version", PACKAGE_VERSION },
		{ "created", when },
		{ "measurements", all },
	};
	for (size_t i = 0; i < sizeof kv / sizeof kv[0]; i++) {
		bind_text(s, 1, kv[i][0]);
		bind_text(s, 2, kv[i][1]);
		db_step_reset(db, s);
	}
	char v[16];
	snprintf(v, sizeof v, "%d", DB_SCHEMA_VERSION);
	bind_text(s, 1, "schema_version");
	bind_text(s, 2, v);
	db_step_reset(db, s);
	sqlite3_finalize(s);
	free(all);
}

static void resolve_module(void *arg, size_t i)
{
	sym_resolve_wanted(symbolizer_at(arg, i));
}

/* ---- overhead types and rules ------------------------------------------ */

struct type_set {
	char **name;
	size_t n, cap;
};

static void add_type(struct type_set *ts, const char *type)
{
	if (strcmp(type, "-") == 0 || strcmp(type, "^") == 0)
		return;
	for (size_t i = 0; i < ts->n; i++)
		if (strcmp(ts->name[i], type) == 0)
			return;
	grow_array(&ts->name, &ts->cap, ts->n + 1, sizeof *ts->name);
	ts->name[ts->n++] = xstrdup(type);
}

static void add_tag_type(void *arg, const char *file)
{
	char type[64];
	if (ovh_file_tag(file, type, sizeof type))
		add_type(arg, type);
}

static int by_string(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The overhead types: those of the rules and of the tags in the sampled
 * code's line tables, sorted. */
static void collect_types(struct type_set *ts, const struct ovh_rules *rules,
			  const struct symbolizer *sym)
{
	for (size_t i = 0; i < rules->n; i++)
		add_type(ts, rules->rule[i].type);
	for (size_t i = 0; i < symbolizer_count(sym); i++)
		sym_module_files(symbolizer_at(sym, i), add_tag_type, ts);
	if (ts->n)
		qsort(ts->name, ts->n, sizeof *ts->name, by_string);
}

static void write_rules(sqlite3 *db, const struct ovh_rules *rules)
{
	sqlite3_stmt *s = db_prepare(db, "INSERT INTO overhead_rules VALUES (?,?,?,?,?)");
	for (size_t i = 0; i < rules->n; i++) {
		const struct ovh_rule *r = &rules->rule[i];
		sqlite3_bind_int64(s, 1, (sqlite3_int64)i + 1);
		bind_text(s, 2, ovh_field_name[r->field]);
		bind_text(s, 3, r->pattern);
		bind_text(s, 4, r->type);
		bind_text(s, 5, r->origin);
		db_step_reset(db, s);
	}
	sqlite3_finalize(s);
}

static void write_thresholds(sqlite3 *db, const struct diag_thresholds *th)
{
	sqlite3_stmt *s = db_prepare(db, "INSERT INTO culprit_info VALUES (?,?)");
	const char *key[] = { "diagnose_idleness_percent", "diagnose_overhead_percent",
			      "diagnose_share_percent" };
	double v[] = { th->idleness, th->overhead, th->share };
	for (int i = 0; i < 3; i++) {
		char buf[32];
		snprintf(buf, sizeof buf, "%g", 100 * v[i]);
		bind_text(s, 1, key[i]);
		bind_text(s, 2, buf);
		db_step_reset(db, s);
	}
	sqlite3_finalize(s);
}

/* A percentage option's value as a fraction; -1 if it is not one. */
static double percent_arg(const char *arg)
{
	char *end;
	double v = strtod(arg, &end);
	if (end == arg || (*end && strcmp(end, "%") != 0) || !(v > 0) || v > 100)
		return -1;
	return v / 100;
}

/* DIR, without trailing slashes, plus ".db". */
static char *default_output(const char *dir)
{
	char *base = xstrdup(dir);
	size_t n = strlen(base);
	while (n > 1 && base[n - 1] == '/')
		base[--n] = 0;
	char *out = xasprintf("%s.db", base);
	free(base);
	return out;
}

int cmd_prof(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "force", no_argument, NULL, 'F' },
		{ "strict", no_argument, NULL, 'S' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "overhead-rules", required_argument, NULL, 'R' },
		{ "no-default-rules", no_argument, NULL, 'N' },
		{ "show-rules", no_argument, NULL, 'W' },
		{ "diagnose-idleness", required_argument, NULL, 'I' },
		{ "diagnose-overhead", required_argument, NULL, 'O' },
		{ "diagnose-share", required_argument, NULL, 'H' },
		{ NULL, 0, NULL, 0 },
	};
	const char *output = NULL;
	int jobs = cpu_count(), force = 0, strict = 0, quiet = 0, c;
	int defaults = 1, show_rules = 0;
	const char *rule_files[64];
	int nrule_files = 0;
	struct diag_thresholds th = { DIAG_IDLENESS_DEFAULT, DIAG_OVERHEAD_DEFAULT,
				      DIAG_SHARE_DEFAULT };
	double *pct;
	char *end;

	argv[0] = "culprit prof";
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:j:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'o': output = optarg; break;
		case 'j':
			jobs = (int)strtol(optarg, &end, 10);
			if (*end || jobs < 1 || jobs > 1024) {
				return msg_usage("prof", "-j needs a number of threads from 1 to 1024");
			}
			break;
		case 'F': force = 1; break;
		case 'S': strict = 1; break;
		case 'q': quiet = 1; break;
		case 'R':
			if (nrule_files == 64) {
				return msg_usage("prof", "at most 64 --overhead-rules files");
			}
			rule_files[nrule_files++] = optarg;
			break;
		case 'N': defaults = 0; break;
		case 'W': show_rules = 1; break;
		case 'I':
		case 'O':
		case 'H':
			pct = c == 'I' ? &th.idleness : c == 'O' ? &th.overhead : &th.share;
			*pct = percent_arg(optarg);
			if (*pct < 0) {
				return msg_usage("prof", "--diagnose-%s needs a percentage above 0 "
						 "and at most 100, like 20 or 20%%, not '%s'",
						 c == 'I' ? "idleness" : c == 'O' ? "overhead" : "share",
						 optarg);
			}
			break;
		case 'h': fputs(prof_usage, stdout); return EXIT_OK;
		default: fputs(prof_usage, stderr); return EXIT_USAGE;
		}
	}
	/* The rules: checked before anything is read. */
	struct ovh_rules rules;
	char rerr[600];
	ovh_rules_init(&rules);
	for (int i = 0; i < nrule_files; i++)
		if (ovh_rules_load(&rules, rule_files[i], rerr, sizeof rerr) < 0) {
			msg_error("%s", rerr);
			ovh_rules_free(&rules);
			return EXIT_FAIL;
		}
	if (ovh_rules_load_user(&rules, rerr, sizeof rerr) < 0) {
		msg_error("%s", rerr);
		ovh_rules_free(&rules);
		return EXIT_FAIL;
	}
	if (defaults && ovh_rules_parse(&rules, "built-in", ovh_builtin_rules, rerr, sizeof rerr) < 0) {
		msg_error("%s", rerr);	/* a bug of ours */
		ovh_rules_free(&rules);
		return EXIT_FAIL;
	}
	if (show_rules) {
		ovh_rules_print(&rules, stdout);
		ovh_rules_free(&rules);
		return EXIT_OK;
	}
	if (optind >= argc) {
		ovh_rules_free(&rules);
		return msg_usage("prof", "no measurement directory given (see culprit prof --help)");
	}
	char *const *dirs = argv + optind;
	int ndirs = argc - optind;
	char *out = output ? xstrdup(output) : default_output(dirs[0]);
	struct stat st;
	if (!force && lstat(out, &st) == 0) {
		msg_error("%s already exists; use --force to replace it, or -o to write another "
			  "file", out);
		free(out);
		ovh_rules_free(&rules);
		return EXIT_FAIL;
	}

	double t0 = now_seconds();
	struct experiment e;
	if (experiment_load(&e, dirs, ndirs, jobs, strict) < 0) {
		free(out);
		ovh_rules_free(&rules);
		return EXIT_FAIL;
	}

	/* Name every sampled address, each module in one worker. */
	struct symbolizer *sym = symbolizer_new();
	experiment_modules(&e, sym);
	ctree_want_addresses(&e);
	progress_start("naming addresses");
	progress_update("%zu modules", symbolizer_count(sym));
	parallel_for(jobs, symbolizer_count(sym), resolve_module, sym);
	progress_end();
	for (size_t i = 0; i < symbolizer_count(sym); i++) {
		struct sym_module *m = symbolizer_at(sym, i);
		const char *why = sym_module_used(m) ? sym_module_problem(m) : NULL;
		if (why)
			msg_warn("%s", why);
	}

	char *tmp = xasprintf("%s.tmp-%d", out, (int)getpid());
	char err[600];
	sqlite3 *db = db_create(tmp, err, sizeof err);
	if (!db) {
		msg_error("%s", err);
		symbolizer_free(sym);
		experiment_free(&e);
		free(tmp);
		free(out);
		ovh_rules_free(&rules);
		return EXIT_FAIL;
	}
	db_exec(db, "BEGIN");
	write_info(db, dirs, ndirs);
	write_identity(db, &e);

	struct type_set types = { NULL, 0, 0 };
	collect_types(&types, &rules, sym);
	struct ctree *tree = ctree_new(&e, &rules, types.name, types.n);
	struct writer w = { db, tree, NULL, 0, 0, NULL };
	sqlite3_stmt *tm = db_prepare(db, "INSERT INTO thread_metrics VALUES (?,?,?,?,?)");
	double *totals = xcalloc(tree->nmetric + 1, sizeof *totals);
	/* experiment_load() numbered threads by process and sequence, so
	 * that creators are merged before the threads they made. */
	struct exp_thread **order = e.thread;
	progress_start("merging");
	for (size_t i = 0; i < e.nthread; i++) {
		progress_update("thread %zu of %zu", i + 1, e.nthread);
		ctree_add_thread(tree, order[i], thread_value, &w, totals);
		for (size_t m = 0; m < tree->nmetric; m++) {
			sqlite3_bind_int64(tm, 1, order[i]->id);
			bind_text(tm, 2, tree->event[tree->metric[m].event].name);
			bind_text(tm, 3, tree->metric[m].name);
			bind_real(tm, 4, totals[m]);
			/* Of the thread's own effort. */
			uint32_t effort = tree->derived[tree->metric[m].event].effort;
			if (effort != CTX_NONE && strcmp(tree->metric[m].name, "samples") != 0)
				bind_percent(tm, 5, totals[m], totals[effort]);
			else
				sqlite3_bind_null(tm, 5);
			db_step_reset(db, tm);
		}
		exp_thread_release(order[i]);
	}
	progress_end();
	free(totals);
	sqlite3_finalize(tm);

	progress_start("writing");
	progress_update("%zu contexts", tree->n);
	write_events(db, tree);
	quality_write(db);
	write_tree(db, tree);
	progress_update("%zu per-thread values", w.nrows);
	write_thread_rows(&w);
	progress_update("procedures");
	w.proc = db_prepare(db, "INSERT INTO procedure_metrics VALUES (?,?,?,?,?,?,?,?,?)");
	ctree_procedures(tree, procedure_value, &w);
	sqlite3_finalize(w.proc);
	progress_update("diagnoses");
	diagnose_write(db, tree, &th);
	write_thresholds(db, &th);
	write_rules(db, &rules);
	write_modules(db, sym);
	char warning[1024];
	int warn = quality_warning(db, warning, sizeof warning);
	progress_update("indexes");
	db_finish_load(db);
	progress_update("committing");
	db_exec(db, "COMMIT");
	progress_end();
	if (sqlite3_close(db) != SQLITE_OK) {
		unlink(tmp);
		return msg_error("cannot finish %s", tmp);
	}
	if (rename(tmp, out) != 0) {
		msg_error("cannot write %s: %s", out, strerror(errno));
		unlink(tmp);
		return EXIT_FAIL;
	}
	if (warn)
		msg_warn("%s", warning);
	if (!quiet)
		msg_note("wrote %s: %zu process%s, %zu thread%s, %zu contexts (%.2f s)%s", out,
			 e.nproc, e.nproc == 1 ? "" : "es", e.nthread, e.nthread == 1 ? "" : "s",
			 tree->n, now_seconds() - t0,
			 e.files_skipped ? "; some files were skipped, see above" : "");
	ctree_free(tree);
	for (size_t i = 0; i < types.n; i++)
		free(types.name[i]);
	free(types.name);
	ovh_rules_free(&rules);
	symbolizer_free(sym);
	experiment_free(&e);
	free(tmp);
	free(out);
	return EXIT_OK;
}
