#!/bin/sh
# run-dbfuzz.sh - the database readers on damaged and malicious databases:
# many variants of a real database, each with a few values replaced by
# hostile ones (NULL, extremes, wrong types, huge strings, ids that point
# nowhere or at themselves) or rows deleted or repeated, go through every
# view of culprit report.  Each must end (no hang) with status 0 or 1 and
# at most one line of error, never a crash.  Deterministic (seeded);
# FUZZ_DB_VARIANTS sets how many (default 60).  In the sanitizer build the
# same runs are checked by ASan and UBSan.
. "${srcdir:-.}/tests/lib.sh"
have sqlite3 || skip_all "the sqlite3 program is not installed"
have python3 || skip_all "python3 is not installed"

profile m "$PROGRAMS/callers" > /dev/null
prof -o good.db m
n=${FUZZ_DB_VARIANTS:-60}
python3 - "$n" << 'PY' || not_ok "making the variants"
import random, shutil, sqlite3, sys
n = int(sys.argv[1])
rnd = random.Random(2026)
hostile = [None, 0, -1, 1, 2**63 - 1, -2**63, 1e308, -1e308, float('inf'), 3.5,
           'x', '', 'frame', 'root', 'callsite', b'\x00\xff', 'A' * 10000,
           '\x1b[2J', 'work', 'cputime']
con = sqlite3.connect('good.db')
tables = [r[0] for r in con.execute(
    "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")]
con.close()
for v in range(n):
    out = 'v%03d.db' % v
    shutil.copy('good.db', out)
    db = sqlite3.connect(out)
    for _ in range(rnd.randint(1, 4)):
        t = rnd.choice(tables)
        cols = [r[1] for r in db.execute('PRAGMA table_info(%s)' % t)]
        rows = db.execute('SELECT * FROM %s' % t).fetchall()
        if not rows:
            continue
        row = rnd.choice(rows)
        where = ' AND '.join('%s IS ?' % c for c in cols)
        what = rnd.random()
        try:
            if what < 0.75:
                c = rnd.choice(cols)
                val = rnd.choice(hostile + [rnd.randint(-3, 3) + (row[cols.index(c)] or 0)
                                            if isinstance(row[cols.index(c)], int) else None])
                db.execute('UPDATE %s SET %s = ? WHERE %s' % (t, c, where), [val] + list(row))
            elif what < 0.9:
                db.execute('DELETE FROM %s WHERE %s' % (t, where), list(row))
            else:
                db.execute('INSERT INTO %s VALUES (%s)' % (t, ','.join('?' * len(cols))), row)
        except sqlite3.Error:
            pass		# a constraint said no: another variant will differ
    db.commit()
    db.close()
PY
crashed= hung= lines= tried=0
for db in v*.db; do
	for args in "" "--view=callers --depth=3" "--view=flat" "--summary" "--diagnose" \
		    "--waits" "--folded" "--format=csv" "--metric=idleness --threshold=0"; do
		# shellcheck disable=SC2086
		timeout 20 "$CULPRIT" report $args "$db" > r.out 2> r.err
		rc=$?
		tried=$((tried + 1))
		case $rc in
		0) ;;
		1) [ "$(wc -l < r.err)" -le 1 ] || lines="$lines $db[$args]" ;;
		124) hung="$hung $db[$args]" ;;
		*) crashed="$crashed $db[$args]:$rc" ;;
		esac
	done
done
note "$tried report runs on $n damaged variants of a real database"
check "damaged databases: report never crashes${crashed:+ ($crashed)}" [ -z "$crashed" ]
check "damaged databases: report never hangs${hung:+ ($hung)}" [ -z "$hung" ]
check "damaged databases: a refusal is one line${lines:+ ($lines)}" [ -z "$lines" ]

# Found by the libFuzzer target (tests/fuzz/fuzz_db.c): a context id of
# 2^40 (the readers allocated for a trillion contexts) and a parent id of
# INT64_MIN (id - 1 overflowed: UBSan in the sanitizer build).
cp good.db huge.db
sqlite3 huge.db "UPDATE stored_contexts SET id = 1099511627776 WHERE id = (SELECT max(id) FROM stored_contexts)"
expect 1 "huge.db is damaged: its [0-9]* contexts are not numbered 1 to [0-9]*" \
	"a context id of 2^40" "$CULPRIT" report huge.db
cp good.db minparent.db
sqlite3 minparent.db "UPDATE stored_contexts SET parent_id = -9223372036854775808 WHERE id = 3"
rc=0
"$CULPRIT" report minparent.db > minparent.out 2> minparent.err || rc=$?
check "a parent id of INT64_MIN: report reads it (status $rc), that context a root" \
	[ "$rc" = 0 ]
check "... with no undefined behaviour (the sanitizer build's UBSan)" \
	sh -c "! grep -q 'runtime error' minparent.err"
# A name id of 2^32 - 1: the readers sized their name table by the largest
# id (32 GiB).  Ids beyond the count of names are not prof's: no name.
cp good.db bigname.db
sqlite3 bigname.db "UPDATE stored_names SET id = 4294967295 WHERE id = (SELECT max(id) FROM stored_names)"
rc=0
timeout 60 "$CULPRIT" report bigname.db > bigname.out 2> bigname.err || rc=$?
check "a name id of 2^32 - 1: report reads the rest (status $rc)" [ "$rc" = 0 ]

done_testing
