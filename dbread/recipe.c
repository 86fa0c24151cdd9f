/* recipe.c - which stored values make the metrics a reader asks for.
 *
 * The database stores effort and useful_work only where
 * its views cannot compute them: the views add and subtract stored rows
 * (metrics.derived_from, derived_plus, derived_minus).  Those views are
 * compound, and SQLite materializes a compound view that it must join:
 * reading through them takes a second where the stored rows take 50 ms.
 * So culprit's own readers read the stored rows by number and do the same
 * arithmetic here. */
#define _GNU_SOURCE
#include "internal.h"
#include "tools.h"

#include <stdlib.h>
#include <string.h>

/* Adds a use of stored metric ID: SIGN times its value into metric K. */
static void add_use(struct dbr_recipe *rc, size_t *cap, sqlite3_int64 id, int k, int sign)
{
	grow_array(&rc->use, cap, rc->nuses + 1, sizeof *rc->use);
	rc->use[rc->nuses++] = (struct dbr_use){ id, k, sign };
}

static int by_id(const void *a, const void *b)
{
	const struct dbr_use *x = a, *y = b;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* "(1,2,5)": the stored ids, numbers read from the database, for IN. */
static char *id_list(const struct dbr_recipe *rc)
{
	size_t cap = 8 + rc->nuses * 21, len = 0;	/* "(NULL)" when empty */
	char *out = xmalloc(cap);
	out[len++] = '(';
	for (size_t i = 0; i < rc->nuses; i++) {
		if (i && rc->use[i].id == rc->use[i - 1].id)
			continue;
		len += (size_t)snprintf(out + len, cap - len, "%s%lld", len > 1 ? "," : "",
					(long long)rc->use[i].id);
	}
	if (len == 1)
		len += (size_t)snprintf(out + len, cap - len, "NULL");
	out[len++] = ')';
	out[len] = 0;
	return out;
}

int dbr_recipe_init(struct dbr *r, const char *event, const char *const *metrics, size_t n,
		    struct dbr_recipe *rc)
{
	memset(rc, 0, sizeof *rc);
	rc->table = "stored_values";
	rc->thread_table = "stored_thread_values";
	sqlite3_stmt *s = dbr_prepare(r, "SELECT id, metric, derived_from, derived_plus, "
				      "derived_minus FROM " TBL_METRICS " WHERE event = ?");
	if (!s)
		return -1;
	sqlite3_bind_text(s, 1, event, -1, SQLITE_STATIC);
	size_t cap = 0;
	int step;
	while ((step = sqlite3_step(s)) == SQLITE_ROW) {
		int k = dbr_metric_index(metrics, n, (const char *)sqlite3_column_text(s, 1));
		if (k < 0)
			continue;
		if (sqlite3_column_type(s, 2) == SQLITE_NULL) {
			add_use(rc, &cap, sqlite3_column_int64(s, 0), k, 1);
			continue;
		}
		add_use(rc, &cap, sqlite3_column_int64(s, 2), k, 1);
		if (sqlite3_column_type(s, 3) != SQLITE_NULL)
			add_use(rc, &cap, sqlite3_column_int64(s, 3), k, 1);
		if (sqlite3_column_type(s, 4) != SQLITE_NULL)
			add_use(rc, &cap, sqlite3_column_int64(s, 4), k, -1);
	}
	sqlite3_finalize(s);
	if (step != SQLITE_DONE) {
		dbr_recipe_free(rc);
		return dbr_fail_sql(r);
	}
	qsort(rc->use, rc->nuses, sizeof *rc->use, by_id);
	rc->ids = id_list(rc);
	return 0;
}

void dbr_recipe_add(const struct dbr_recipe *rc, sqlite3_int64 id, double incl, double excl,
		    double *out_incl, double *out_excl)
{
	/* A handful of uses: a scan costs less than a search. */
	for (size_t i = 0; i < rc->nuses && rc->use[i].id <= id; i++) {
		const struct dbr_use *u = &rc->use[i];
		if (u->id != id)
			continue;
		out_incl[u->k] += u->sign * incl;
		out_excl[u->k] += u->sign * excl;
	}
}

sqlite3_stmt *dbr_recipe_prepare(struct dbr *r, const char *sql_format,
				 const struct dbr_recipe *rc)
{
	char *sql = xasprintf(sql_format, rc->table, rc->ids);
	sqlite3_stmt *s = dbr_prepare(r, sql);
	free(sql);
	return s;
}

void dbr_recipe_free(struct dbr_recipe *rc)
{
	free(rc->use);
	free(rc->ids);
	memset(rc, 0, sizeof *rc);
}

char *dbr_recipe_sum_sql(const struct dbr_recipe *rc, int k, const char *id_column,
			 const char *value_column)
{
	int any = 0;
	for (size_t i = 0; i < rc->nuses; i++)
		any |= rc->use[i].k == k;
	if (!any)
		return xstrdup("total(0)");	/* the database has no such metric */
	char *out = xasprintf("sum(%s * CASE %s", value_column, id_column);
	for (size_t i = 0; i < rc->nuses; i++) {
		if (rc->use[i].k != k)
			continue;
		char *next = xasprintf("%s WHEN %lld THEN %d", out, (long long)rc->use[i].id,
				       rc->use[i].sign);
		free(out);
		out = next;
	}
	char *done = xasprintf("%s ELSE 0 END)", out);
	free(out);
	return done;
}
