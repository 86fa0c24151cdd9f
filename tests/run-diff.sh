#!/bin/sh
# run-diff.sh - culprit diff: two runs of tests/programs/phases (a serial,
# a parallel and an imbalanced phase, timed by the program's own clock),
# the second with a serial phase three times as long: serial_work's frame
# must come first, at about three times its value, and the other phases
# stay as they were.  Wall-clock samples, so that a loaded machine's
# descheduling does not change the phases' lengths.
. "${srcdir:-.}/tests/lib.sh"
have sqlite3 || skip_all "the sqlite3 program is not installed"

"$CULPRIT" run -q -e REALTIME@f1000 -o a "$PROGRAMS/phases" 2 100 200 100 > /dev/null
"$CULPRIT" run -q -e REALTIME@f1000 -o b "$PROGRAMS/phases" 2 300 200 100 > /dev/null
prof a
prof b

"$CULPRIT" diff a.db b.db > d.txt 2> d.err
check "diff: exit status 0, nothing on stderr" sh -c "[ $? = 0 ] && [ ! -s d.err ]"
first=$(awk 'found { print; exit } /^ +A +B +B - A/ { found = 1 }' d.txt)
note "diff: first row: $first"
check "diff: the changed function comes first" sh -c "echo '$first' | grep -q 'serial_work'"
ratio=$(echo "$first" | awk '{ printf "%.3f", $2 / $1 }')
check "diff: ... with three times its work, within 20% ($ratio)" near "$ratio" 3 0.6
"$CULPRIT" diff --format=csv --limit=0 a.db b.db > d.csv
check "diff --format=csv: a header and a row per frame with a value" \
	sh -c "head -n 1 d.csv | grep -q '^context_a,context_b,a,b,delta,noise,path$' &&
	       grep -q 'parallel_work' d.csv && grep -q 'imbalanced_work' d.csv"
# The unchanged phases: each frame changed by under a tenth of
# serial_work's change.
steady=$(awk -F, 'NR == 2 { big = $5 } NR > 2 && $6 !~ /serial_work/ {
		d = $5 < 0 ? -$5 : $5; if (d > 0.1 * big) bad++ }
	END { print bad + 0 }' d.csv)
check "diff: the unchanged phases change by under a tenth of that" [ "$steady" = 0 ]
# Matched by path, not id: the CSV names the same context in both.
check "diff: contexts matched by their path" \
	sh -c "[ \"\$(sql a.db \"SELECT procedure FROM contexts WHERE id = \$(sed -n 2p d.csv | cut -d, -f1)\")\" = \
		 \"\$(sql b.db \"SELECT procedure FROM contexts WHERE id = \$(sed -n 2p d.csv | cut -d, -f2)\")\" ]"
"$CULPRIT" diff --inclusive --limit=0 a.db b.db > di.txt
total=$(sed -n 's/.*(\([-+][0-9.e+-]*\))$/\1/p' di.txt | head -n 1)
mainrow=$(grep '> main$' di.txt | awk '{ print $3 }')
note "diff --inclusive: total change $total, main's $mainrow"
check "diff --inclusive: main's change is the whole run's, within 10 samples (what ran outside main)" near "${mainrow:-0}" "${total:-1}" 0.01
"$CULPRIT" diff a.db a.db > same.txt
check "diff: a database against itself changes nothing" \
	sh -c "awk 'rows { if (\$3 + 0 != 0) bad++ } /^ +A +B +B - A/ { rows = 1 } END { exit bad + 0 }' same.txt"
# Another program: frames only one side has.
"$CULPRIT" run -q -e REALTIME@f1000 -o r "$PROGRAMS/recurse" 5 3000000 > /dev/null
prof r
"$CULPRIT" diff --limit=0 a.db r.db > ar.txt
check "diff: frames only in A or only in B say so" \
	sh -c "grep -q 'only in A' ar.txt && grep -q 'only in B' ar.txt"
# Two runs of the same program compare frame by frame, by path with the
# lines where the calls are (callers: main calls each caller from two lines).
profile_e c1 CPUTIME@f2000 "$PROGRAMS/callers" 300 > /dev/null
prof c1
"$CULPRIT" diff c1.db c1.db > cc.txt
check "diff: paths alike but for their call lines are told apart by them (main:LINE > light_caller)" \
	[ "$(grep -c '> main:[0-9]* > light_caller:[0-9]* > kernel' cc.txt)" = 2 ]

# Two runs of a task recursion: the samples fall on different branches
# and depths each time, which the folded paths match; the program's own
# frames differ by no more than the sampling's noise.  (The runtime's
# waiting does differ from run to run: not counted.)
OMP=
for cc in clang gcc; do
	[ -x "$PROGRAMS/omp_fib-$cc" ] && OMP=$PROGRAMS/omp_fib-$cc && break
done
if [ -n "$OMP" ]; then
	for r in 1 2; do
		OMP_NUM_THREADS=2 profile_e f$r CPUTIME@f2000 "$OMP" 40 22 > /dev/null
		prof f$r
	done
	"$CULPRIT" diff --limit=0 --format=csv f1.db f2.db > ff.csv
	"$CULPRIT" diff f1.db f2.db > ff.txt
	note "$(sed -n 3,4p ff.txt | tr '\n' ' ')"
	# The recursion's leaves: matched, whatever branch a sample fell on.
	leaves=$(awk -F, 'NR > 1 && $NF ~ /fib_serial$/ { all += $3; if ($2 == 0) lost += $3 }
		END { if (all > 0) printf "%.4f", lost / all }' ff.csv)
	check "diff: two runs of a task recursion: its leaves' work is matched, not 'only in A' (${leaves:-none} unmatched)" \
		below "${leaves:-1}" 0.01
	# The program's own frames (not the runtime's: contexts.runtime).
	own=$(awk -F, 'NR > 1 { print $1 "," $2 "," $3 "," $4 "," $6 }' ff.csv | while IFS=, read -r ida idb va vb noise; do
		id=$ida; db=f1.db
		[ "$id" = 0 ] && id=$idb && db=f2.db
		[ "$(sql $db "SELECT runtime FROM contexts WHERE id = $id")" = 0 ] || continue
		awk -v a="$va" -v b="$vb" -v n="$noise" 'BEGIN { d = b - a; if (d < 0) d = -d;
			big = a > b ? a : b; print (d > 4 * n && d > 0.05 * big) ? "beyond" : "within" }'
	done | sort | uniq -c | tr '\n' ' ')
	note "diff: the program's frames: $own"
	check "diff: two runs of a task recursion: none of the program's frames changed beyond 4 sigma of the sampling (and 5%)" \
		sh -c "echo '$own' | grep -q within && ! echo '$own' | grep -q beyond"
	"$CULPRIT" diff --by=procedure --limit=0 --format=csv f1.db f2.db > fp.csv
	want=$(sql f1.db "SELECT printf('%.9g', exclusive) FROM procedure_metrics
		WHERE procedure = 'fib_serial' AND event = 'cputime' AND metric = 'work'")
	got=$(awk -F, '$NF == "fib_serial (omp_fib.c)" { n++; v = $3 } END { if (n == 1) print v }' fp.csv)
	check "diff --by=procedure: one row for fib_serial, with its work in A ($got, $want)" \
		sh -c "[ -n '$got' ] && [ '$got' = '$want' ]"
else
	skip "diff: two runs of a task recursion" "no OpenMP compiler was found by configure"
fi

# Mistakes: one line each, and a status.
"$CULPRIT" diff a.db > e1.out 2> e1.err
check "diff: one database is a usage error" sh -c "[ $? = 2 ] && [ \$(wc -l < e1.err) = 1 ]"
"$CULPRIT" diff --metric=nosuch a.db b.db > e2.out 2> e2.err
check "diff: a metric the database lacks: one line, status 1" \
	sh -c "[ $? = 1 ] && [ \$(wc -l < e2.err) = 1 ] && [ ! -s e2.out ]"
"$CULPRIT" diff a.db missing.db > e3.out 2> e3.err
check "diff: a missing database: one line, status 1" \
	sh -c "[ $? = 1 ] && [ \$(wc -l < e3.err) = 1 ] && [ ! -s e3.out ]"
head -c 8192 /dev/urandom > garbage.db
"$CULPRIT" diff garbage.db b.db > e4.out 2> e4.err
check "diff: a file that is no database: one line, status 1" \
	sh -c "[ $? = 1 ] && [ \$(wc -l < e4.err) = 1 ] && [ ! -s e4.out ]"
# A database that opens but cannot be read: the read of an experiment
# failed, said so, and the diff went on with zeros, status 0.
label=$(sql a.db 'SELECT label FROM experiments LIMIT 1')
cp a.db damaged.db
sql damaged.db 'DROP VIEW experiment_metrics; DROP TABLE experiments'
for args in "damaged.db:$label b.db" "a.db damaged.db:$label"; do
	# shellcheck disable=SC2086
	"$CULPRIT" diff $args > e5.out 2> e5.err
	status=$?
	note "diff $args: $(cat e5.err)"
	check "diff $args, an experiment that cannot be read: one line, status 1" \
		sh -c "[ $status = 1 ] && [ \$(wc -l < e5.err) = 1 ] && [ ! -s e5.out ]"
done

done_testing
