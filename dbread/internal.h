/* internal.h - what the files of dbread/ share and readers do not see. */
#ifndef CULPRIT_DBREAD_INTERNAL_H
#define CULPRIT_DBREAD_INTERNAL_H

#include "dbread.h"

#include <sqlite3.h>

struct dbr_event {
	char *name, *unit;
};

struct dbr {
	sqlite3 *db;
	char *path;
	struct dbr_event *event;	/* in the order prof wrote them */
	size_t nevents;
	int64_t ncontexts;
	struct dbr_tree *tree;		/* read on first need (dbr_tree) */
	struct strtab *names;		/* names read without the tree */
	const char **name_by_id;	/* names.id -> interned */
	size_t nnames;
	char *error;			/* the last problem, one line */
};


/* Sets R's error: one line, printf-style. */
void dbr_fail(struct dbr *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Fails with SQLite's own words about the last statement. */
int dbr_fail_sql(struct dbr *r);
void dbr_tree_free(struct dbr_tree *t);
/* A statement from SQL_FORMAT, whose one %s becomes METRICS (N) as an
 * SQL list of literals ("('work', 'overhead:task-creation')", quotes in
 * a name doubled), with EVENT bound as ?1; NULL after setting the error. */
sqlite3_stmt *dbr_prepare_metrics(struct dbr *r, const char *sql_format,
				  const char *const *metrics, size_t n, const char *event);

/* A statement, or NULL after setting the error.  The caller finalizes. */
sqlite3_stmt *dbr_prepare(struct dbr *r, const char *sql);
/* Steps S to its end and finalizes it: each row READ (with ARG) into a
 * new element of *OUT, SIZE bytes, zeroed first; *COUNT of them.  0, or
 * -1 after setting the error, *OUT then freed with FREE_ROWS and empty. */
int dbr_collect(struct dbr *r, sqlite3_stmt *s, size_t size, void *out, size_t *count,
		void (*read)(sqlite3_stmt *s, void *row, void *arg), void *arg,
		void (*free_rows)(void *rows, size_t count));
/* A column as a new string, or NULL. */
char *dbr_text(sqlite3_stmt *s, int i);

/* ---- recipe.c: the stored values that make the metrics asked for ---------- */

/* Metrics the database computes in views (effort, useful_work)
 * are read as the stored metrics they come from: each stored metric's
 * value, times a sign, goes into the metrics it makes. */
struct dbr_use {
	sqlite3_int64 id;		/* metrics.id, as stored */
	int k;				/* the metric asked for it goes into */
	int sign;			/* +1, or -1 for what is subtracted */
};
struct dbr_recipe {
	struct dbr_use *use;		/* by id */
	size_t nuses;
	char *ids;			/* the stored ids as an SQL list: "(2,3,4)" */
	const char *table;		/* the stored values: (context_id, metric_id, ...) */
	const char *thread_table;	/* ... and per thread */
};
/* The recipe for METRICS (N) of EVENT (values stored by
 * number).  Returns 0, or -1 with the error set. */
int dbr_recipe_init(struct dbr *r, const char *event, const char *const *metrics, size_t n,
		    struct dbr_recipe *rc);
/* Adds a stored row (metric ID's INCL and EXCL) to the metrics it makes,
 * in OUT_INCL and OUT_EXCL (by the index asked for). */
void dbr_recipe_add(const struct dbr_recipe *rc, sqlite3_int64 id, double incl, double excl,
		    double *out_incl, double *out_excl);
/* SQL that sums metric K over rows of the stored values: "sum(VALUE *
 * CASE ID WHEN 2 THEN 1 ... ELSE 0 END)", numbers only (malloc'd). */
char *dbr_recipe_sum_sql(const struct dbr_recipe *rc, int k, const char *id_column,
			 const char *value_column);
/* SQL_FORMAT with RC's stored table and its ids (the SQL list) for its
 * two %s, prepared; NULL after setting the error. */
sqlite3_stmt *dbr_recipe_prepare(struct dbr *r, const char *sql_format,
				 const struct dbr_recipe *rc);
void dbr_recipe_free(struct dbr_recipe *rc);

#endif
