/* overhead.c - overhead tags and rules (see overhead.h). */
#define _GNU_SOURCE
#include "overhead.h"
#include "tools.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

const char *const ovh_field_name[] = {
	[OVH_PROCEDURE] = "procedure",
	[OVH_FILE] = "file",
	[OVH_MODULE] = "module",
	[OVH_ENTRY] = "entry",
};

/* The built-in rules.  Entry points are the runtimes' exported functions,
 * which keep their names in stripped libraries; time in the unnamed code
 * below them is classified by the entry point the program called.
 *
 * A runtime's waiting threads are idle, not overhead: under the OpenMP
 * plugin their samples never reach here (idle samples stay out of the
 * tree), and libomp's barrier and taskwait code runs the task scheduler
 * while tasks are queued, which is overhead.  Without a tools interface
 * (GCC's libgomp kept with --openmp=native, oneTBB) culprit cannot tell a
 * spinning thread from a working one, so their waiting code is "-": work,
 * not overhead. */
const char ovh_builtin_rules[] =
	"# System libraries work for whoever called them.\n"
	"module */libc.so*                  ^\n"
	"module */libm.so*                  ^\n"
	"module */libpthread.so*            ^\n"
	"module */ld-linux*.so*             ^\n"
	"module */libstdc++.so*             ^\n"
	"module */libgcc_s.so*              ^\n"
	"module [[]vdso]                     ^\n"
	"\n"
	"# LLVM's libomp, and GCC programs culprit runs on it.\n"
	"entry __kmpc_omp_task_alloc        task-creation\n"
	"entry __kmpc_omp_target_task_alloc task-creation\n"
	"entry __kmpc_omp_task              task-creation\n"
	"entry __kmpc_omp_task_with_deps    task-creation\n"
	"entry __kmpc_omp_task_parts        task-creation\n"
	"entry __kmpc_omp_task_begin_if0    task-creation\n"
	"entry __kmpc_omp_task_complete_if0 task-creation\n"
	"entry __kmpc_taskloop*             task-creation\n"
	"entry GOMP_taskwait*               scheduling\n"
	"entry GOMP_taskgroup*              scheduling\n"
	"entry GOMP_taskyield               scheduling\n"
	"entry GOMP_task*                   task-creation\n"
	"entry __kmpc_omp_taskwait          scheduling\n"
	"entry __kmpc_omp_taskyield         scheduling\n"
	"entry __kmpc_omp_wait_deps         scheduling\n"
	"entry __kmpc_taskgroup             scheduling\n"
	"entry __kmpc_end_taskgroup         scheduling\n"
	"entry __kmpc_barrier*              scheduling\n"
	"entry __kmpc_cancel_barrier        scheduling\n"
	"entry __kmpc_end_barrier_master    scheduling\n"
	"entry GOMP_barrier*                scheduling\n"
	"entry __kmpc_fork_call             parallel-region\n"
	"entry __kmpc_fork_teams            parallel-region\n"
	"entry __kmpc_push_*                parallel-region\n"
	"entry __kmpc_serialized_parallel   parallel-region\n"
	"entry __kmpc_end_serialized_parallel parallel-region\n"
	"entry GOMP_parallel_loop_*         parallel-region\n"
	"entry GOMP_parallel*               parallel-region\n"
	"entry GOMP_teams*                  parallel-region\n"
	"entry __kmpc_for_static_*          loop-scheduling\n"
	"entry __kmpc_dist_*                loop-scheduling\n"
	"entry __kmpc_team_static_*         loop-scheduling\n"
	"entry __kmpc_dispatch_*            loop-scheduling\n"
	"entry __kmpc_doacross_*            loop-scheduling\n"
	"entry GOMP_loop_*                  loop-scheduling\n"
	"entry GOMP_doacross_*              loop-scheduling\n"
	"entry GOMP_sections*               loop-scheduling\n"
	"entry __kmpc_single                work-sharing\n"
	"entry __kmpc_end_single            work-sharing\n"
	"entry __kmpc_master                work-sharing\n"
	"entry __kmpc_end_master            work-sharing\n"
	"entry __kmpc_masked                work-sharing\n"
	"entry __kmpc_end_masked            work-sharing\n"
	"entry __kmpc_scope                 work-sharing\n"
	"entry __kmpc_end_scope             work-sharing\n"
	"entry __kmpc_copyprivate           work-sharing\n"
	"entry GOMP_single*                 work-sharing\n"
	"entry __kmpc_critical*             synchronization\n"
	"entry __kmpc_end_critical          synchronization\n"
	"entry __kmpc_*_lock*               synchronization\n"
	"entry omp_*_lock                   synchronization\n"
	"entry omp_*_nest_lock              synchronization\n"
	"entry __kmpc_atomic*               synchronization\n"
	"entry __kmpc_reduce*               synchronization\n"
	"entry __kmpc_end_reduce*           synchronization\n"
	"entry __kmpc_task_reduction*       synchronization\n"
	"entry __kmpc_taskred*              synchronization\n"
	"entry __kmpc_ordered               synchronization\n"
	"entry __kmpc_end_ordered           synchronization\n"
	"entry __kmpc_flush                 synchronization\n"
	"entry GOMP_critical*               synchronization\n"
	"entry GOMP_atomic*                 synchronization\n"
	"entry GOMP_ordered*                synchronization\n"
	"module */libomp.so*                runtime\n"
	"module */libiomp5.so*              runtime\n"
	"\n"
	"# CPython's own machinery beside the program's Python code (its frames,\n"
	"# unwind-plugins/python): memory, reference counting, the cyclic garbage\n"
	"# collector.  What a statement does in C (arithmetic, lookups, calls into\n"
	"# extensions) is the program's work.\n"
	"entry _Py_Dealloc                  interpreter\n"
	"entry PyObject_Free                interpreter\n"
	"entry PyObject_Malloc              interpreter\n"
	"entry PyObject_Calloc              interpreter\n"
	"entry PyObject_Realloc             interpreter\n"
	"entry _PyObject_GC_*               interpreter\n"
	"entry PyObject_GC_*                interpreter\n"
	"entry PyGC_Collect                 interpreter\n"
	"entry _PyGC_*                      interpreter\n"
	"entry _PyFrame_*                   interpreter\n"
	"entry _PyObject_Free               interpreter\n"
	"# The rest of the interpreter is the runtime of the program's Python\n"
	"# code: work, charged to the Python line that called it.\n"
	"module */python3.[0-9]*            -\n"
	"module */libpython3.[0-9]*         -\n"
	"\n"
	"# GCC's libgomp, kept with --openmp=native: no tools interface, so its\n"
	"# waiting threads cannot be told from working ones.  Only task creation\n"
	"# and loop scheduling count; the rest is its threads waiting.\n"
	"module */libgomp.so*               -\n"
	"\n"
	"# oneTBB: its waiting and spinning is not overhead (no tools interface\n"
	"# tells culprit that a TBB thread idles); spawning and the scheduler are.\n"
	"procedure tbb::detail::r1::*prolonged_pause*  -\n"
	"procedure tbb::detail::r1::*spin_wait*        -\n"
	"procedure tbb::detail::r1::*sleep*            -\n"
	"procedure tbb::detail::r1::*waiter*           -\n"
	"procedure *machine_pause*                     -\n"
	"procedure *atomic_backoff*                    -\n"
	"entry tbb::detail::r1::spawn*                 task-creation\n"
	"entry tbb::detail::r1::allocate*              task-creation\n"
	"entry tbb::detail::r1::submit*                task-creation\n"
	"entry tbb::detail::r1::execute_and_wait*      scheduling\n"
	"entry tbb::detail::r1::wait*                  scheduling\n"
	"entry tbb::detail::r1::notify_waiters*        synchronization\n"
	"module */libtbb.so*                           scheduling\n"
	"module */libtbbmalloc.so*                     ^\n"
	"file */oneapi/tbb/partitioner.h               loop-scheduling\n"
	"file */oneapi/tbb/detail/_task.h              scheduling\n"
	"file */oneapi/tbb/detail/_small_object_pool.h task-creation\n";

void ovh_rules_init(struct ovh_rules *r)
{
	memset(r, 0, sizeof *r);
}

void ovh_rules_free(struct ovh_rules *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->rule[i].pattern);
		free(r->rule[i].type);
		free(r->rule[i].origin);
	}
	free(r->rule);
	ovh_rules_init(r);
}

static int valid_type(const char *t)
{
	if (strcmp(t, "-") == 0 || strcmp(t, "^") == 0)
		return 1;
	if (!*t || strlen(t) > 48 || !(islower((unsigned char)*t) || isdigit((unsigned char)*t)))
		return 0;
	for (; *t; t++)
		if (!islower((unsigned char)*t) && !isdigit((unsigned char)*t) && *t != '-' &&
		    *t != '_')
			return 0;
	return 1;
}

/* The words of LINE (up to MAX; more are counted), split at blanks. */
static int split(char *line, char **word, int max)
{
	int n = 0;
	for (char *p = line; *p;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			break;
		if (n < max)
			word[n] = p;
		n++;
		while (*p && *p != ' ' && *p != '\t')
			p++;
		if (*p)
			*p++ = 0;
	}
	return n;
}

int ovh_rules_parse(struct ovh_rules *r, const char *origin, const char *text, char *err,
		    size_t errlen)
{
	unsigned lineno = 0;
	for (const char *p = text; *p;) {
		const char *end = strchr(p, '\n');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		char *line = xmalloc(len + 1);
		memcpy(line, p, len);
		line[len] = 0;
		p += len + (end ? 1 : 0);
		lineno++;
		char *hash = strchr(line, '#');
		if (hash)
			*hash = 0;
		line[strcspn(line, "\r")] = 0;

		char *word[3];
		int n = split(line, word, 3);
		int field = -1;
		const char *problem = NULL;
		if (n == 0) {
			free(line);
			continue;
		}
		if (n != 3) {
			snprintf(err, errlen, "%s:%u: expected FIELD PATTERN TYPE, found %d word%s; "
				 "write e.g. \"entry __kmpc_omp_task task-creation\"", origin, lineno, n,
				 n == 1 ? "" : "s");
			free(line);
			return -1;
		}
		for (int f = 0; f <= OVH_ENTRY; f++)
			if (strcmp(word[0], ovh_field_name[f]) == 0)
				field = f;
		if (field < 0)
			problem = "unknown field; use procedure, entry, file or module";
		else if (!valid_type(word[2]))
			problem = "bad overhead type; use lower-case letters, digits, '-' and '_' "
				  "(like task-creation), or - for not overhead";
		else if (strcmp(word[2], "^") == 0 && field != OVH_MODULE)
			problem = "^ (the caller's run) goes with module rules only";
		if (problem) {
			snprintf(err, errlen, "%s:%u: %s: \"%s\"", origin, lineno, problem,
				 field < 0 ? word[0] : word[2]);
			free(line);
			return -1;
		}
		grow_array(&r->rule, &r->cap, r->n + 1, sizeof *r->rule);
		struct ovh_rule *rule = &r->rule[r->n++];
		rule->field = (enum ovh_field)field;
		rule->pattern = xstrdup(word[1]);
		rule->type = xstrdup(word[2]);
		rule->origin = xasprintf("%s:%u", origin, lineno);
		free(line);
	}
	return 0;
}

int ovh_rules_load(struct ovh_rules *r, const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		snprintf(err, errlen, "cannot read the rules file %s: %s", path, strerror(errno));
		return -1;
	}
	char *text = NULL;
	size_t len = 0, cap = 0;
	char buf[4096];
	size_t got;
	while ((got = fread(buf, 1, sizeof buf, f)) > 0) {
		grow_array(&text, &cap, len + got + 1, 1);
		memcpy(text + len, buf, got);
		len += got;
	}
	int bad = ferror(f);
	fclose(f);
	if (bad) {
		snprintf(err, errlen, "cannot read the rules file %s", path);
		free(text);
		return -1;
	}
	if (memchr(text ? text : "", 0, len)) {
		snprintf(err, errlen, "%s is not a text file of rules (it holds a NUL byte)", path);
		free(text);
		return -1;
	}
	if (text)
		text[len] = 0;
	int rc = ovh_rules_parse(r, path, text ? text : "", err, errlen);
	free(text);
	return rc;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int ovh_rules_load_user(struct ovh_rules *r, char *err, size_t errlen)
{
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	char *dir;
	if (xdg && *xdg == '/')
		dir = xasprintf("%s/culprit", xdg);
	else if (home && *home)
		dir = xasprintf("%s/.config/culprit", home);
	else
		return 0;
	DIR *d = opendir(dir);
	if (!d) {
		free(dir);
		return 0;
	}
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (len > 6 && strcmp(e->d_name + len - 6, ".rules") == 0 && e->d_name[0] != '.') {
			grow_array(&names, &cap, n + 1, sizeof *names);
			names[n++] = xasprintf("%s/%s", dir, e->d_name);
		}
	}
	closedir(d);
	free(dir);
	if (n)
		qsort(names, n, sizeof *names, by_name);
	int rc = 0;
	for (size_t i = 0; i < n; i++) {
		if (rc == 0)
			rc = ovh_rules_load(r, names[i], err, errlen);
		free(names[i]);
	}
	free(names);
	return rc;
}

void ovh_rules_print(const struct ovh_rules *r, FILE *out)
{
	for (size_t i = 0; i < r->n; i++) {
		const struct ovh_rule *x = &r->rule[i];
		fprintf(out, "%-9s %-34s %-16s # %s\n", ovh_field_name[x->field], x->pattern, x->type,
			x->origin);
	}
}

int ovh_file_tag(const char *file, char *type, size_t size)
{
	static const char tag[] = "culprit:overhead/", lush[] = "lush:parallel-overhead";
	if (!file)
		return 0;
	const char *p = strstr(file, tag);
	if (p) {
		p += sizeof tag - 1;
		size_t n = strcspn(p, "/");
		if (n == 0)
			return 0;
		if (n >= size)
			n = size - 1;
		memcpy(type, p, n);
		type[n] = 0;
		for (char *c = type; *c; c++)
			if (!islower((unsigned char)*c) && !isdigit((unsigned char)*c) && *c != '-' &&
			    *c != '_')
				*c = '_';
		return 1;
	}
	size_t len = strlen(file), ln = sizeof lush - 1;
	if (len >= ln && strcmp(file + len - ln, lush) == 0) {
		snprintf(type, size, "parallel");
		return 1;
	}
	return 0;
}

static int matches(const char *pattern, const char *s)
{
	return s && fnmatch(pattern, s, 0) == 0;
}

enum ovh_module_kind ovh_module_kind(const struct ovh_rules *r, const char *module)
{
	for (size_t i = 0; i < r->n; i++) {
		const struct ovh_rule *x = &r->rule[i];
		if (x->field == OVH_MODULE && matches(x->pattern, module))
			return x->type[0] == '^' ? OVH_MODULE_TRANSPARENT : OVH_MODULE_RUNTIME;
	}
	return OVH_MODULE_PROGRAM;
}

int ovh_transparent(const struct ovh_rules *r, const char *module)
{
	return ovh_module_kind(r, module) == OVH_MODULE_TRANSPARENT;
}

int ovh_runtime_code(const struct ovh_rules *r, const char *procedure, const char *file)
{
	char type[64];
	if (ovh_file_tag(file, type, sizeof type))
		return 1;
	for (size_t i = 0; i < r->n; i++) {
		const struct ovh_rule *x = &r->rule[i];
		if ((x->field == OVH_PROCEDURE && matches(x->pattern, procedure)) ||
		    (x->field == OVH_FILE && matches(x->pattern, file)))
			return x->type[0] != '-';
	}
	return 0;
}

const struct ovh_rule *ovh_match(const struct ovh_rules *r, const struct ovh_subject *s)
{
	for (size_t i = 0; i < r->n; i++) {
		const struct ovh_rule *x = &r->rule[i];
		const char *what = x->field == OVH_PROCEDURE ? s->procedure
				   : x->field == OVH_FILE    ? s->file
				   : x->field == OVH_MODULE  ? s->module
							     : s->entry;
		if (x->type[0] != '^' && matches(x->pattern, what))
			return x;
	}
	return NULL;
}
