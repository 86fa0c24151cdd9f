#!/bin/sh
# run-events.sh - several events at once, the fallback to POSIX CPU-time
# timers where perf_event_open is refused, the tree's memory bound, and
# the MPI rank.
. "${srcdir:-.}/tests/lib.sh"

P=$PROGRAMS/leaves

# Three events: CPU time, wall-clock time and a libpfm4 software event.
# Thousands of samples per event, so that 4 points is far outside noise.
"$CULPRIT" run -q -e CPUTIME@f4000 -e REALTIME@250us -e perf::cpu-clock@f3000 -o m "$P" > out.txt
check "three events: program ran normally" grep -q "leaves done" out.txt
p=$(one_file m/leaves-*.process)
for ev in "cputime *ns *perf_event" "realtime *ns *real-timer" "perf::cpu-clock *ns *perf_event"; do
	check "three events: the process file lists '$ev'" sh -c "\"$CULPRIT\" dump '$p' | grep -Eq '^ *[0-9]+ +$ev'"
done
f=$(one_file m/leaves-*-t0.thread)
# The truth is what the program measured on its own clocks (the wall
# clock for realtime), about 4/7.  Measured work, not sample counts: a
# preempted thread's next wall-clock sample carries the whole gap.
for ev in cputime:cpu realtime:wall perf::cpu-clock:cpu; do
	clock=${ev##*:}
	ev=${ev%:*}
	all=$(total "$f" "$(column "$f" "$ev:samples")")
	col=$(column "$f" "$ev:work")
	leaves=$(( $(exclusive "$f" leaf_one "$col") + $(exclusive "$f" leaf_two "$col") + $(exclusive "$f" leaf_four "$col") ))
	four=$(percent "$(exclusive "$f" leaf_four "$col")" "$leaves")
	want=$(leaf_share out.txt leaf_four $clock)
	note "$ev: $all samples, leaf_four $four% of the leaves' work (the program measured $want%)"
	check "three events: $ev has samples" at_least "$all" 1000
	check "three events: $ev gives leaf_four the share of the work it measured, within 4 points" near "$four" "$want" 4
done

# perf_event_open refused: CPU time falls back to a timer, with one warning.
if "$PROGRAMS/noperf" true; then
	# Many short rounds: tick-driven samples are correlated within a round.
	"$PROGRAMS/noperf" "$CULPRIT" run -q -o t "$P" 4000 50000 > out.txt 2> err.txt
	rc=$?
	note "$(cat err.txt)"
	check "no perf_event: the program ran" [ "$rc" = 0 ]
	check "no perf_event: one warning line" [ "$(wc -l < err.txt)" = 1 ]
	check "no perf_event: the warning says why and what happens" \
		grep -q "refused.*POSIX CPU-time timer.*kernel tick" err.txt
	p=$(one_file t/leaves-*.process)
	check "no perf_event: the process file says cpu-timer" sh -c "\"$CULPRIT\" dump '$p' | grep -q cpu-timer"
	f=$(one_file t/leaves-*-t0.thread)
	all=$(total "$f")
	one=$(exclusive "$f" leaf_one)
	two=$(exclusive "$f" leaf_two)
	four=$(exclusive "$f" leaf_four)
	want=$(leaf_share out.txt leaf_four cpu)
	note "timer: $all samples: leaf_one $one, leaf_two $two, leaf_four $four (the program measured $want% in leaf_four)"
	# The timer fires at the kernel tick (250 a CPU second here), and on a
	# crowded CPU it loses expirations (85 a CPU second with three busy
	# loops on two cores): some 2 s of CPU time keep this above 100.
	check "no perf_event: samples are still taken" at_least "$all" 100
	# The kernel tick makes these samples noisier than perf_event's.
	check "no perf_event: leaf_four > leaf_two > leaf_one" sh -c "[ $four -gt $two ] && [ $two -gt $one ]"
	check "no perf_event: leaf_four has the share of the samples it measured, within 10 points" \
		near "$(percent "$four" $((one + two + four)))" "$want" 10
else
	note "seccomp is not available here: the fallback is not tested"
fi

# A bound on the tree: samples beyond it are dropped and counted, with a note.
CULPRIT_MAX_NODES=16 profile b "$PROGRAMS/recurse" 40 > out.txt
f=$(one_file b/recurse-*-t0.thread)
check "tree bound: the program ran normally" grep -q "recursion done" out.txt
check "tree bound: the tree stops at 16 nodes" [ "$(counter "$f" tree:nodes)" = 16 ]
check "tree bound: dropped samples are counted" at_least "$(counter "$f" dropped:tree_full)" 1
check "tree bound: the file says the limit was hit" sh -c "\"$CULPRIT\" dump '$f' | grep -q 'note.*limit of 16 nodes'"

# MPI ranks come from the launchers' variables.
OMPI_COMM_WORLD_RANK=3 profile r "$P" 5 > /dev/null
check "MPI: Open MPI's rank is recorded" sh -c "\"$CULPRIT\" dump r/*.process | grep -q 'MPI rank 3 (OMPI_COMM_WORLD_RANK)'"
PMI_RANK=11 profile r2 "$P" 5 > /dev/null
check "MPI: MPICH's rank is recorded" sh -c "\"$CULPRIT\" dump r2/*.process | grep -q 'MPI rank 11 (PMI_RANK)'"
profile r3 "$P" 5 > /dev/null
"$CULPRIT" dump r3/*.process > r3.txt
check "MPI: no rank outside a launcher" has_not r3.txt "^process +pid [0-9]+" "MPI rank"

done_testing
