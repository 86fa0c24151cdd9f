#!/bin/sh
# run-tasks.sh - task sizes and waits by task type (report --tasks) on
# tests/programs/omp_task_types: a recursion whose three task types (a
# small task, a big one of 8 times the work, and the next level) have
# known counts, and whose small and big tasks time themselves.
. "${srcdir:-.}/tests/lib.sh"
have sqlite3 || skip_all "the sqlite3 program is not installed"
compilers=
[ -x "$PROGRAMS/omp_task_types-clang" ] && compilers="$compilers clang"
[ -x "$PROGRAMS/omp_task_types-gcc" ] && compilers="$compilers gcc"
[ -n "$compilers" ] || skip_all "no OpenMP compiler built omp_task_types"
SRC="$srcdir/tests/programs/omp_task_types.c"
line_of() {
	grep -n "omp task /\* type: $1 \*/" "$SRC" | cut -d: -f1
}

for cc in $compilers; do
	P="$PROGRAMS/omp_task_types-$cc"
	OMP_NUM_THREADS=2 "$CULPRIT" run -q -o t-$cc "$P" 300 > t-$cc.out
	prof t-$cc
	check "$cc: the thread files say where tasks ended" \
		sh -c "for f in t-$cc/*.thread; do \"$CULPRIT\" dump \$f; done | grep -q '^tasks  *site'"
	counts=$(sql t-$cc.db "SELECT group_concat(tasks, ' ') FROM (SELECT tasks FROM task_types ORDER BY size)")
	check "$cc: three task types of 300 tasks each ($counts)" [ "$counts" = "300 300 300" ]
	small=$(awk '$1 == "small" { print $2 }' t-$cc.out)
	big=$(awk '$1 == "big" { print $2 }' t-$cc.out)
	# By size: the level's own task, the small one, the big one.
	sizes=$(sql t-$cc.db "SELECT group_concat(us, ' ') FROM (SELECT 1e6 * size / tasks AS us FROM task_types ORDER BY size)")
	note "$cc: mean sizes $sizes us; the tasks timed themselves at $small and $big us"
	set -- $sizes
	check "$cc: the small tasks' mean size is what they measured, within 20%" within "$2" "$small" 0.20 1
	check "$cc: the big tasks' too" within "$3" "$big" 0.20 5
	# Its children's time counted, it would be over a small and a big
	# task's; its own is creating three tasks (with culprit's capture of
	# each: 15 us in the sanitizer build, 1 to 2 us otherwise).
	check "$cc: a level's own task is smaller than a small task (its children's time left out)" \
		below "$1" "$small"
	# The histogram: the small tasks' fullest bucket is the one their own
	# clocks fill most (not their mean's: on a busy machine a few
	# preempted tasks take far longer, on both clocks).
	bucket=$(sql t-$cc.db "SELECT bucket FROM task_histograms h JOIN (SELECT site FROM task_types ORDER BY size LIMIT 1 OFFSET 1) s ON s.site = h.site WHERE kind = 'size' ORDER BY tasks DESC LIMIT 1")
	want=$(awk '$1 == "small_bucket" { print $2 }' t-$cc.out)
	check "$cc: the small tasks' fullest size bucket is the one their own clocks fill most (bucket $bucket, $want), or next to it" \
		sh -c "[ $bucket -ge $((want - 1)) ] && [ $bucket -le $((want + 1)) ]"
	check "$cc: every task has a size and a wait in the histograms" \
		[ "$(sql t-$cc.db "SELECT sum(tasks) FROM task_histograms WHERE kind = 'size'")/$(sql t-$cc.db "SELECT sum(tasks) FROM task_histograms WHERE kind = 'wait'")" = 900/900 ]
done
if [ -x "$PROGRAMS/omp_task_types-clang" ]; then
	check "clang: each type is named by the line of its task construct" \
		[ "$(sql t-clang.db "SELECT group_concat(line, ' ') FROM (SELECT line FROM task_types ORDER BY line)")" = "$(line_of small) $(line_of big) $(line_of level)" ]
	"$CULPRIT" report --tasks t-clang.db > r.txt 2> r.err
	check "report --tasks: status 0, a row per type with its line, size and wait histograms" \
		sh -c "[ ! -s r.err ] && [ \$(grep -c ' size spawn  omp_task_types.c:' r.txt) = 3 ] &&
		       [ \$(grep -c ' wait *$' r.txt) = 3 ]"
	"$CULPRIT" report --tasks --format=csv t-clang.db > r.csv
	check "report --tasks --format=csv: a row per type, kind and bucket" \
		sh -c "head -n 1 r.csv | grep -q '^experiment,label,threads,procedure,file,line,site,tasks,size,wait,kind,bucket,from_seconds,to_seconds,count$' &&
		       [ \$(awk -F, 'NR > 1 && \$11 == \"size\" { n += \$15 } END { print n }' r.csv) = 900 ]"
	# Across runs: one row of types per experiment.
	"$CULPRIT" scale -q -t 1,2 -o s -- "$PROGRAMS/omp_task_types-clang" 100 > /dev/null
	prof s
	check "scale: task types in each experiment" \
		[ "$(sql s.db "SELECT group_concat(n, ' ') FROM (SELECT count(*) AS n FROM task_types GROUP BY experiment_id ORDER BY experiment_id)")" = "3 3" ]
	"$CULPRIT" report --tasks s.db > s.txt
	check "report --tasks: a block per run" sh -c "grep -q '^t1 (1 thread)' s.txt && grep -q '^t2 (2 threads)' s.txt"
fi
"$CULPRIT" run -q -o plain "$PROGRAMS/leaves" 10 > /dev/null
prof plain
"$CULPRIT" report --tasks plain.db > p.out 2> p.err
check "report --tasks without tasks: status 0, it says the program created none" \
	sh -c "[ $? = 0 ] && [ ! -s p.err ] && grep -q '^no explicit tasks: the program created none' p.out"
# A database that lost the task views (edited, or damaged): one line, status 1.
cp plain.db old.db
sql old.db "DROP VIEW task_histograms; DROP VIEW task_types" > /dev/null
"$CULPRIT" report --tasks old.db > o.out 2> o.err
check "report --tasks on a database without the task views: one line, make it again, status 1" \
	sh -c "[ $? = 1 ] && [ \$(wc -l < o.err) = 1 ] && grep -q 'damaged: it has no task_types.*culprit prof --force' o.err && [ ! -s o.out ]"

done_testing
