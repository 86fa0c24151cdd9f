/* prof.c - `culprit prof`: measurement directories to an SQLite database.
 *
 *   1. load every file, in parallel (experiment.c)
 *   2. name every sampled address, one module per worker (symbolize.c)
 *   3. merge the threads one by one into the experiment's tree, writing
 *      each thread's totals as it goes, and classifying overhead where
 *      samples landed (merge.c, overhead.c)
 *   4. write the tree, its statistics, the per-thread values, the
 *      procedure totals and the diagnoses (tables.c, diagnose.c)
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
#include "overhead.h"
#include "prof.h"
#include "quality.h"
#include "symbolize.h"
#include "tables.h"
#include "tasks.h"
#include "trace.h"
#include "waits.h"
#include "tools.h"

#include <errno.h>
#include <limits.h>
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char prof_usage[] =
	"usage: culprit prof [-o FILE] [-j N] [--force] [--strict] [-q] DIR...\n"
	"       mpirun -np N culprit prof --mpi [OPTIONS] DIR...\n"
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
	"      --mpi           under mpirun: the ranks merge shares of the processes\n"
	"                      and rank 0 writes the same database (culprit-prof(1))\n"
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

/* ---- overhead types ------------------------------------------------------ */

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

void prof_free(struct prof *p)
{
	free(p->trace.row);
	ctree_free(p->tree);
	for (size_t i = 0; i < p->types.n; i++)
		free(p->types.name[i]);
	free(p->types.name);
	symbolizer_free(p->sym);
	experiment_free(&p->e);
	ovh_rules_free(&p->rules);
	free(p->tmp);
	free(p->out);
}

/* Reads the command line into *O.  Returns EXIT_OK, or the status to exit
 * with after a message.  Stops at -h, like the usage it asks for. */
int prof_parse_options(int argc, char **argv, struct prof_options *o)
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
		{ "mpi", no_argument, NULL, 'M' },
		{ NULL, 0, NULL, 0 },
	};
	double *pct;
	char *end;
	int c;

	memset(o, 0, sizeof *o);
	o->jobs = cpu_count();
	o->default_rules = 1;
	o->thresholds = (struct diag_thresholds){ DIAG_IDLENESS_DEFAULT, DIAG_OVERHEAD_DEFAULT,
						  DIAG_SHARE_DEFAULT };
	argv[0] = "culprit prof";	/* getopt's messages start with it */
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:j:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'o': o->output = optarg; break;
		case 'j':
			o->jobs = (int)strtol(optarg, &end, 10);
			if (*end || o->jobs < 1 || o->jobs > 1024)
				return msg_usage("prof", "-j needs a number of threads from 1 to 1024");
			o->jobs_given = 1;
			break;
		case 'M': break;	/* cmd_prof saw it: this is culprit-prof-mpi */
		case 'F': o->force = 1; break;
		case 'S': o->strict = 1; break;
		case 'q': o->quiet = 1; break;
		case 'R':
			if (o->nrule_files == MAX_RULE_FILES)
				return msg_usage("prof", "at most %d --overhead-rules files",
						 MAX_RULE_FILES);
			o->rule_files[o->nrule_files++] = optarg;
			break;
		case 'N': o->default_rules = 0; break;
		case 'W': o->show_rules = 1; break;
		case 'I':
		case 'O':
		case 'H':
			pct = c == 'I' ? &o->thresholds.idleness
			      : c == 'O' ? &o->thresholds.overhead : &o->thresholds.share;
			*pct = percent_arg(optarg);
			if (*pct < 0)
				return msg_usage("prof", "--diagnose-%s needs a percentage above 0 "
						 "and at most 100, like 20 or 20%%, not '%s'",
						 c == 'I' ? "idleness" : c == 'O' ? "overhead" : "share",
						 optarg);
			break;
		case 'h': o->help = 1; return EXIT_OK;
		default:
			if (!msg_silenced())
				fputs(prof_usage, stderr);
			return EXIT_USAGE;
		}
	}
	o->dirs = argv + optind;
	o->ndirs = argc - optind;
	return EXIT_OK;
}

/* The rules in the order they are tried: the files given, the user's,
 * then the built-in ones.  Returns 0, or -1 after a message. */
static int load_rules(const struct prof_options *o, struct ovh_rules *rules)
{
	char err[600];
	for (int i = 0; i < o->nrule_files; i++)
		if (ovh_rules_load(rules, o->rule_files[i], err, sizeof err) < 0)
			goto fail;
	if (ovh_rules_load_user(rules, err, sizeof err) < 0)
		goto fail;
	/* The built-in rules failing to parse is a bug of ours. */
	if (o->default_rules &&
	    ovh_rules_parse(rules, "built-in", ovh_builtin_rules, err, sizeof err) < 0)
		goto fail;
	return 0;
fail:
	msg_error("%s", err);
	return -1;
}

static void resolve_module(void *arg, size_t i)
{
	sym_resolve_wanted(symbolizer_at(arg, i));
}

/* Names every sampled address of E, each module in one of JOBS workers,
 * and warns of modules whose names are missing or poor. */
static struct symbolizer *name_addresses(struct experiment *e, int jobs)
{
	struct symbolizer *sym = symbolizer_new();
	experiment_modules(e, sym);
	ctree_want_addresses(e);
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
	return sym;
}

/* Merges P's threads into its tree one by one, writing each thread's
 * totals and freeing its own tree as it goes; returns their values by
 * context, to be written once the tree is, or NULL after a message. */
static struct thread_values *merge_threads(sqlite3 *db, struct prof *p, void *unused)
{
	struct ctree *tree = p->tree;
	struct experiment *e = &p->e;
	struct thread_values *values = thread_values_new(db, tree);
	if (!values)
		return NULL;
	double *totals = xcalloc(tree->nmetric + 1, sizeof *totals);
	(void)unused;
	/* experiment_load() numbered threads by process and sequence, so
	 * that creators are merged before the threads they made. */
	progress_start("merging");
	for (size_t i = 0; values && i < e->nthread; i++) {
		progress_update("thread %zu of %zu", i + 1, e->nthread);
		ctree_add_thread(tree, e->thread[i], thread_values_add, values, totals);
		if (thread_values_totals(values, e->thread[i], totals) < 0) {
			thread_values_free(values);
			values = NULL;
			break;
		}
		trace_rows_add_thread(&p->trace, tree, e->thread[i]);
		exp_thread_release(e->thread[i]);
	}
	progress_end();
	free(totals);
	return values;
}

/* What can be worked out from the merged tree while the tree is being
 * written: it reads the tree and touches no database. */
struct analysis {
	const struct ctree *tree;
	const struct diag_thresholds *thresholds;
	struct thread_values *values;
	int derivable;			/* tables_derivable() */
	const struct experiment *e;
	struct diag_result *diagnosis;	/* the result */
	struct run_values *by_run;	/* each experiment's values, or NULL */
};

#define ANALYSIS_STACK ((size_t)1 << 30)

static void *analyse(void *arg)
{
	struct analysis *an = arg;
	an->by_run = thread_values_by_run(an->values, an->e);
	thread_values_sort(an->values, an->derivable);
	an->diagnosis = diagnose(an->tree, an->thresholds);
	return NULL;
}

/* Says so when some samples are in no frame's exclusive value: every
 * view and export would then add up to less than the total. */
static void check_exclusive(const struct ctree *t)
{
	uint32_t m;
	double owned, total;
	if (ctree_check_exclusive(t, &m, &owned, &total) == 0)
		return;
	const struct ctx_metric *cm = &t->metric[m];
	msg_warn("the frames' exclusive %s of %s add up to %.6g of its total %.6g %s: the views "
		 "and exports will show less than the whole; please report it, with the "
		 "measurement directory", cm->name, t->event[cm->event].name, owned, total,
		 cm->unit);
}

/* Writes the tree while the analysis (the diagnoses, the values by
 * experiment) runs beside it on a second core, unless there is one job.
 * Returns 0, or -1 after a message; AN holds the analysis either way. */
static int write_tree_beside_analysis(sqlite3 *db, const struct prof_options *o, struct prof *p,
				      struct analysis *an)
{
	const uint32_t *sole = thread_values_sole(an->values);
	/* The diagnoses walk the tree recursively, and a tree can be as deep
	 * as the collector's depth limit (a million frames): a stack of its
	 * own, reserved, not used, unless the tree is that deep. */
	pthread_attr_t attr;
	pthread_t worker;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, ANALYSIS_STACK);
	int started = pthread_create(&worker, &attr, analyse, an) == 0;
	pthread_attr_destroy(&attr);
	if (started && o->jobs == 1)
		pthread_join(worker, NULL);	/* one job: one thing at a time */
	int rc = tables_write_tree(db, p->tree, sole, an->derivable);
	if (rc == 0)
		rc = tasks_name_outlined(db);
	/* Written or not, the analysis uses the values until it ends. */
	if (started && o->jobs > 1)
		pthread_join(worker, NULL);
	else if (!started)
		analyse(an);
	return rc;
}

/* Everything that needs the whole tree, one table at a time, and frees
 * VALUES.  Returns whether the measurement's quality deserves a warning,
 * in WARNING (1 or 0), or -1 after a message. */
static int write_results(sqlite3 *db, const struct prof_options *o, struct prof *p,
			 struct thread_values *values, char *warning, size_t size)
{
	progress_update("%zu contexts", p->tree->n);
	check_exclusive(p->tree);
	int derivable = tables_derivable(p->tree);
	uint64_t expected = 0, read = 0;
	for (size_t i = 0; i < p->e.nproc; i++) {
		expected += p->e.proc[i]->p->thread_count;
		read += p->e.proc[i]->nthreads;
	}
	if (tables_write_events(db, p->tree, derivable) < 0 || waits_write_threads(db) < 0 ||
	    quality_write(db, expected, read) < 0) {
		thread_values_free(values);
		return -1;
	}
	struct analysis an = { p->tree, &o->thresholds, values, derivable, &p->e, NULL, NULL };
	int rc = write_tree_beside_analysis(db, o, p, &an);
	if (rc == 0) {
		progress_update("%zu trace records", p->trace.n);
		rc = trace_rows_write(db, &p->trace);
	}
	/* From here each step frees what it writes; after a failure, what is
	 * left is freed unwritten. */
	if (rc == 0) {
		progress_update("%zu per-thread values", thread_values_count(values));
		rc = thread_values_write(values, derivable);
	} else {
		thread_values_free(values);
	}
	if (rc == 0) {
		if (an.by_run)
			progress_update("values of %zu experiments", p->e.nrun);
		rc = run_values_write(db, an.by_run);
	} else {
		run_values_free(an.by_run);
	}
	if (rc == 0) {
		progress_update("procedures");
		rc = tables_write_procedures(db, p->tree);
	}
	if (rc == 0) {
		progress_update("diagnoses");
		rc = diagnose_write(db, an.diagnosis);
	} else {
		diagnose_free(an.diagnosis);
	}
	if (rc < 0 || tables_write_thresholds(db, &o->thresholds) < 0 ||
	    tables_write_rules(db, &p->rules) < 0 || tables_write_modules(db, p->sym) < 0)
		return -1;
	return quality_warning(db, warning, size);
}

/* Says which processes a signal killed: a profile of a crashed program
 * is the first thing its user should know about it. */
static void warn_crashes(const struct experiment *e)
{
	size_t said = 0, crashed = 0;
	for (size_t i = 0; i < e->nproc; i++) {
		const struct mfile_process *p = e->proc[i]->p;
		if (p->end_reason != MFILE_END_SIGNAL)
			continue;
		crashed++;
		if (said++ == 3)
			continue;
		const char *abbrev = sigabbrev_np(p->end_status);
		msg_warn("process %u (%s) was killed by signal %d (%s%s): its measurement ends "
			 "where it died", p->pid, p->exe ? p->exe : "?", p->end_status,
			 abbrev ? "SIG" : "", abbrev ? abbrev : "unknown");
	}
	if (crashed > 3)
		msg_warn("%zu more processes were killed by signals (SELECT pid, end_status FROM "
			 "processes WHERE end_reason = 'signal')", crashed - 3);
}

void prof_new_tree(struct prof *p, const struct ctree_columns *more)
{
	if (!more)		/* else the types are rank 0's, given */
		collect_types(&p->types, &p->rules, p->sym);
	p->tree = ctree_new(&p->e, &p->rules, p->types.name, p->types.n, more);
	trace_rows_init(&p->trace, &p->e);
}

void prof_add_type(struct prof *p, const char *type)
{
	add_type(&p->types, type);
}

/* The temporary database being written, removed should the command end
 * before it is renamed into place or given up: the tools' allocation
 * (xmalloc) ends it when memory runs out. */
static const char *unfinished;

static void remove_unfinished(void)
{
	if (unfinished)
		unlink(unfinished);
}

/* Fills DB, the database begun: everything, in one transaction.  Returns
 * whether the measurement's quality deserves a warning, in WARNING (1 or
 * 0), or -1 after a message. */
static int fill_database(sqlite3 *db, const struct prof_options *o, struct prof *p,
			 prof_merge_fn merge, void *arg, char *warning, size_t size)
{
	if (db_exec(db, "BEGIN") < 0 || tables_write_info(db, o->dirs, o->ndirs) < 0 ||
	    tables_write_identity(db, &p->e) < 0)
		return -1;
	struct thread_values *values = merge(db, p, arg);
	if (!values)
		return -1;
	progress_start("writing");
	int warn = write_results(db, o, p, values, warning, size);
	if (warn >= 0) {
		progress_update("indexes");
		if (db_finish_load(db) < 0)
			warn = -1;
	}
	if (warn >= 0) {
		progress_update("committing");
		if (db_exec(db, "COMMIT") < 0)
			warn = -1;
	}
	progress_end();
	return warn;
}

int prof_write_database(const struct prof_options *o, struct prof *p, prof_merge_fn merge,
			void *arg)
{
	static int registered;
	char err[600], warning[1024];

	p->tmp = xasprintf("%s.tmp-%d", p->out, (int)getpid());
	if (!registered)
		registered = atexit(remove_unfinished) == 0;
	unfinished = p->tmp;
	sqlite3 *db = db_create(p->tmp, err, sizeof err);
	if (!db) {
		unfinished = NULL;
		msg_error("%s", err);
		return -1;
	}
	int warn = fill_database(db, o, p, merge, arg, warning, sizeof warning);
	/* From here nothing exits before the file is renamed or removed. */
	unfinished = NULL;
	if (warn < 0) {
		/* A full disk: the half-written file may be most of it. */
		db_discard(db, p->tmp);
		return -1;
	}
	if (sqlite3_close(db) != SQLITE_OK) {
		unlink(p->tmp);
		msg_error("cannot finish %s", p->tmp);
		return -1;
	}
	if (rename(p->tmp, p->out) != 0) {
		msg_error("cannot write %s: %s", p->out, strerror(errno));
		unlink(p->tmp);
		return -1;
	}
	if (warn)
		msg_warn("%s", warning);
	warn_crashes(&p->e);
	return 0;
}

int prof_check(const struct prof_options *o, struct prof *p, int *done)
{
	*done = 0;
	/* The rules: checked before anything is read. */
	if (load_rules(o, &p->rules) < 0)
		return EXIT_FAIL;
	if (o->show_rules) {
		*done = 1;
		return EXIT_OK;
	}
	if (o->ndirs == 0)
		return msg_usage("prof", "no measurement directory given (see culprit prof --help)");
	p->out = o->output ? xstrdup(o->output) : default_output(o->dirs[0]);
	struct stat st;
	if (!o->force && lstat(p->out, &st) == 0) {
		msg_error("%s already exists; use --force to replace it, or -o to write another "
			  "file", p->out);
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

int prof_load(const struct prof_options *o, struct prof *p, exp_keep_fn keep, void *arg)
{
	if (experiment_load_some(&p->e, o->dirs, o->ndirs, o->jobs, o->strict, keep, arg) < 0)
		return EXIT_FAIL;
	p->sym = name_addresses(&p->e, o->jobs);
	return EXIT_OK;
}

void prof_summary(const struct prof_options *o, const struct prof *p, double started,
		  const char *how)
{
	if (!o->quiet)
		msg_note("wrote %s: %zu process%s, %zu thread%s, %zu contexts (%.2f s%s)%s", p->out,
			 p->e.nproc, p->e.nproc == 1 ? "" : "es", p->e.nthread,
			 p->e.nthread == 1 ? "" : "s", p->tree->n, now_seconds() - started, how,
			 p->e.files_skipped ? "; some files were skipped, see above" : "");
}

#ifndef PKGLIBEXECDIR
#define PKGLIBEXECDIR "/usr/local/libexec/culprit"
#endif

int prof_exec_mpi(char **argv)
{
#if CULPRIT_WITH_MPI
	/* The build tree's (postmortem/ beside this culprit), else the
	 * installed one. */
	char self[PATH_MAX], helper[PATH_MAX + 64];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	char *slash = n > 0 ? (self[n] = 0, strrchr(self, '/')) : NULL;
	if (slash) {
		*slash = 0;
		snprintf(helper, sizeof helper, "%s/postmortem/culprit-prof-mpi", self);
		if (access(helper, X_OK) != 0)
			snprintf(helper, sizeof helper, "%s/culprit-prof-mpi", PKGLIBEXECDIR);
	} else {
		snprintf(helper, sizeof helper, "%s/culprit-prof-mpi", PKGLIBEXECDIR);
	}
	argv[0] = helper;
	execv(helper, argv);
	return msg_error("cannot run %s for --mpi: %s; reinstall culprit", helper,
			 strerror(errno));
#else
	(void)argv;
	return msg_error("--mpi is not built into this culprit: configure it --with-mpi, "
			 "which needs Open MPI (the Debian package libopenmpi-dev)");
#endif
}

/* Loads, merges and writes, after the checks that need no reading.
 * Returns the command's exit status. */
static int prof_run(const struct prof_options *o, struct prof *p)
{
	int done, status = prof_check(o, p, &done);
	if (status != EXIT_OK)
		return status;
	if (done) {
		ovh_rules_print(&p->rules, stdout);
		return EXIT_OK;
	}
	double started = now_seconds();
	if (prof_load(o, p, NULL, NULL) != EXIT_OK)
		return EXIT_FAIL;
	prof_new_tree(p, NULL);
	if (prof_write_database(o, p, merge_threads, NULL) < 0)
		return EXIT_FAIL;
	prof_summary(o, p, started, "");
	return EXIT_OK;
}

int cmd_prof(int argc, char **argv)
{
	struct prof_options o;
	struct prof p;

	/* --mpi: every rank would say the same of a bad command line; the
	 * MPI program lets rank 0 alone say it. */
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], "--mpi") == 0) {
			prof_exec_mpi(argv);	/* returns only after a message */
			return EXIT_FAIL;
		}
	int status = prof_parse_options(argc, argv, &o);
	if (status != EXIT_OK)
		return status;
	if (o.help) {
		fputs(prof_usage, stdout);
		return EXIT_OK;
	}
	memset(&p, 0, sizeof p);
	ovh_rules_init(&p.rules);
	status = prof_run(&o, &p);
	prof_free(&p);
	return status;
}
