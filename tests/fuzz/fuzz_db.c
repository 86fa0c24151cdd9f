/* fuzz_db.c - libFuzzer target for the database read layer (dbread/),
 * under culprit report and culprit view.
 *
 * A database is not a byte format to mutate: random bytes are "not a
 * database" to SQLite long before they reach us.  So each input is a list
 * of edits to a real database (CULPRIT_FUZZ_DB, made by tests/fuzz/run.sh
 * with culprit run and prof): values replaced by hostile ones (NULL,
 * extremes, NaN, wrong types, long or control-laden text), rows deleted
 * or repeated, tables or views dropped.  The edited database goes through
 * every dbr_* reader, as report and view call them.  A reader must fail
 * with one line of error, or return what its header promises: a tree whose
 * parents come before their children and whose child lists visit each
 * context once, paths that end, callers that are contexts.  Anything else
 * aborts, which libFuzzer reports as a crash; so do ASan and UBSan.
 *
 * Build: make fuzz (clang -fsanitize=fuzzer,address,undefined).
 */
#include "dbread.h"

#include <math.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHECK(cond)                                                          \
	do {                                                                 \
		if (!(cond)) {                                               \
			fprintf(stderr, "fuzz_db: invariant failed: %s (%s:%d)\n", \
				#cond, __FILE__, __LINE__);                  \
			abort();                                             \
		}                                                            \
	} while (0)

#define MAX_EDITS 16
#define MAX_NAMES 64

static unsigned char *template_db;	/* the real database, as bytes */
static sqlite3_int64 template_size;
static char edited_path[256];		/* where each edited database goes */
static volatile double sink;

/* ---- the input, read as edits ---------------------------------------------- */

struct input {
	const uint8_t *p;
	size_t left;
};

static unsigned take(struct input *in, unsigned bytes)
{
	unsigned v = 0;
	for (unsigned i = 0; i < bytes && in->left; i++, in->left--)
		v = v << 8 | *in->p++;
	return v;
}

static uint64_t take64(struct input *in)
{
	return (uint64_t)take(in, 4) << 32 | take(in, 4);
}

/* Binds a hostile value chosen by the input to parameter 1 of S. */
static void bind_hostile(sqlite3_stmt *s, struct input *in)
{
	static const char *const words[] = { "frame", "root", "callsite", "inlined", "statement",
					     "work", "cputime", "", "x", "\x1b[2J\x9b" };
	static char text[512];
	uint64_t bits;
	double d;
	switch (take(in, 1) % 9) {
	case 0: sqlite3_bind_null(s, 1); break;
	case 1: sqlite3_bind_int64(s, 1, (sqlite3_int64)take64(in)); break;
	case 2:
		bits = take64(in);
		memcpy(&d, &bits, sizeof d);
		sqlite3_bind_double(s, 1, d);	/* NaN and infinities included */
		break;
	case 3: sqlite3_bind_int64(s, 1, (int)(take(in, 1) % 9) - 4); break;
	case 4: sqlite3_bind_text(s, 1, words[take(in, 1) % 10], -1, SQLITE_STATIC); break;
	case 5: {
		unsigned n = take(in, 1);
		for (unsigned i = 0; i < n; i++)
			text[i] = (char)take(in, 1);
		sqlite3_bind_text(s, 1, text, (int)n, SQLITE_TRANSIENT);	/* any bytes */
		break;
	}
	case 6: sqlite3_bind_blob(s, 1, "\0\xff", 2, SQLITE_STATIC); break;
	case 7: sqlite3_bind_int64(s, 1, take(in, 1) & 1 ? INT64_MAX : INT64_MIN); break;
	default: sqlite3_bind_double(s, 1, take(in, 1) & 1 ? 1e308 : -1e308); break;
	}
}

/* The names of DB's tables (or, with VIEWS, its tables and views). */
static size_t names(sqlite3 *db, int views, char out[][64])
{
	sqlite3_stmt *s;
	size_t n = 0;
	const char *sql = views ? "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') "
				  "AND name NOT LIKE 'sqlite_%' ORDER BY name"
				: "SELECT name FROM sqlite_master WHERE type = 'table' "
				  "AND name NOT LIKE 'sqlite_%' ORDER BY name";
	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
		return 0;
	while (n < MAX_NAMES && sqlite3_step(s) == SQLITE_ROW)
		snprintf(out[n++], 64, "%s", (const char *)sqlite3_column_text(s, 0));
	sqlite3_finalize(s);
	return n;
}

/* One edit of one row of TABLE, chosen by the input: a value replaced, the
 * row deleted or repeated.  Rows are named by all their values, so that
 * WITHOUT ROWID tables are edited as the others. */
static void edit_row(sqlite3 *db, const char *table, unsigned op, struct input *in)
{
	char sql[4096];
	sqlite3_stmt *row, *s;
	snprintf(sql, sizeof sql, "SELECT * FROM \"%s\" LIMIT 1 OFFSET %u", table, take(in, 2));
	if (sqlite3_prepare_v2(db, sql, -1, &row, NULL) != SQLITE_OK)
		return;
	if (sqlite3_step(row) != SQLITE_ROW) {
		sqlite3_finalize(row);
		return;
	}
	int ncols = sqlite3_column_count(row);
	int col = (int)(take(in, 1) % (unsigned)ncols);
	size_t len = 0;
	if (op == 6) {
		len += (size_t)snprintf(sql, sizeof sql, "INSERT INTO \"%s\" SELECT * FROM \"%s\" WHERE ",
					table, table);
	} else if (op == 5) {
		len += (size_t)snprintf(sql, sizeof sql, "DELETE FROM \"%s\" WHERE ", table);
	} else {
		len += (size_t)snprintf(sql, sizeof sql, "UPDATE \"%s\" SET \"%s\" = ?1 WHERE ", table,
					sqlite3_column_name(row, col));
	}
	for (int c = 0; c < ncols && len < sizeof sql - 200; c++)
		len += (size_t)snprintf(sql + len, sizeof sql - len, "%s\"%s\" IS ?%d",
					c ? " AND " : "", sqlite3_column_name(row, c), c + 2);
	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK) {
		if (op < 5)
			bind_hostile(s, in);
		for (int c = 0; c < ncols; c++)
			sqlite3_bind_value(s, c + 2, sqlite3_column_value(row, c));
		sqlite3_step(s);	/* a constraint may say no: fine */
		sqlite3_finalize(s);
	}
	sqlite3_finalize(row);
}

/* The template with the input's edits, written to edited_path.  Returns
 * 0, or -1 when SQLite could not make it (not the reader's concern). */
static int make_edited(const uint8_t *data, size_t size)
{
	sqlite3 *db;
	struct input in = { data, size };
	if (sqlite3_open(":memory:", &db) != SQLITE_OK)
		return -1;
	unsigned char *copy = sqlite3_malloc64((sqlite3_uint64)template_size);
	if (!copy) {
		sqlite3_close(db);
		return -1;
	}
	memcpy(copy, template_db, (size_t)template_size);
	if (sqlite3_deserialize(db, "main", copy, template_size, template_size,
				SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_RESIZEABLE) !=
	    SQLITE_OK) {
		sqlite3_close(db);
		return -1;
	}
	char tables[MAX_NAMES][64];
	for (int e = 0; e < MAX_EDITS && in.left >= 2; e++) {
		unsigned op = take(&in, 1) % 16;
		if (op == 15) {		/* rarely: a table or view goes */
			size_t n = names(db, 1, tables);
			if (n) {
				char sql[128];
				const char *t = tables[take(&in, 1) % n];
				snprintf(sql, sizeof sql, "DROP TABLE IF EXISTS \"%s\"", t);
				sqlite3_exec(db, sql, NULL, NULL, NULL);
				snprintf(sql, sizeof sql, "DROP VIEW IF EXISTS \"%s\"", t);
				sqlite3_exec(db, sql, NULL, NULL, NULL);
			}
			continue;
		}
		size_t n = names(db, 0, tables);
		if (n)
			edit_row(db, tables[take(&in, 1) % n], op < 5 ? op : op < 10 ? 5 + op % 2 : op % 5,
				 &in);
	}
	sqlite3_int64 bytes = 0;
	unsigned char *out = sqlite3_serialize(db, "main", &bytes, 0);
	sqlite3_close(db);
	if (!out)
		return -1;
	FILE *f = fopen(edited_path, "wb");
	int ok = f && fwrite(out, 1, (size_t)bytes, f) == (size_t)bytes;
	if (f && fclose(f) != 0)
		ok = 0;
	sqlite3_free(out);
	return ok ? 0 : -1;
}

/* ---- the readers ----------------------------------------------------------- */

/* What a reader's failure must leave: one line saying why. */
static void check_error(const char *e)
{
	CHECK(e && e[0]);
	CHECK(!strchr(e, '\n'));
}

static size_t metrics_of(struct dbr *r, const char *event, char out[][64])
{
	char **all;
	size_t count, n = 0;
	if (dbr_event_metrics(r, event, &all, &count) < 0)
		return 0;
	for (size_t i = 0; i < count; i++) {
		if (n < 8 && all[i])
			snprintf(out[n++], 64, "%s", all[i]);
		free(all[i]);
	}
	free(all);
	return n;
}

/* The tree's promises: parents before children, each context in its
 * parent's child list once, depths that grow by one. */
static void check_tree(struct dbr *r, const struct dbr_tree *t)
{
	CHECK(t->n == (size_t)dbr_ncontexts(r));
	size_t listed = 0;
	for (size_t i = 0; i < t->n; i++) {
		const struct dbr_ctx *c = &t->c[i];
		CHECK(c->parent == UINT32_MAX || c->parent < i);
		sink += c->procedure ? strlen(c->procedure) : 0;
		sink += c->folded ? strlen(c->folded) : 0;
		for (uint32_t k = c->first; k != UINT32_MAX; k = t->c[k].next) {
			CHECK(k < t->n && t->c[k].parent == i);
			CHECK(++listed <= t->n);
		}
	}
}

static void read_contexts(struct dbr *r, const char *event, const char *const *metrics,
			  size_t nm)
{
	/* A few contexts, first and last: every query per context costs a
	 * statement, and the fuzzer wants many inputs a second. */
	int64_t n = dbr_ncontexts(r) < 8 ? dbr_ncontexts(r) : 8, ids[8], up[256];
	for (int64_t k = 0; k < n; k++) {
		int64_t id = k < 4 ? k + 1 : dbr_ncontexts(r) - (n - 1 - k);
		ids[k] = id;
		char *path = dbr_path(r, id);
		free(path);
		size_t k = dbr_ancestors(r, id, up, 256);
		CHECK(k <= 256);
		int64_t caller = dbr_caller(r, id);
		CHECK(caller >= 0 && caller <= dbr_ncontexts(r));
		struct dbr_child *kids;
		size_t nkids;
		if (dbr_children(r, id, event, metrics, nm, &kids, &nkids) == 0)
			dbr_children_free(kids, nkids);
		else
			check_error(dbr_error(r));
		struct dbr_diagnosis d;
		if (dbr_diagnosis_of(r, event, id, &d) == 1)
			dbr_diagnosis_clear(&d);
		struct dbr_spread sp;
		if (dbr_thread_values(r, id, event, metrics[0], (int)(id & 1), &sp) == 0)
			dbr_spread_free(&sp);
	}
	struct dbr_caller_of callers[8];
	if (n > 0 && dbr_callers(r, ids, (size_t)n, callers) == 0 &&
	    dbr_callers_walk(r, ids, (size_t)n, callers) == 0)
		for (int64_t i = 0; i < n; i++)
			CHECK(callers[i].caller >= -1 && callers[i].caller <= dbr_ncontexts(r));
}

static int count_sample(void *arg, const struct dbr_trace_sample *s)
{
	CHECK(s->activity >= 0 && s->activity < DBR_ACTIVITIES);
	(*(size_t *)arg)++;
	return 0;
}

/* The trace's readers (schema 8): the timeline, the profile, latency. */
static void read_trace(struct dbr *r, const char *event)
{
	struct dbr_timeline t;
	if (dbr_timeline(r, event, 0, 0, 16, 2, &t) == 0) {
		CHECK(t.nbuckets == 16);
		dbr_timeline_free(&t);
	} else {
		check_error(dbr_error(r));
	}
	struct dbr_parallelism *p;
	size_t n;
	if (dbr_parallelism(r, event, &p, &n) == 0)
		free(p);
	struct dbr_latency *l;
	if (dbr_latency(r, event, 5, &l, &n) == 0) {
		CHECK(n <= 5);
		dbr_latency_free(l, n);
	}
	size_t samples = 0;
	if (dbr_trace_scan(r, event, count_sample, &samples) == 0)
		sink += (double)samples;
}

static void read_procedures(struct dbr *r, const char *event, const char *const *metrics,
			    size_t nm)
{
	struct dbr_procedure *p;
	size_t np;
	if (dbr_procedures(r, event, metrics, nm, &p, &np) < 0) {
		check_error(dbr_error(r));
		return;
	}
	for (size_t i = 0; i < np && i < 4; i++) {
		int64_t *ids;
		struct dbr_procedure *values;
		struct dbr_caller_of *callers;
		size_t nf;
		if (dbr_procedure_frames(r, &p[i], event, metrics, nm, &ids, &values, &callers,
					 &nf) == 0) {
			for (size_t k = 0; k < nf; k++)
				CHECK(ids[k] >= 1 && ids[k] <= dbr_ncontexts(r));
			free(ids);
			dbr_procedures_free(values, nf);
			free(callers);
		}
	}
	dbr_procedures_free(p, np);
}

static void read_all(struct dbr *r)
{
	CHECK(dbr_nevents(r) >= 1 && dbr_ncontexts(r) >= 1);
	for (size_t e = 0; e < dbr_nevents(r); e++) {
		const char *event = dbr_event_name(r, e);
		char names_[8][64];
		const char *metrics[8];
		size_t nm = metrics_of(r, event, names_);
		for (size_t i = 0; i < nm; i++) {
			metrics[i] = names_[i];
			struct dbr_choice c;
			if (dbr_choose(r, event, metrics[i], &c) == 0) {
				sink += c.total + c.base;
				dbr_choice_free(&c);
			} else {
				check_error(dbr_error(r));
			}
		}
		if (nm == 0)
			continue;
		const struct dbr_tree *t = dbr_tree(r);
		if (t) {
			check_tree(r, t);
			double *incl = calloc((size_t)dbr_ncontexts(r), sizeof *incl);
			double *excl = calloc((size_t)dbr_ncontexts(r), sizeof *excl);
			if (incl && excl && dbr_tree_values(r, event, metrics[0], incl, excl) == 0)
				sink += incl[0] + excl[0];
			free(incl);
			free(excl);
		} else {
			check_error(dbr_error(r));
		}
		read_contexts(r, event, metrics, nm);
		read_procedures(r, event, metrics, nm);
		struct dbr_diagnosis *d;
		size_t nd;
		if (dbr_diagnoses(r, event, &d, &nd) == 0)
			dbr_diagnoses_free(d, nd);
		read_trace(r, event);
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	const char *path = getenv("CULPRIT_FUZZ_DB");
	FILE *f = path ? fopen(path, "rb") : NULL;
	if (!f) {
		fprintf(stderr, "fuzz_db: set CULPRIT_FUZZ_DB to a culprit database "
				"(tests/fuzz/run.sh makes one)\n");
		exit(2);
	}
	fseek(f, 0, SEEK_END);
	template_size = ftell(f);
	rewind(f);
	template_db = malloc((size_t)template_size);
	if (!template_db || fread(template_db, 1, (size_t)template_size, f) != (size_t)template_size)
		exit(2);
	fclose(f);
	const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
	snprintf(edited_path, sizeof edited_path, "%s/culprit-fuzz-db-%d.db", dir, (int)getpid());
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (make_edited(data, size) < 0)
		return 0;
	char err[1024] = "";
	struct dbr *r = dbr_open(edited_path, err, sizeof err);
	if (!r) {
		check_error(err);
	} else {
		read_all(r);
		dbr_close(r);
	}
	unlink(edited_path);
	return 0;
}
