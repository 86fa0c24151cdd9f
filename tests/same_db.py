#!/usr/bin/env python3
"""same_db.py A.db B.db: whether two culprit databases hold the same rows.

Every table, row by row in rowid order (or in the order of all its columns
where it has no rowid), column by column: text, integers and NULLs equal,
reals equal to 1e-9 of their size (sums taken in another order round
differently in the last bits).  culprit_info's keys that say when and how
the database was made are left out.  Prints the first difference of each
table and exits 1 when there is one, else prints the rows compared."""
import sqlite3
import sys

MADE = {"created"}


def rows(db, table):
    cols = [r[1] for r in db.execute(f'PRAGMA table_info("{table}")')]
    order = "rowid"
    try:
        db.execute(f'SELECT rowid FROM "{table}" LIMIT 1').fetchall()
    except sqlite3.OperationalError:
        order = ", ".join(f'"{c}"' for c in cols)
    return cols, db.execute(f'SELECT * FROM "{table}" ORDER BY {order}')


def same(x, y):
    if isinstance(x, float) or isinstance(y, float):
        if x is None or y is None:
            return False
        return abs(x - y) <= 1e-9 * max(abs(x), abs(y))
    return x == y


def main():
    a, b = sqlite3.connect(sys.argv[1]), sqlite3.connect(sys.argv[2])
    q = "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"
    ta, tb = [r[0] for r in a.execute(q)], [r[0] for r in b.execute(q)]
    if ta != tb:
        print(f"# tables differ: {ta} against {tb}")
        return 1
    bad, count = 0, 0
    for t in ta:
        cols, ra = rows(a, t)
        _, rb = rows(b, t)
        differ = False
        for n, (x, y) in enumerate(zip(ra, rb)):
            if t == "culprit_info" and x[0] in MADE:
                continue
            count += 1
            diff = [c for c, u, v in zip(cols, x, y) if not same(u, v)]
            if diff:
                print(f"# {t} row {n + 1}: {diff[0]} is {x} against {y}")
                bad += 1
                differ = True
                break
        if not differ and (ra.fetchone() is not None or rb.fetchone() is not None):
            print(f"# {t}: the row counts differ")
            bad += 1
    if bad:
        return 1
    print(f"# same: {len(ta)} tables, {count} rows")
    return 0


sys.exit(main())
