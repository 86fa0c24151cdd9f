/* report.c - `culprit report`: a database as text or CSV.
 *
 *   top-down  the calling-context tree from the program's roots, each
 *             level's children hottest first; a call site is shown on the
 *             line of the frame it called ("<- file:line")
 *   callers   bottom-up: each procedure, then the chains of procedures
 *             that called it, with the share of its cost each carried
 *   flat      procedures with their exclusive and inclusive totals
 *
 * The tree and the chosen metric are read into memory once; every view is
 * computed from those arrays.  Text output fits 100 columns; names from
 * the measured program are printed with control characters replaced. */
#define _GNU_SOURCE
#include "commands.h"
#include "database.h"
#include "tools.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static const char report_usage[] =
	"usage: culprit report [--view=top-down|callers|flat] [--event=E] [--metric=M]\n"
	"                      [--threshold=P%|VALUE] [--depth=N] [--format=text|csv] DB\n"
	"       culprit report --diagnose [--event=E] [--format=text|csv] DB\n"
	"       culprit report --summary [--event=E] [--format=text|csv] DB\n"
	"\n"
	"Prints the profile in database DB (made by `culprit prof`).\n"
	"\n"
	"  --view=VIEW        top-down (default): the calling-context tree, hottest first;\n"
	"                     callers: each procedure and who called it, with shares;\n"
	"                     flat: procedures with exclusive and inclusive totals\n"
	"  --diagnose         the contexts most worth a look: too little parallelism,\n"
	"                     too fine a grain, or both, with the numbers behind each\n"
	"  --summary          where the effort went: useful work, overhead by type and\n"
	"                     idleness by cause, for the run and for each thread\n"
	"  --event=E          the event to show (default: the first, e.g. cputime)\n"
	"  --metric=M         the metric to show (default: work)\n"
	"  --threshold=T      hide what is below T: a percentage of the metric's total\n"
	"                     (1% by default) or a value in the metric's unit\n"
	"  --depth=N          top-down: levels of frames to show; callers: levels of\n"
	"                     callers (default: top-down all, callers 1)\n"
	"  --format=F         text (default, fits 100 columns) or csv (every column)\n"
	"  -h, --help         show this help\n"
	"\n"
	"Percentages are of the event's total effort (work + idleness); for the\n"
	"samples metric, of all samples.\n";

enum view { VIEW_TOPDOWN, VIEW_CALLERS, VIEW_FLAT, VIEW_DIAGNOSE, VIEW_SUMMARY };

struct ctx {
	uint32_t parent;	/* index; UINT32_MAX for none */
	uint32_t first, next;	/* children */
	uint32_t depth;
	char kind;		/* r f i c s */
	char *procedure, *module, *file;
	int line;
	double incl, excl;
};

struct report {
	sqlite3 *db;
	const char *path;
	char *event, *metric, *unit;
	double total;
	double base;		/* what percentages are of: effort, or all samples */
	struct ctx *c;
	size_t n;
	double threshold;	/* absolute */
	int depth;
	int csv;
};

/* Prints S with control characters replaced and, when WIDTH > 0, cut to
 * WIDTH characters with "..." at the end. */
static void put_safe(const char *s, int width)
{
	int n = 0, len = s ? (int)strlen(s) : 0;
	for (; s && *s; s++) {
		if (width > 0 && n == width - 3 && len > width) {
			fputs("...", stdout);
			return;
		}
		unsigned char ch = (unsigned char)*s;
		putchar(ch < 0x20 || ch == 0x7f ? '?' : ch);
		n++;
	}
}

/* A CSV field: quoted when needed, control characters replaced. */
static void put_csv(const char *s)
{
	if (!s)
		return;
	int quote = strpbrk(s, ",\"\n\r") != NULL;
	if (quote)
		putchar('"');
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch == '"')
			fputs("\"\"", stdout);
		else
			putchar(ch < 0x20 || ch == 0x7f ? '?' : ch);
	}
	if (quote)
		putchar('"');
}

static const char *base_name(const char *path)
{
	const char *slash = path ? strrchr(path, '/') : NULL;
	return slash ? slash + 1 : path;
}

static char *column_text(sqlite3_stmt *s, int i)
{
	const unsigned char *t = sqlite3_column_text(s, i);
	return t ? xstrdup((const char *)t) : NULL;
}

static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int fail(const char *fmt, ...)
{
	va_list ap;
	fputs("culprit: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 1;
}

/* Lists the choices for an option, for error messages. */
static char *choices(sqlite3 *db, const char *sql, const char *arg)
{
	sqlite3_stmt *s = NULL;
	char *out = xstrdup("");
	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
		return out;
	if (arg)
		sqlite3_bind_text(s, 1, arg, -1, SQLITE_TRANSIENT);
	while (sqlite3_step(s) == SQLITE_ROW) {
		char *next = xasprintf("%s%s%s", out, out[0] ? ", " : "",
				       (const char *)sqlite3_column_text(s, 0));
		free(out);
		out = next;
	}
	sqlite3_finalize(s);
	return out;
}

static int choose_metric(struct report *r, const char *event, const char *metric)
{
	sqlite3_stmt *s = NULL;
	if (!event) {
		if (sqlite3_prepare_v2(r->db, "SELECT event FROM events ORDER BY rowid LIMIT 1", -1, &s,
				       NULL) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW)
			r->event = column_text(s, 0);
		sqlite3_finalize(s);
		if (!r->event)
			return fail("%s has no events: it holds no samples", r->path);
	} else {
		r->event = xstrdup(event);
	}
	r->metric = xstrdup(metric ? metric : "work");
	if (sqlite3_prepare_v2(r->db, "SELECT unit, total FROM metrics WHERE event = ? AND metric = ?",
			       -1, &s, NULL) != SQLITE_OK)
		return fail("%s: %s", r->path, sqlite3_errmsg(r->db));
	sqlite3_bind_text(s, 1, r->event, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(s, 2, r->metric, -1, SQLITE_TRANSIENT);
	int found = sqlite3_step(s) == SQLITE_ROW;
	if (found) {
		r->unit = column_text(s, 0);
		r->total = sqlite3_column_double(s, 1);
	}
	sqlite3_finalize(s);
	if (found) {
		/* Percentages of effort; of the samples for samples, and of the
		 * metric itself in a database that has no effort (schema 1). */
		r->base = r->total;
		if (strcmp(r->metric, "samples") != 0 &&
		    sqlite3_prepare_v2(r->db, "SELECT total FROM metrics WHERE event = ? AND "
				       "metric = 'effort'", -1, &s, NULL) == SQLITE_OK) {
			sqlite3_bind_text(s, 1, r->event, -1, SQLITE_TRANSIENT);
			if (sqlite3_step(s) == SQLITE_ROW)
				r->base = sqlite3_column_double(s, 0);
			sqlite3_finalize(s);
		}
		return 0;
	}
	char *evs = choices(r->db, "SELECT event FROM events ORDER BY rowid", NULL);
	char *ms = choices(r->db, "SELECT metric FROM metrics WHERE event = ? ORDER BY rowid",
			   r->event);
	int rc = ms[0] ? fail("%s has no metric '%s' for event '%s'; it has: %s", r->path,
			      r->metric, r->event, ms)
		       : fail("%s has no event '%s'; it has: %s", r->path, r->event, evs);
	free(evs);
	free(ms);
	return rc;
}

static int load_tree(struct report *r)
{
	sqlite3_stmt *s = NULL;
	sqlite3_int64 count = 0;
	if (sqlite3_prepare_v2(r->db, "SELECT max(id) FROM contexts", -1, &s, NULL) != SQLITE_OK)
		return fail("%s: %s", r->path, sqlite3_errmsg(r->db));
	if (sqlite3_step(s) == SQLITE_ROW)
		count = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	if (count <= 0)
		return fail("%s has no calling contexts: nothing was sampled", r->path);
	r->n = (size_t)count;
	r->c = xcalloc(r->n, sizeof *r->c);
	for (size_t i = 0; i < r->n; i++)
		r->c[i].parent = r->c[i].first = r->c[i].next = UINT32_MAX;
	/* Ids are 1..n with parents before children (culprit prof writes
	 * them so); anything else is not a database we made. */
	if (sqlite3_prepare_v2(r->db, "SELECT id, parent_id, depth, kind, procedure, module, file, "
			       "line FROM contexts", -1, &s, NULL) != SQLITE_OK)
		return fail("%s: %s", r->path, sqlite3_errmsg(r->db));
	while (sqlite3_step(s) == SQLITE_ROW) {
		sqlite3_int64 id = sqlite3_column_int64(s, 0) - 1;
		if (id < 0 || (size_t)id >= r->n)
			continue;
		struct ctx *c = &r->c[id];
		if (sqlite3_column_type(s, 1) != SQLITE_NULL) {
			sqlite3_int64 p = sqlite3_column_int64(s, 1) - 1;
			if (p >= 0 && p < id)
				c->parent = (uint32_t)p;
		}
		c->depth = (uint32_t)sqlite3_column_int(s, 2);
		const unsigned char *k = sqlite3_column_text(s, 3);
		c->kind = k ? (char)k[0] : '?';
		c->procedure = column_text(s, 4);
		c->module = column_text(s, 5);
		c->file = column_text(s, 6);
		c->line = sqlite3_column_int(s, 7);
	}
	sqlite3_finalize(s);
	for (size_t i = r->n; i-- > 0;) {
		struct ctx *c = &r->c[i];
		if (c->parent != UINT32_MAX) {
			c->next = r->c[c->parent].first;
			r->c[c->parent].first = (uint32_t)i;
		}
	}
	if (sqlite3_prepare_v2(r->db, "SELECT context_id, inclusive, exclusive FROM context_metrics "
			       "WHERE event = ? AND metric = ?", -1, &s, NULL) != SQLITE_OK)
		return fail("%s: %s", r->path, sqlite3_errmsg(r->db));
	sqlite3_bind_text(s, 1, r->event, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(s, 2, r->metric, -1, SQLITE_TRANSIENT);
	while (sqlite3_step(s) == SQLITE_ROW) {
		sqlite3_int64 id = sqlite3_column_int64(s, 0) - 1;
		if (id < 0 || (size_t)id >= r->n)
			continue;
		r->c[id].incl = sqlite3_column_double(s, 1);
		r->c[id].excl = sqlite3_column_double(s, 2);
	}
	sqlite3_finalize(s);
	return 0;
}

static double pct(const struct report *r, double v)
{
	return r->base > 0 ? 100.0 * v / r->base : 0;
}

/* V in its unit, compactly, in a static buffer. */
static const char *amount(const char *unit, double v)
{
	static char buf[64];
	snprintf(buf, sizeof buf, strcmp(unit, "seconds") == 0 ? "%.3f" : "%.4g", v);
	return buf;
}

static void value(const struct report *r, double v)
{
	if (strcmp(r->unit, "seconds") == 0)
		printf("%9.3f", v);
	else
		printf("%9.4g", v);
}

static void header(const struct report *r, const char *view)
{
	printf("culprit report: ");
	put_safe(r->path, 60);
	printf(" (%s)\n%s %s in %s, total ", view, r->event, r->metric, r->unit);
	value(r, r->total);
	printf("; showing at least ");
	value(r, r->threshold);
	if (strcmp(r->metric, "samples") == 0)
		printf("\n%% of all samples\n\n");
	else
		printf("\n%% of the effort (work + idleness), %s %s\n\n", amount(r->unit, r->base),
		       r->unit);
}

/* The words that name context C on its line. */
static void label(const struct report *r, const struct ctx *c, char *buf, size_t size)
{
	const struct ctx *site = c->parent != UINT32_MAX && r->c[c->parent].kind == 'c'
				 ? &r->c[c->parent] : NULL;
	switch (c->kind) {
	case 'f':
	case 'i':
		if (site && site->file)
			snprintf(buf, size, "%s%s  <- %s:%d", c->kind == 'i' ? "[inlined] " : "",
				 c->procedure ? c->procedure : "?", base_name(site->file), site->line);
		else
			snprintf(buf, size, "%s%s", c->kind == 'i' ? "[inlined] " : "",
				 c->procedure ? c->procedure : "?");
		break;
	case 's':
		snprintf(buf, size, "line %s:%d", base_name(c->file), c->line);
		break;
	case 'c':
		snprintf(buf, size, "call at %s:%d", c->file ? base_name(c->file) : "?", c->line);
		break;
	default:
		snprintf(buf, size, "%s", c->procedure ? c->procedure : "<root>");
		break;
	}
}

/* ---- top-down ----------------------------------------------------------- */

static int by_inclusive(const void *a, const void *b, void *arg)
{
	const struct report *r = arg;
	double x = r->c[*(const uint32_t *)a].incl, y = r->c[*(const uint32_t *)b].incl;
	return x < y ? 1 : x > y ? -1 : (*(const uint32_t *)a > *(const uint32_t *)b) -
					      (*(const uint32_t *)a < *(const uint32_t *)b);
}

/* The shown children of I: call sites are looked through, so that the
 * frames they lead to appear as I's children.  Hottest first. */
static size_t shown_children(const struct report *r, uint32_t i, uint32_t **out, size_t *cap)
{
	size_t n = 0;
	for (uint32_t k = r->c[i].first; k != UINT32_MAX; k = r->c[k].next) {
		if (r->c[k].kind == 'c') {
			for (uint32_t g = r->c[k].first; g != UINT32_MAX; g = r->c[g].next)
				if (r->c[g].incl >= r->threshold && r->c[g].incl > 0) {
					grow_array(out, cap, n + 1, sizeof **out);
					(*out)[n++] = g;
				}
		} else if (r->c[k].incl >= r->threshold && r->c[k].incl > 0) {
			grow_array(out, cap, n + 1, sizeof **out);
			(*out)[n++] = k;
		}
	}
	qsort_r(*out, n, sizeof **out, by_inclusive, (void *)r);
	return n;
}

static void topdown(const struct report *r)
{
	struct item {
		uint32_t ctx, level;
	} *stack = NULL;
	size_t sp = 0, cap = 0, kcap = 0;
	uint32_t *kids = NULL;

	if (r->csv)
		printf("id,parent_id,depth,kind,procedure,module,file,line,inclusive,"
		       "inclusive_percent,exclusive,exclusive_percent\n");
	else {
		header(r, "top-down");
		printf("%9s %6s %9s %6s  %s\n", "inclusive", "%", "exclusive", "%", "context");
	}
	grow_array(&stack, &cap, 1, sizeof *stack);
	stack[sp++] = (struct item){ 0, 0 };
	while (sp) {
		struct item it = stack[--sp];
		const struct ctx *c = &r->c[it.ctx];
		if (r->csv) {
			static const char *const kinds[] = { "root", "frame", "inlined", "callsite",
							     "statement" };
			const char *kind = c->kind == 'f' ? kinds[1] : c->kind == 'i' ? kinds[2]
					 : c->kind == 'c' ? kinds[3] : c->kind == 's' ? kinds[4]
					 : kinds[0];
			printf("%u,", it.ctx + 1);
			if (c->parent != UINT32_MAX)
				printf("%u", c->parent + 1);
			printf(",%u,%s,", c->depth, kind);
			put_csv(c->procedure);
			putchar(',');
			put_csv(c->module);
			putchar(',');
			put_csv(c->file);
			printf(",%d,%.9g,%.4f,%.9g,%.4f\n", c->line, c->incl, pct(r, c->incl), c->excl,
			       pct(r, c->excl));
		} else {
			char text[512];
			label(r, c, text, sizeof text);
			value(r, c->incl);
			printf(" %6.1f ", pct(r, c->incl));
			value(r, c->excl);
			printf(" %6.1f  ", pct(r, c->excl));
			int indent = (int)(it.level > 30 ? 30 : it.level);
			printf("%*s", indent, "");
			put_safe(text, 100 - 35 - indent);
			putchar('\n');
		}
		if (r->depth > 0 && (int)it.level >= r->depth)
			continue;
		size_t n = shown_children(r, it.ctx, &kids, &kcap);
		/* In CSV every context is a row: call sites too. */
		if (r->csv) {
			n = 0;
			for (uint32_t k = c->first; k != UINT32_MAX; k = r->c[k].next)
				if (r->c[k].incl >= r->threshold && r->c[k].incl > 0) {
					grow_array(&kids, &kcap, n + 1, sizeof *kids);
					kids[n++] = k;
				}
			qsort_r(kids, n, sizeof *kids, by_inclusive, (void *)r);
		}
		grow_array(&stack, &cap, sp + n, sizeof *stack);
		for (size_t k = n; k-- > 0;)
			stack[sp++] = (struct item){ kids[k], it.level + 1 };
	}
	free(stack);
	free(kids);
}

/* ---- callers ------------------------------------------------------------ */

struct proc_total {
	char *procedure, *module, *file;
	double incl, excl;
};

static int by_exclusive(const void *a, const void *b)
{
	const struct proc_total *x = a, *y = b;
	if (x->excl != y->excl)
		return x->excl < y->excl ? 1 : -1;
	if (x->incl != y->incl)
		return x->incl < y->incl ? 1 : -1;
	return strcmp(x->procedure ? x->procedure : "", y->procedure ? y->procedure : "");
}

static struct proc_total *load_procedures(const struct report *r, size_t *count)
{
	sqlite3_stmt *s = NULL;
	struct proc_total *p = NULL;
	size_t n = 0, cap = 0;
	if (sqlite3_prepare_v2(r->db, "SELECT procedure, module, file, inclusive, exclusive FROM "
			       "procedure_metrics WHERE event = ? AND metric = ?", -1, &s, NULL) !=
	    SQLITE_OK) {
		fail("%s: %s", r->path, sqlite3_errmsg(r->db));
		exit(1);
	}
	sqlite3_bind_text(s, 1, r->event, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(s, 2, r->metric, -1, SQLITE_TRANSIENT);
	while (sqlite3_step(s) == SQLITE_ROW) {
		grow_array(&p, &cap, n + 1, sizeof *p);
		p[n].procedure = column_text(s, 0);
		p[n].module = column_text(s, 1);
		p[n].file = column_text(s, 2);
		p[n].incl = sqlite3_column_double(s, 3);
		p[n].excl = sqlite3_column_double(s, 4);
		n++;
	}
	sqlite3_finalize(s);
	qsort(p, n, sizeof *p, by_exclusive);
	*count = n;
	return p;
}

static void free_procedures(struct proc_total *p, size_t n)
{
	for (size_t q = 0; q < n; q++) {
		free(p[q].procedure);
		free(p[q].module);
		free(p[q].file);
	}
	free(p);
}

/* A procedure's name and values: as CSV fields (procedure to
 * inclusive_percent, no line end), or as the text columns before its
 * name. */
static void procedure_values(const struct report *r, const struct proc_total *p)
{
	if (r->csv) {
		put_csv(p->procedure);
		putchar(',');
		put_csv(p->module);
		putchar(',');
		put_csv(p->file);
		printf(",%.9g,%.4f,%.9g,%.4f", p->excl, pct(r, p->excl), p->incl, pct(r, p->incl));
		return;
	}
	value(r, p->excl);
	printf(" %6.1f ", pct(r, p->excl));
	value(r, p->incl);
	printf(" %6.1f  ", pct(r, p->incl));
}

static int same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static int is_frame(const struct ctx *c)
{
	return c->kind == 'f' || c->kind == 'i';
}

/* The frame that called frame F (through its call site), or UINT32_MAX at
 * a root. */
static uint32_t caller_of(const struct report *r, uint32_t f)
{
	uint32_t p = r->c[f].parent;
	while (p != UINT32_MAX && !is_frame(&r->c[p]))
		p = r->c[p].parent;
	return p;
}

struct chain {
	uint32_t frame[8];	/* callers, nearest first */
	uint32_t n;
	double value;		/* inclusive value of the procedure's frame */
};

#define MAX_LEVELS 8

/* The name of a chain's caller at LEVEL (0 = nearest); the program root
 * just past the end of the chain, NULL beyond that. */
static const char *caller_name(const struct report *r, const struct chain *c, uint32_t level)
{
	if (level < c->n)
		return r->c[c->frame[level]].procedure ? r->c[c->frame[level]].procedure : "?";
	return level == c->n ? "<program root>" : NULL;
}

static int name_cmp(const char *a, const char *b)
{
	if (!a || !b)
		return (a != NULL) - (b != NULL);
	return strcmp(a, b);
}

static const struct report *sort_report;
static int by_caller_names(const void *a, const void *b)
{
	const struct chain *x = a, *y = b;
	for (uint32_t k = 0; k < MAX_LEVELS; k++) {
		int d = name_cmp(caller_name(sort_report, x, k), caller_name(sort_report, y, k));
		if (d)
			return d;
	}
	return 0;
}

struct group {
	size_t lo, hi;
	double sum;
};

static int by_sum(const void *a, const void *b)
{
	const struct group *x = a, *y = b;
	return x->sum < y->sum ? 1 : x->sum > y->sum ? -1 : (x->lo > y->lo) - (x->lo < y->lo);
}

static void print_caller_row(const struct report *r, const struct proc_total *p, int level,
			     const char *name, double sum)
{
	double share = p->incl > 0 ? 100 * sum / p->incl : 0;
	if (r->csv) {
		put_csv(p->procedure);
		putchar(',');
		put_csv(p->module);
		putchar(',');
		put_csv(p->file);
		printf(",,,,,%d,", level);
		put_csv(name);
		printf(",%.9g,%.4f\n", sum, share);
		return;
	}
	int indent = 2 * (level - 1);
	printf("%35s%*s%5.1f%%  ", "", indent, "", share);
	put_safe(name, 100 - 43 - indent);
	putchar('\n');
}

/* Prints the callers at LEVEL (1 = direct) of the chains CH[LO..HI),
 * which agree on every nearer level, grouped by name, hottest first. */
static void print_callers(const struct report *r, const struct proc_total *p, struct chain *ch,
			  size_t lo, size_t hi, int level, int levels)
{
	struct group *g = NULL;
	size_t ng = 0, cap = 0;
	for (size_t i = lo; i < hi;) {
		const char *name = caller_name(r, &ch[i], (uint32_t)level - 1);
		size_t j = i;
		double sum = 0;
		while (j < hi && name_cmp(caller_name(r, &ch[j], (uint32_t)level - 1), name) == 0)
			sum += ch[j++].value;
		if (name) {
			grow_array(&g, &cap, ng + 1, sizeof *g);
			g[ng++] = (struct group){ i, j, sum };
		}
		i = j;
	}
	qsort(g, ng, sizeof *g, by_sum);
	for (size_t k = 0; k < ng; k++) {
		if (g[k].sum < r->threshold || g[k].sum <= 0)
			continue;
		const char *name = caller_name(r, &ch[g[k].lo], (uint32_t)level - 1);
		print_caller_row(r, p, level, name, g[k].sum);
		if (level < levels && strcmp(name, "<program root>") != 0)
			print_callers(r, p, ch, g[k].lo, g[k].hi, level + 1, levels);
	}
	free(g);
}

static void callers(const struct report *r)
{
	size_t nproc;
	struct proc_total *p = load_procedures(r, &nproc);
	int levels = r->depth > 0 ? (r->depth > MAX_LEVELS ? MAX_LEVELS : r->depth) : 1;
	struct chain *ch = NULL;
	size_t cap = 0;

	if (r->csv)
		printf("procedure,module,file,exclusive,exclusive_percent,inclusive,"
		       "inclusive_percent,caller_level,caller,value,share_percent\n");
	else {
		header(r, "callers");
		printf("%9s %6s %9s %6s  %s\n", "exclusive", "%", "inclusive", "%",
		       "procedure, then who called it and its share of that");
	}
	for (size_t q = 0; q < nproc; q++) {
		if (p[q].incl < r->threshold && p[q].excl < r->threshold)
			continue;
		procedure_values(r, &p[q]);
		if (r->csv) {
			printf(",0,,,\n");
		} else {
			char text[512];
			snprintf(text, sizeof text, "%s  (%s)", p[q].procedure ? p[q].procedure : "?",
				 base_name(p[q].file ? p[q].file : p[q].module ? p[q].module : "?"));
			put_safe(text, 100 - 35);
			putchar('\n');
		}
		/* Every frame of the procedure, with the chain of its callers. */
		size_t n = 0;
		for (size_t i = 0; i < r->n; i++) {
			const struct ctx *c = &r->c[i];
			if (!is_frame(c) || c->incl == 0 || !same_str(c->procedure, p[q].procedure) ||
			    !same_str(c->module, p[q].module) || !same_str(c->file, p[q].file))
				continue;
			grow_array(&ch, &cap, n + 1, sizeof *ch);
			struct chain *k = &ch[n++];
			k->n = 0;
			k->value = c->incl;
			for (uint32_t f = caller_of(r, (uint32_t)i); f != UINT32_MAX && k->n < MAX_LEVELS;
			     f = caller_of(r, f))
				k->frame[k->n++] = f;
		}
		sort_report = r;
		qsort(ch, n, sizeof *ch, by_caller_names);
		print_callers(r, &p[q], ch, 0, n, 1, levels);
	}
	free_procedures(p, nproc);
	free(ch);
}

/* ---- flat ----------------------------------------------------------------- */

static void flat(const struct report *r)
{
	size_t nproc;
	struct proc_total *p = load_procedures(r, &nproc);

	if (r->csv)
		printf("procedure,module,file,exclusive,exclusive_percent,inclusive,"
		       "inclusive_percent\n");
	else {
		header(r, "flat");
		printf("%9s %6s %9s %6s  %-30s %s\n", "exclusive", "%", "inclusive", "%", "procedure",
		       "file or module");
	}
	for (size_t q = 0; q < nproc; q++) {
		if (p[q].incl < r->threshold && p[q].excl < r->threshold)
			continue;
		procedure_values(r, &p[q]);
		if (r->csv) {
			putchar('\n');
			continue;
		}
		const char *name = p[q].procedure ? p[q].procedure : "?";
		put_safe(name, 30);
		int used = (int)strlen(name) > 30 ? 30 : (int)strlen(name);
		printf("%*s ", 30 - used, "");
		put_safe(p[q].file ? base_name(p[q].file) : base_name(p[q].module), 100 - 35 - 31);
		putchar('\n');
	}
	free_procedures(p, nproc);
}

/* ---- diagnoses ------------------------------------------------------------ */

/* The frames from the program's main (or the outermost one) to context
 * I, as "main > a > b", in at most WIDTH characters: when the whole path
 * is longer, the first frame and as many of the last as fit. */
static void frame_path(const struct report *r, uint32_t i, char *buf, size_t size, size_t width)
{
	uint32_t f[64];
	size_t n = 0;
	for (uint32_t k = i; k != UINT32_MAX && n < 64; k = caller_of(r, k)) {
		if (!is_frame(&r->c[k]))
			continue;
		f[n++] = k;
		if (r->c[k].procedure && strcmp(r->c[k].procedure, "main") == 0)
			break;
	}
#define NAME(k) (r->c[f[k]].procedure ? r->c[f[k]].procedure : "?")
	/* The last frames that fit beside the first and "... > ". */
	size_t keep = 0, len = n ? strlen(NAME(n - 1)) : 0;
	while (keep + 1 < n) {
		size_t more = strlen(NAME(keep)) + 3;
		size_t elided = keep + 2 < n ? 6 : 0;
		if (len + more + elided > width)
			break;
		len += more;
		keep++;
	}
	size_t used = 0;
	buf[0] = 0;
	if (n)
		used += (size_t)snprintf(buf, size, "%s", NAME(n - 1));
	if (keep + 1 < n)
		used += (size_t)snprintf(buf + used, size - used, " > ...");
	for (size_t k = keep; k-- > 0 && used < size;)
		used += (size_t)snprintf(buf + used, size - used, " > %s", NAME(k));
#undef NAME
}

static int need_schema2(const struct report *r, const char *what)
{
	sqlite3_stmt *s = NULL;
	int ok = sqlite3_prepare_v2(r->db, "SELECT 1 FROM diagnoses LIMIT 1", -1, &s, NULL) ==
		 SQLITE_OK;
	sqlite3_finalize(s);
	if (ok)
		return 0;
	return fail("%s was made by an older culprit prof, without %s; make it again with "
		    "culprit prof --force", r->path, what);
}

static double info_number(const struct report *r, const char *key, double fallback)
{
	sqlite3_stmt *s = NULL;
	double v = fallback;
	if (sqlite3_prepare_v2(r->db, "SELECT value FROM culprit_info WHERE key = ?", -1, &s, NULL) ==
	    SQLITE_OK) {
		sqlite3_bind_text(s, 1, key, -1, SQLITE_STATIC);
		if (sqlite3_step(s) == SQLITE_ROW)
			v = sqlite3_column_double(s, 0);
	}
	sqlite3_finalize(s);
	return v;
}

/* The diagnoses listed for one event, in rank order.  Databases from
 * before the scope and runtime columns read as diagnoses of whole
 * contexts, with nothing said about runtime calls. */
static sqlite3_stmt *listed_diagnoses(const struct report *r)
{
	static const char *const sql[] = {
		"SELECT context_id, rank, diagnosis, advice, effort, effort_percent, "
		"idleness_percent, overhead_percent, waste_percent, scope, runtime_percent, runtime "
		"FROM diagnoses WHERE event = ? AND rank IS NOT NULL ORDER BY rank",
		"SELECT context_id, rank, diagnosis, advice, effort, effort_percent, "
		"idleness_percent, overhead_percent, waste_percent, 'inclusive', NULL, NULL "
		"FROM diagnoses WHERE event = ? AND rank IS NOT NULL ORDER BY rank",
	};
	sqlite3_stmt *s = NULL;
	for (size_t k = 0; k < sizeof sql / sizeof *sql; k++) {
		if (sqlite3_prepare_v2(r->db, sql[k], -1, &s, NULL) == SQLITE_OK) {
			sqlite3_bind_text(s, 1, r->event, -1, SQLITE_TRANSIENT);
			return s;
		}
		sqlite3_finalize(s);
		s = NULL;
	}
	return NULL;
}

/* One diagnosis as a CSV row (the header is in diagnose()). */
static void diagnosis_csv(sqlite3_stmt *s, const struct ctx *c, sqlite3_int64 id, const char *path)
{
	printf("%d,%lld,", sqlite3_column_int(s, 1), (long long)id);
	put_csv((const char *)sqlite3_column_text(s, 2));
	putchar(',');
	put_csv(c->procedure);
	putchar(',');
	put_csv(c->file);
	printf(",%d,", c->line);
	put_csv(path);
	printf(",%.9g,%.4f,%.4f,%.4f,%.4f,", sqlite3_column_double(s, 4),
	       sqlite3_column_double(s, 5), sqlite3_column_double(s, 6),
	       sqlite3_column_double(s, 7), sqlite3_column_double(s, 8));
	put_csv((const char *)sqlite3_column_text(s, 3));
	putchar(',');
	put_csv((const char *)sqlite3_column_text(s, 9));
	if (sqlite3_column_type(s, 10) != SQLITE_NULL)
		printf(",%.4f,", sqlite3_column_double(s, 10));
	else
		printf(",,");
	put_csv((const char *)sqlite3_column_text(s, 11));
	putchar('\n');
}

/* One diagnosis as text: what and where, the path, the numbers behind
 * it, the runtime calls that hold its idleness and overhead, the advice. */
static void diagnosis_text(const struct report *r, sqlite3_stmt *s, const struct ctx *c,
			   const char *path)
{
	const char *diag = (const char *)sqlite3_column_text(s, 2);
	const char *advice = (const char *)sqlite3_column_text(s, 3);
	const char *scope = (const char *)sqlite3_column_text(s, 9);
	const char *calls = (const char *)sqlite3_column_text(s, 11);
	int runtime = scope && strcmp(scope, "runtime") == 0;
	char line[512];
	snprintf(line, sizeof line, "%2d. %s: %s%s", sqlite3_column_int(s, 1), diag ? diag : "?",
		 c->procedure ? c->procedure : "?", runtime ? ", its runtime calls" : "");
	put_safe(line, 100);
	if (c->file) {
		printf("  (");
		put_safe(base_name(c->file), 40);
		printf(":%d)", c->line);
	}
	printf("\n    ");
	put_safe(path, 96);
	printf("\n    %s %s, %.1f%% of all effort: idleness %.1f%%, overhead %.1f%% of it "
	       "(%.1f%% of all)\n", amount(r->unit, sqlite3_column_double(s, 4)), r->unit,
	       sqlite3_column_double(s, 5), sqlite3_column_double(s, 6),
	       sqlite3_column_double(s, 7), sqlite3_column_double(s, 8));
	if (calls) {
		printf("    in runtime calls: ");
		put_safe(calls, 100 - 22);
		putchar('\n');
	}
	printf("    -> ");
	put_safe(advice, 93);
	printf("\n\n");
}

static int diagnose(const struct report *r)
{
	if (need_schema2(r, "diagnoses"))
		return 1;
	sqlite3_stmt *s = listed_diagnoses(r);
	if (!s)
		return fail("%s: %s", r->path, sqlite3_errmsg(r->db));
	double ti = info_number(r, "diagnose_idleness_percent", 20);
	double to = info_number(r, "diagnose_overhead_percent", 20);
	double ts = info_number(r, "diagnose_share_percent", 2);
	if (r->csv)
		printf("rank,context_id,diagnosis,procedure,file,line,path,effort,effort_percent,"
		       "idleness_percent,overhead_percent,waste_percent,advice,scope,"
		       "runtime_percent,runtime\n");
	else {
		printf("culprit report: ");
		put_safe(r->path, 60);
		printf(" (diagnoses)\n%s: effort (work + idleness) %s %s.  A context is diagnosed "
		       "when its\nidleness is at least %g%% or its overhead at least %g%% of its "
		       "effort, and the two\ntogether at least %g%% of all effort.  Diagnoses name "
		       "the program's own frames:\nruntime and system code counts for the frame "
		       "that called it (\"in runtime calls\":\nthe calls that hold its idleness "
		       "and overhead, with their shares).\n\n", r->event, amount(r->unit, r->base),
		       r->unit, ti, to, ts);
	}
	int rows = 0;
	while (sqlite3_step(s) == SQLITE_ROW) {
		sqlite3_int64 id = sqlite3_column_int64(s, 0) - 1;
		if (id < 0 || (size_t)id >= r->n)
			continue;
		char path[512];
		frame_path(r, (uint32_t)id, path, sizeof path, r->csv ? 400 : 94);
		rows++;
		if (r->csv)
			diagnosis_csv(s, &r->c[id], id + 1, path);
		else
			diagnosis_text(r, s, &r->c[id], path);
	}
	sqlite3_finalize(s);
	if (!rows && !r->csv)
		printf("Nothing to diagnose: no context has that much idleness or overhead.\n");
	return 0;
}

/* ---- summary -------------------------------------------------------------- */

static const char *cause_label(const char *metric)
{
	if (strcmp(metric, "idleness:serial") == 0)
		return "serialization";
	if (strcmp(metric, "idleness:barrier") == 0)
		return "imbalance at barriers";
	if (strcmp(metric, "idleness:lock") == 0)
		return "synchronization (locks)";
	if (strcmp(metric, "idleness:taskwait") == 0)
		return "waiting for child tasks";
	return NULL;
}

/* The order of the summary's rows: useful work, overhead by size, idleness
 * by cause. */
static const char summary_order[] =
	"CASE category WHEN 'useful work' THEN 0 WHEN 'overhead' THEN 1 ELSE 2 END, "
	"CASE metric WHEN 'idleness:serial' THEN 0 WHEN 'idleness:barrier' THEN 1 "
	"WHEN 'idleness:lock' THEN 2 WHEN 'idleness:taskwait' THEN 3 ELSE 4 END";

/* The summary's last part: what culprit took, and samples that lost part
 * of their path (databases before schema 3 have none of it). */
static int summary_quality(const struct report *r)
{
	static const char *const label[][2] = {
		{ "culprit", "culprit itself" },
		{ "culprit:callbacks", "  in its callbacks" },
		{ "culprit:handler", "  in its sample handler" },
		{ "samples", "samples taken" },
		{ "samples:partial", "  with a partial path" },
		{ "samples:truncated", "  cut at the depth limit" },
		{ "samples:dropped", "  dropped" },
	};
	sqlite3_stmt *s = NULL;
	if (sqlite3_prepare_v2(r->db, "SELECT value, unit, percent, advice FROM "
			       "measurement_quality WHERE item = ?", -1, &s, NULL) != SQLITE_OK)
		return 0;
	if (!r->csv)
		printf("\nhow far to trust it, %% of the threads' sampled time or of samples:\n");
	for (size_t i = 0; i < sizeof label / sizeof label[0]; i++) {
		sqlite3_bind_text(s, 1, label[i][0], -1, SQLITE_STATIC);
		if (sqlite3_step(s) == SQLITE_ROW) {
			double v = sqlite3_column_double(s, 0), p = sqlite3_column_double(s, 2);
			const char *unit = (const char *)sqlite3_column_text(s, 1);
			int secs = unit && strcmp(unit, "seconds") == 0;
			if (r->csv)
				printf(",,quality,%s,%s,%.9g,%.4f\n", label[i][0], unit ? unit : "", v, p);
			else if (secs)
				printf("%-28s %12s s %7.1f\n", label[i][1], amount("seconds", v), p);
			else
				printf("%-28s %12.0f   %7.1f\n", label[i][1], v, p);
		}
		sqlite3_reset(s);
	}
	sqlite3_finalize(s);
	return 0;
}

static int summary(const struct report *r)
{
	if (need_schema2(r, "the effort metrics"))
		return 1;
	char *sql = xasprintf("SELECT category, metric, value, percent FROM effort_summary "
			      "WHERE event = ? ORDER BY %s, value DESC, metric", summary_order);
	sqlite3_stmt *s = NULL;
	int ok = sqlite3_prepare_v2(r->db, sql, -1, &s, NULL) == SQLITE_OK;
	free(sql);
	if (!ok)
		return fail("%s: %s", r->path, sqlite3_errmsg(r->db));
	sqlite3_bind_text(s, 1, r->event, -1, SQLITE_TRANSIENT);
	if (r->csv)
		printf("thread_id,thread,category,metric,part,value,percent\n");
	else {
		printf("culprit report: ");
		put_safe(r->path, 60);
		printf(" (summary)\n%s: where the effort went; effort = work + idleness = %s %s\n\n",
		       r->event, amount(r->unit, r->base), r->unit);
		printf("%-12s %-40s %12s %7s\n", "category", "part", r->unit, "%");
	}
	double sum = 0, psum = 0;
	while (sqlite3_step(s) == SQLITE_ROW) {
		const char *cat = (const char *)sqlite3_column_text(s, 0);
		const char *metric = (const char *)sqlite3_column_text(s, 1);
		double v = sqlite3_column_double(s, 2), p = sqlite3_column_double(s, 3);
		const char *label = cause_label(metric);
		char part[128];
		if (strcmp(cat, "overhead") == 0)
			snprintf(part, sizeof part, "%s", metric + 9);
		else if (label)
			snprintf(part, sizeof part, "%s", label);
		else
			part[0] = 0;
		sum += v;
		psum += p;
		if (r->csv) {
			printf(",,");
			put_csv(cat);
			putchar(',');
			put_csv(metric);
			putchar(',');
			put_csv(part);
			printf(",%.9g,%.4f\n", v, p);
			continue;
		}
		if (strcmp(cat, "overhead") == 0 && v == 0)
			continue;	/* types of other runtimes */
		printf("%-12s ", cat);
		put_safe(part, 40);
		printf("%*s %12s %7.1f\n", 40 - (int)strlen(part) > 0 ? 40 - (int)strlen(part) : 0, "",
		       amount(r->unit, v), p);
	}
	sqlite3_finalize(s);
	if (!r->csv)
		printf("%-12s %-40s %12s %7.1f\n\n", "total", "", amount(r->unit, sum), psum);

	/* Each thread, as a share of its own effort. */
	sql = xasprintf("SELECT t.id, t.tid, t.name, e.value, "
			"(SELECT percent FROM thread_metrics m WHERE m.thread_id = t.id AND "
			"  m.event = e.event AND m.metric = 'useful_work'), "
			"(SELECT sum(percent) FROM thread_metrics m WHERE m.thread_id = t.id AND "
			"  m.event = e.event AND m.metric LIKE 'overhead:%%'), "
			"(SELECT percent FROM thread_metrics m WHERE m.thread_id = t.id AND "
			"  m.event = e.event AND m.metric = 'idleness:serial'), "
			"(SELECT percent FROM thread_metrics m WHERE m.thread_id = t.id AND "
			"  m.event = e.event AND m.metric = 'idleness:barrier'), "
			"(SELECT percent FROM thread_metrics m WHERE m.thread_id = t.id AND "
			"  m.event = e.event AND m.metric = 'idleness:lock'), "
			"(SELECT percent FROM thread_metrics m WHERE m.thread_id = t.id AND "
			"  m.event = e.event AND m.metric = 'idleness:taskwait') "
			"FROM threads t JOIN thread_metrics e ON e.thread_id = t.id "
			"WHERE e.event = ? AND e.metric = 'effort' AND e.value > 0 ORDER BY t.id");
	ok = sqlite3_prepare_v2(r->db, sql, -1, &s, NULL) == SQLITE_OK;
	free(sql);
	if (!ok)
		return fail("%s: %s", r->path, sqlite3_errmsg(r->db));
	sqlite3_bind_text(s, 1, r->event, -1, SQLITE_TRANSIENT);
	static const char *const parts[] = { "useful work", "overhead", "serialization",
					     "imbalance at barriers", "synchronization (locks)",
					     "waiting for child tasks" };
	static const char *const metrics[] = { "useful_work", "overhead", "idleness:serial",
					       "idleness:barrier", "idleness:lock",
					       "idleness:taskwait" };
	if (!r->csv)
		printf("per thread, %% of its own effort:\n%6s %8s %-16s %10s %7s %8s %7s %7s "
		       "%7s %8s\n", "thread", "tid", "name", r->unit, "useful", "overhead", "serial",
		       "barrier", "lock", "taskwait");
	while (sqlite3_step(s) == SQLITE_ROW) {
		int id = sqlite3_column_int(s, 0);
		const char *name = (const char *)sqlite3_column_text(s, 2);
		double effort = sqlite3_column_double(s, 3);
		if (r->csv) {
			for (int k = 0; k < 6; k++) {
				printf("%d,", id);
				put_csv(name);
				printf(",%s,%s,%s,%.9g,%.4f\n", k == 0 ? "useful work" : k == 1 ? "overhead"
				       : "idleness", metrics[k], parts[k],
				       effort * sqlite3_column_double(s, 4 + k) / 100,
				       sqlite3_column_double(s, 4 + k));
			}
			continue;
		}
		printf("%6d %8d ", id, sqlite3_column_int(s, 1));
		put_safe(name ? name : "", 16);
		int len = name ? (int)strlen(name) : 0;
		printf("%*s %10s", len < 16 ? 16 - len : 0, "", amount(r->unit, effort));
		printf(" %7.1f %8.1f %7.1f %7.1f %7.1f %8.1f\n", sqlite3_column_double(s, 4),
		       sqlite3_column_double(s, 5), sqlite3_column_double(s, 6),
		       sqlite3_column_double(s, 7), sqlite3_column_double(s, 8),
		       sqlite3_column_double(s, 9));
	}
	sqlite3_finalize(s);
	return summary_quality(r);
}

int cmd_report(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "view", required_argument, NULL, 'v' },
		{ "event", required_argument, NULL, 'e' },
		{ "metric", required_argument, NULL, 'm' },
		{ "threshold", required_argument, NULL, 't' },
		{ "depth", required_argument, NULL, 'd' },
		{ "format", required_argument, NULL, 'f' },
		{ "diagnose", no_argument, NULL, 'D' },
		{ "summary", no_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	enum view view = VIEW_TOPDOWN;
	const char *event = NULL, *metric = NULL, *threshold = "1%";
	struct report r;
	int c;
	char *end;

	memset(&r, 0, sizeof r);
	r.depth = -1;
	argv[0] = "culprit report";
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'v':
			if (strcmp(optarg, "top-down") == 0 || strcmp(optarg, "topdown") == 0)
				view = VIEW_TOPDOWN;
			else if (strcmp(optarg, "callers") == 0 || strcmp(optarg, "bottom-up") == 0)
				view = VIEW_CALLERS;
			else if (strcmp(optarg, "flat") == 0)
				view = VIEW_FLAT;
			else {
				fprintf(stderr, "culprit report: unknown view '%s'; use top-down, callers "
					"or flat\n", optarg);
				return 2;
			}
			break;
		case 'e': event = optarg; break;
		case 'm': metric = optarg; break;
		case 't': threshold = optarg; break;
		case 'd':
			r.depth = (int)strtol(optarg, &end, 10);
			if (*end || r.depth < 1) {
				fprintf(stderr, "culprit report: --depth needs a positive number\n");
				return 2;
			}
			break;
		case 'f':
			if (strcmp(optarg, "csv") == 0)
				r.csv = 1;
			else if (strcmp(optarg, "text") != 0) {
				fprintf(stderr, "culprit report: unknown format '%s'; use text or csv\n",
					optarg);
				return 2;
			}
			break;
		case 'D': view = VIEW_DIAGNOSE; break;
		case 'S': view = VIEW_SUMMARY; break;
		case 'h': fputs(report_usage, stdout); return 0;
		default: fputs(report_usage, stderr); return 2;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "culprit report: give one database (see culprit report --help)\n");
		return 2;
	}
	double t = strtod(threshold, &end);
	int percent = *end == '%';
	if (end == threshold || (*end && !percent) || (percent && end[1]) || t < 0 || !isfinite(t)) {
		fprintf(stderr, "culprit report: --threshold takes a percentage (1%%) or a value (0.5)\n");
		return 2;
	}
	r.path = argv[optind];
	char err[600];
	r.db = db_open_read(r.path, err, sizeof err);
	if (!r.db)
		return fail("%s", err);
	/* The diagnoses and the summary are about effort. */
	if (view == VIEW_DIAGNOSE || view == VIEW_SUMMARY)
		metric = "effort";
	int rc = choose_metric(&r, event, metric) || (view != VIEW_SUMMARY && load_tree(&r));
	if (!rc) {
		r.threshold = percent ? t / 100 * r.total : t;
		if (view == VIEW_TOPDOWN)
			topdown(&r);
		else if (view == VIEW_CALLERS)
			callers(&r);
		else if (view == VIEW_FLAT)
			flat(&r);
		else if (view == VIEW_DIAGNOSE)
			rc = diagnose(&r);
		else
			rc = summary(&r);
		fflush(stdout);
	}
	for (size_t i = 0; i < r.n; i++) {
		free(r.c[i].procedure);
		free(r.c[i].module);
		free(r.c[i].file);
	}
	free(r.c);
	free(r.event);
	free(r.metric);
	free(r.unit);
	sqlite3_close(r.db);
	return rc;
}
