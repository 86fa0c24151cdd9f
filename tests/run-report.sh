#!/bin/sh
# run-report.sh - culprit report's views, checked against the database
# they come from; and every bad input to prof and report.
. "${srcdir:-.}/tests/lib.sh"
have sqlite3 || skip_all "the sqlite3 program is not installed"

profile_e m CPUTIME@f4000 "$PROGRAMS/callers" > /dev/null
prof m

"$CULPRIT" report m.db > top.txt
check "report: top-down prints" grep -q "top-down" top.txt
check "report: lines fit 100 columns" fits top.txt 100 "^culprit report: m\.db \(top-down\)"
check "report: heavy_caller comes before light_caller (hottest first)" \
	sh -c "[ \$(grep -n heavy_caller top.txt | cut -d: -f1 | head -1) -lt \$(grep -n light_caller top.txt | cut -d: -f1 | head -1) ]"
check "report: a frame shows the call site it was called from" grep -Eq "kernel  <- callers.c:[0-9]+" top.txt

# CSV values are the database's values.
"$CULPRIT" report --format=csv --threshold=0 m.db > top.csv
check "report: top-down CSV has a row per context with a value" \
	[ "$(($(wc -l < top.csv) - 1))" = "$(sql m.db "select count(*) from context_metrics where metric = 'work' and inclusive > 0")" ]
# heavy_caller is called from two lines of main: the hotter frame.
id=$(sql m.db "select c.id from contexts c join context_metrics m on m.context_id = c.id
	where c.kind = 'frame' and c.procedure = 'heavy_caller' and m.metric = 'work'
	order by m.inclusive desc limit 1")
csv=$(awk -F, -v id="$id" '$1 == id { print $9 }' top.csv)
db=$(sql m.db "select inclusive from context_metrics where context_id = $id and metric = 'work'")
check "report: CSV inclusive value of heavy_caller is the database's ($db)" near "$csv" "$db" 0.000001

"$CULPRIT" report --view=flat --format=csv m.db > flat.csv
ex=$(awk -F, '$1 == "kernel" { print $4 }' flat.csv)
check "report: flat CSV exclusive of kernel() is the database's" \
	near "$ex" "$(sql m.db "select exclusive from procedure_metrics where procedure = 'kernel' and metric = 'work'")" 0.000001
"$CULPRIT" report --view=flat m.db > flat.txt
check "report: flat text lists procedures, hottest first (work_units' exclusive time)" \
	sh -c "head -n 6 flat.txt | tail -n 1 | grep -q work_units"
check "report: flat text has kernel()" grep -q "  kernel  " flat.txt

"$CULPRIT" report --view=callers m.db > callers.txt
check "report: callers view shows kernel's callers with their shares" \
	sh -c "grep -A2 '  kernel  ' callers.txt | grep -Eq '(7[2-8]\.[0-9])%  heavy_caller\$'"
check "report: ... and the light caller's share" \
	sh -c "grep -A2 '  kernel  ' callers.txt | grep -Eq '(2[2-8]\.[0-9])%  light_caller\$'"
"$CULPRIT" report --view=callers --depth=2 m.db > callers2.txt
check "report: --depth=2 shows the callers' callers" \
	sh -c "grep -A3 '  kernel  ' callers2.txt | grep -q '%  main\$'"
"$CULPRIT" report --view=callers --format=csv m.db > callers.csv
share=$(awk -F, '$1 == "kernel" && $9 == "heavy_caller" { print $11 }' callers.csv)
check "report: callers CSV share of heavy_caller is 75%, within 3 points" near "$share" 75 3

"$CULPRIT" report --metric=samples m.db > samples.txt
check "report: another metric (samples)" grep -q "cputime samples in samples" samples.txt
"$CULPRIT" report --threshold=50% m.db > half.txt
check "report: a higher threshold hides light_caller, not main" has_not half.txt "  main$" "light_caller"
"$CULPRIT" report --depth=2 m.db > shallow.txt
check "report: --depth limits the tree: main, not kernel" has_not shallow.txt "  main\$" "kernel"

# A database of another event: the report shows it without being told.
profile_e w REALTIME@1ms "$PROGRAMS/sleeper" 4 > /dev/null
prof w
"$CULPRIT" report w.db > rt.txt
check "report: a REALTIME database reports realtime by default" grep -q "^realtime work in seconds" rt.txt
check "report: ... with compute() in it" grep -q "compute" rt.txt
"$CULPRIT" report --summary w.db > rts.txt
check "report: the summary shows how much of its time the thread was seen waiting" \
	grep -Eq "^ +1 +[0-9]+ sleeper .* (4[0-9]|5[0-9])[.][0-9] " rts.txt

# Bad input: one line, status 1 (2 for a usage error), no crash.
expect 1 "No such file or directory" "prof of a missing directory" "$CULPRIT" prof missing-dir
mkdir empty
expect 1 "holds no measurement files" "prof of an empty directory" "$CULPRIT" prof empty
expect 1 "already exists" "prof onto an existing database" "$CULPRIT" prof m
check "prof --force replaces it" "$CULPRIT" prof -q --force m
expect 2 "no measurement directory" "prof without a directory" "$CULPRIT" prof
expect 1 "no such file" "report of a missing database" "$CULPRIT" report nothing.db
printf 'garbage that is not sqlite' > garbage.db
expect 1 "not an SQLite database" "report of a file that is not SQLite" "$CULPRIT" report garbage.db
sqlite3 other.db "create table t (x)"
expect 1 "not one made by culprit" "report of someone else's database" "$CULPRIT" report other.db
cp m.db newer.db
sqlite3 newer.db "PRAGMA user_version = 99"
expect 1 "newer culprit" "report of a database from a newer culprit" "$CULPRIT" report newer.db
expect 1 "no metric 'bogus'" "report of an unknown metric" "$CULPRIT" report --metric=bogus m.db
expect 1 "no event 'cycles'" "report of an unknown event" "$CULPRIT" report --event=cycles m.db
expect 2 "unknown view" "report with an unknown view" "$CULPRIT" report --view=sideways m.db

# A damaged thread file: a warning naming it, the rest still processed.
profile t "$PROGRAMS/threads" > /dev/null
victim=$(ls t/*-t2.thread)
head -c 100 "$victim" > cut && mv cut "$victim"
"$CULPRIT" prof -q t 2> err.txt
check "damaged file: prof still succeeds" [ $? = 0 ]
# Other warnings may come on a loaded machine (measurement quality), but
# the damaged file is named once, as a warning, and nothing else fails.
check "damaged file: one warning naming the file" sh -c "[ \$(grep -c 't2.thread' err.txt) = 1 ] &&
	grep -q 'warning: .*-t2.thread: .*skipped' err.txt && ! grep -v 'warning:' err.txt | grep -q ."
[ "$(wc -l < err.txt)" = 1 ] || sed 's/^/# prof said: /' err.txt
check "damaged file: the other five threads are in the database" [ "$(sql t.db "select count(*) from threads")" = 5 ]
"$CULPRIT" prof -q --strict -o strict.db t 2> err.txt
check "damaged file: --strict makes it an error" [ $? = 1 ]
check "damaged file: --strict writes no database" [ ! -e strict.db ]
rm t/*.process
"$CULPRIT" prof -q -o orphans.db t 2> err.txt
check "threads without a process file: an error when nothing is left" [ $? = 1 ]
check "threads without a process file: each is named in a warning" [ "$(grep -c 'no process file' err.txt)" = 5 ]

done_testing
