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
first=$(sed -n '6p' d.txt)
note "diff: first row: $first"
check "diff: the changed function comes first" sh -c "echo '$first' | grep -q 'serial_work'"
ratio=$(echo "$first" | awk '{ printf "%.3f", $2 / $1 }')
check "diff: ... with three times its work, within 20% ($ratio)" near "$ratio" 3 0.6
"$CULPRIT" diff --format=csv --limit=0 a.db b.db > d.csv
check "diff --format=csv: a header and a row per frame with a value" \
	sh -c "head -n 1 d.csv | grep -q '^context_a,context_b,a,b,delta,path$' &&
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
	sh -c "sed -n '6,\$p' same.txt | awk '{ if (\$3 + 0 != 0) bad++ } END { exit bad + 0 }'"
# Another program: frames only one side has.
"$CULPRIT" run -q -e REALTIME@f1000 -o r "$PROGRAMS/recurse" 5 3000000 > /dev/null
prof r
"$CULPRIT" diff --limit=0 a.db r.db > ar.txt
check "diff: frames only in A or only in B say so" \
	sh -c "grep -q 'only in A' ar.txt && grep -q 'only in B' ar.txt"
# Mistakes: one line each, and a status.
"$CULPRIT" diff a.db > e1.out 2> e1.err
check "diff: one database is a usage error" sh -c "[ $? = 2 ] && [ \$(wc -l < e1.err) = 1 ]"
"$CULPRIT" diff --metric=nosuch a.db b.db > e2.out 2> e2.err
check "diff: a metric the database lacks: one line, status 1" \
	sh -c "[ $? = 1 ] && [ \$(wc -l < e2.err) = 1 ] && [ ! -s e2.out ]"
"$CULPRIT" diff a.db missing.db > e3.out 2> e3.err
check "diff: a missing database: one line, status 1" \
	sh -c "[ $? = 1 ] && [ \$(wc -l < e3.err) = 1 ] && [ ! -s e3.out ]"

done_testing
