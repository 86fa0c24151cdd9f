#!/bin/sh
# run-threads.sh - one measurement file for every thread, however it ends.
. "${srcdir:-.}/tests/lib.sh"

profile m "$PROGRAMS/threads" > out.txt
check "threads: program ran normally" grep -q "threads done" out.txt
count=$(ls m/*.thread | wc -l)
check "threads: six thread files (main, three workers, detached, cancelled)" [ "$count" = 6 ]
for i in 1 2 3; do
	f=$(thread_file m "worker-$i")
	check "threads: worker-$i has a file" [ -n "$f" ]
	[ -n "$f" ] || continue
	case $i in 1) fn=worker_one ;; 2) fn=worker_two ;; 3) fn=worker_three ;; esac
	check "threads: worker-$i's samples are in $fn" at_least "$(exclusive "$f" "$fn")" 10
	# Its measured CPU time (column 11), for the ratios below: exact,
	# where sample counts carry sampling noise.
	s=$(exclusive "$f" "$fn" 11)
	eval "s$i=$s"
	check "threads: worker-$i's paths start at the thread's root" [ "$(counter "$f" unwind:partial)" = 0 ]
	# Rooted where the thread was created, not in clone/start_thread.
	check "threads: worker-$i's paths start at main, which created it" \
		nearly_all "$(inclusive "$f" main)" "$(total "$f")"
	check "threads: worker-$i's paths do not show start_thread" [ "$(inclusive "$f" start_thread)" = 0 ]
done
note "worker CPU time (ns): $s1 $s2 $s3"
check "threads: worker-2 did twice worker-1's work, within 10%" near "$(awk -v a="$s2" -v b="$s1" 'BEGIN{print a/b}')" 2 0.2
check "threads: worker-3 did three times worker-1's work, within 10%" near "$(awk -v a="$s3" -v b="$s1" 'BEGIN{print a/b}')" 3 0.3
f=$(thread_file m detached)
check "threads: the detached thread that called pthread_exit has a file" [ -n "$f" ]
# Either it ended first, or main's exit wrote it while it was on its way.
[ -n "$f" ] && check "threads: it ended by thread-exit (or by the process's exit)" \
	sh -c "\"$CULPRIT\" dump '$f' | grep -Eq 'by (thread-exit|exit)'"
f=$(thread_file m cancelled)
check "threads: the cancelled thread has a file" [ -n "$f" ]
[ -n "$f" ] && check "threads: it ended by cancellation" sh -c "\"$CULPRIT\" dump '$f' | grep -q 'by cancelled'"
p=$(one_file m/*.process)
check "threads: the process file counts six threads" sh -c "\"$CULPRIT\" dump '$p' | grep -q '^threads *6'"

# A thread created by a thread: the whole chain of creators.
profile n "$PROGRAMS/nested_threads" > nested.txt
check "threads: the nested program ran" grep -q "nested_threads done" nested.txt
if have sqlite3; then
	prof n
	path=$(sql n.db "SELECT group_concat(procedure, ' > ') FROM (
		WITH RECURSIVE up(id, parent_id, procedure, kind, depth) AS (
			SELECT c.id, c.parent_id, c.procedure, c.kind, 0 FROM contexts c
			WHERE c.kind = 'frame' AND c.procedure = 'inner'
			UNION ALL
			SELECT c.id, c.parent_id, c.procedure, c.kind, up.depth + 1
			FROM contexts c JOIN up ON c.id = up.parent_id)
		SELECT procedure FROM up WHERE kind = 'frame' ORDER BY depth DESC)")
	note "inner's path: $path"
	check "threads: a thread's thread is under main > spawn_outer > outer > spawn_inner > inner" \
		sh -c "echo '$path' | grep -q 'main > spawn_outer > outer > spawn_inner > inner\$'"
	work=$(sql n.db "SELECT sum(inclusive) FROM procedure_metrics WHERE procedure = 'inner' AND event = 'cputime' AND metric = 'work'")
	total=$(sql n.db "SELECT total FROM metrics WHERE event = 'cputime' AND metric = 'work'")
	check "threads: that path has nearly all the work" at_least "$(ratio "$work" "$total")" 0.98
else
	skip "threads: a thread's thread is under all its creators" "the sqlite3 program is not installed"
fi

# 10,000 threads that come and go: every one measured and read back.
"$PROGRAMS/churn" > churn-plain.out
plain=$?
profile churn "$PROGRAMS/churn" > churn.out
got=$?
check "10,000 threads: the same output and status" \
	sh -c "cmp -s churn-plain.out churn.out && [ $got = $plain ] && [ $got = 0 ]"
check "10,000 threads: a file for each, and for main" [ "$(ls churn | grep -c '\.thread$')" = 10001 ]
prof churn
check "10,000 threads: prof reads them all" [ "$(sql churn.db 'SELECT count(*) FROM threads')" = 10001 ]

done_testing
