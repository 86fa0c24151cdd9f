/* batch.c - rows inserted many to a statement (batch.h). */
#include "batch.h"
#include "database.h"
#include "tools.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Rows per statement: past about 64 the gain is a few percent more. */
#define BATCH_ROWS 64

struct batch_value {
	enum { BV_NULL, BV_INT, BV_REAL, BV_TEXT } type;
	union {
		int64_t i;
		double d;
		const char *s;
	} u;
};

struct db_batch {
	sqlite3 *db;
	char *table;
	int ncolumns;
	sqlite3_stmt *full;		/* BATCH_ROWS rows */
	struct batch_value *v;		/* BATCH_ROWS rows of values */
	int nv;
	int failed;			/* an insert failed: drop the rest */
};

/* INSERT INTO TABLE VALUES (?,..,?) repeated for ROWS rows; NULL after
 * a message. */
static sqlite3_stmt *prepare_rows(struct db_batch *b, int rows)
{
	size_t cap = strlen(b->table) + 32 + (size_t)rows * ((size_t)b->ncolumns * 2 + 3);
	char *sql = xmalloc(cap), *p = sql;
	p += sprintf(p, "INSERT INTO %s VALUES ", b->table);
	for (int r = 0; r < rows; r++) {
		*p++ = r ? ',' : ' ';
		*p++ = '(';
		for (int c = 0; c < b->ncolumns; c++) {
			if (c)
				*p++ = ',';
			*p++ = '?';
		}
		*p++ = ')';
	}
	*p = 0;
	sqlite3_stmt *s = db_prepare(b->db, sql);
	free(sql);
	return s;
}

struct db_batch *db_batch_new(sqlite3 *db, const char *table, int ncolumns)
{
	struct db_batch *b = xcalloc(1, sizeof *b);
	b->db = db;
	b->table = xstrdup(table);
	b->ncolumns = ncolumns;
	b->v = xcalloc((size_t)BATCH_ROWS * (size_t)ncolumns, sizeof *b->v);
	return b;
}

/* Inserts the values held, with statement S of as many rows (NULL: it
 * could not be made), and forgets them. */
static void flush(struct db_batch *b, sqlite3_stmt *s)
{
	if (!s || b->failed) {
		b->failed = 1;
		b->nv = 0;
		return;
	}
	for (int i = 0; i < b->nv; i++) {
		const struct batch_value *v = &b->v[i];
		switch (v->type) {
		case BV_NULL: sqlite3_bind_null(s, i + 1); break;
		case BV_INT: sqlite3_bind_int64(s, i + 1, v->u.i); break;
		case BV_REAL: sqlite3_bind_double(s, i + 1, v->u.d); break;
		case BV_TEXT: sqlite3_bind_text(s, i + 1, v->u.s, -1, SQLITE_STATIC); break;
		}
	}
	if (db_step_reset(b->db, s) < 0)
		b->failed = 1;
	b->nv = 0;
}

static struct batch_value *next_value(struct db_batch *b)
{
	if (b->nv == BATCH_ROWS * b->ncolumns) {
		if (!b->full && !b->failed)
			b->full = prepare_rows(b, BATCH_ROWS);
		flush(b, b->full);
	}
	return &b->v[b->nv++];
}

void db_batch_int(struct db_batch *b, int64_t v)
{
	struct batch_value *x = next_value(b);
	x->type = BV_INT;
	x->u.i = v;
}

void db_batch_real(struct db_batch *b, double v)
{
	struct batch_value *x = next_value(b);
	x->type = BV_REAL;
	x->u.d = v;
}

void db_batch_text(struct db_batch *b, const char *v)
{
	struct batch_value *x = next_value(b);
	x->type = v ? BV_TEXT : BV_NULL;
	x->u.s = v;
}

void db_batch_null(struct db_batch *b)
{
	next_value(b)->type = BV_NULL;
}

int db_batch_finish(struct db_batch *b)
{
	if (b->nv && !b->failed) {
		sqlite3_stmt *rest = prepare_rows(b, b->nv / b->ncolumns);
		flush(b, rest);
		sqlite3_finalize(rest);
	}
	int rc = b->failed ? -1 : 0;
	sqlite3_finalize(b->full);
	free(b->v);
	free(b->table);
	free(b);
	return rc;
}
