#!/bin/sh
# run-create-fail.sh - pthread_create calls that fail: the program sees
# the failures as it would without culprit, and the records captured for
# the threads that were never made are given back (the plugins' release
# hook), so that every record made is freed by the end.
. "${srcdir:-.}/tests/lib.sh"

# sum_counter DIR NAME: a counter summed over DIR's thread files.
sum_counter() {
	local f v s=0
	for f in "$1"/*.thread; do
		v=$(counter "$f" "$2")
		s=$((s + ${v:-0}))
	done
	echo "$s"
}

"$PROGRAMS/create_fail" > plain.txt
plain=$?
profile m "$PROGRAMS/create_fail" > out.txt
status=$?
note "$(cat out.txt)"
check "create-fail: the program's own creations failed, all five" grep -q "5 of 5 impossible creations failed" plain.txt
check "create-fail: it exits with 0, alone and under culprit" [ "$plain:$status" = 0:0 ]
check "create-fail: under culprit it prints what it prints alone" cmp -s plain.txt out.txt

count=$(ls m/*.thread | wc -l)
check "create-fail: four thread files (main, spawner, two workers), none for a failed try" [ "$count" = 4 ]
p=$(one_file m/*.process)
check "create-fail: the process file counts four threads" sh -c "\"$CULPRIT\" dump '$p' | grep -q '^threads *4\$'"

# Every try captured its creator's context: main two failed and the
# spawner, the spawner three failed and two workers.
captures=$(sum_counter m context:captures)
freed=$(sum_counter m context:freed)
note "records: $captures captured, $freed freed"
check "create-fail: eight records captured, one per try" [ "$captures" = 8 ]
check "create-fail: all eight freed: none left alive by a failed try" [ "$freed" = 8 ]
main=$(thread_file m create_fail)
check "create-fail: main freed the records of its two failed tries itself" \
	[ "$(counter "$main" context:freed)" = 2 ]
s=$(thread_file m spawner)
check "create-fail: the spawner freed its three failed tries' records and its own" \
	[ "$(counter "$s" context:freed)" = 4 ]

# The workers' work is still rooted where the spawner created them.
for i in 1 2; do
	f=$(thread_file m "worker-$i")
	check "create-fail: worker-$i has a file" [ -n "$f" ]
	[ -n "$f" ] || continue
	check "create-fail: worker-$i has samples" at_least "$(total "$f")" 20
	check "create-fail: worker-$i's paths pass through spawn_workers, which created it" \
		nearly_all "$(inclusive "$f" spawn_workers)" "$(total "$f")"
	check "create-fail: worker-$i's paths start at main" nearly_all "$(inclusive "$f" main)" "$(total "$f")"
done

done_testing
