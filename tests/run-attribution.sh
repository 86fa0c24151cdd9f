#!/bin/sh
# run-attribution.sh - samples land where the time went: leaf functions
# with known shares of the work, wall-clock versus CPU time, deep stacks
# and the depth cap.
. "${srcdir:-.}/tests/lib.sh"

# Three leaves doing 1, 2 and 4 units of the same work: about 1/7, 2/7,
# 4/7, and exactly what the program measures on its own CPU clock.  At 4 kHz a second of work gives some 4000 samples, so that the checks
# below (3 points) are far outside sampling noise (about 0.8 points).
profile_e m CPUTIME@f4000 "$PROGRAMS/leaves" > out.txt
check "leaves: program ran normally" grep -q "leaves done" out.txt
f=$(one_file m/leaves-*-t0.thread)
all=$(total "$f")
note "$all samples"
# The rate: 1000 samples per second of the thread's CPU time.  Without
# perf_event (a container) CPU time comes from the kernel tick instead.
secs=$("$CULPRIT" dump --tsv "$f" | awk -F'\t' 'NR>1 { w += $11 } END { print w / 1e9 }')
rate=$(awk -v s="$all" -v t="$secs" 'BEGIN { print (t > 0 ? s / t : 0) }')
note "$all samples in $secs s of CPU time: $rate per second"
if "$CULPRIT" dump "$(one_file m/*.process)" | grep -q cpu-timer; then
	check "leaves: at least 100 samples per CPU second (kernel-tick timer)" at_least "$rate" 100
else
	check "leaves: 4000 samples per CPU second, within 5%" near "$rate" 4000 200
	# The default rate.
	profile d1 "$PROGRAMS/leaves" 60 > /dev/null
	f1=$(one_file d1/leaves-*-t0.thread)
	r1=$("$CULPRIT" dump --tsv "$f1" | awk -F'\t' 'NR>1 { w += $11; s += $10 } END { print (w > 0 ? s / (w / 1e9) : 0) }')
	note "default: $r1 samples per CPU second"
	check "default rate: 1000 samples per CPU second, within 5%" near "$r1" 1000 50
fi
leaves=$(( $(exclusive "$f" leaf_one) + $(exclusive "$f" leaf_two) + $(exclusive "$f" leaf_four) ))
for fn in leaf_one leaf_two leaf_four; do
	want=$(leaf_share out.txt $fn cpu)
	got=$(percent "$(exclusive "$f" "$fn")" "$leaves")
	note "$fn: $got% of the leaves' samples (the program measured $want% of their CPU time)"
	check "leaves: $fn has the share of the samples that it measured, within 3 points" near "$got" "$want" 3
done
check "leaves: every path is complete" [ "$(counter "$f" unwind:partial)" = 0 ]
check "leaves: main holds all the samples" nearly_all "$(inclusive "$f" main)" "$all"
check "leaves: work is the sum of measured deltas, not samples x period" \
	sh -c "\"$CULPRIT\" dump --tsv '$f' | awk -F'\t' 'NR>1 { w += \$11; s += \$10 } END { exit !(w != s * 250000 && w > s * 225000 && w < s * 275000) }'"

# Wall-clock time sees the sleeps that CPU time does not: a sleeping
# thread is idle (cause sleep), its samples its own waiting, not work.
profile_e r REALTIME@2ms "$PROGRAMS/sleeper" > out.txt
check "sleeper: sleeps are not cut short by wall-clock samples" grep -q "full time: yes" out.txt
f=$(one_file r/sleeper-*-t0.thread)
# Work (column 11) is the sum of measured wall-clock deltas: right even
# when a busy machine delays and merges timer signals, which skews counts.
work=$(total "$f" 11)
slept=$(counter "$f" idle_value:realtime:sleep)
nap=$(inclusive "$f" nap 11)
note "REALTIME: $work ns of work ($nap in nap), $slept ns seen asleep"
check "REALTIME: about half the wall-clock time is seen asleep" \
	near "$(percent "$slept" "$(awk -v a="$work" -v b="$slept" 'BEGIN { print a + b }')")" 50 8
check "REALTIME: sleeping is not work in nap()" below "$(percent "$nap" "$work")" 5
profile c "$PROGRAMS/sleeper" > out.txt
f=$(one_file c/sleeper-*-t0.thread)
nap=$(inclusive "$f" nap)
all=$(total "$f")
note "CPUTIME: $nap of $all samples while napping"
check "CPUTIME: nap() costs almost no CPU time" at_least 5 "$(percent "$nap" "$all")"

# A deep stack comes back whole; past the depth cap, it is marked.
profile d "$PROGRAMS/recurse" 40 > out.txt
f=$(one_file d/recurse-*-t0.thread)
depth=$("$CULPRIT" dump --tsv "$f" | awk -F'\t' '$8 == "deep_leaf" && $10 > m { m = $10; d = $3 } END { print d + 0 }')
note "deep_leaf is at depth $depth"
check "recursion: 40 frames of descend() below main" at_least "$depth" 45
check "recursion: every path is complete" [ "$(counter "$f" unwind:partial)" = 0 ]
CULPRIT_MAX_DEPTH=16 profile t "$PROGRAMS/recurse" 40 > out.txt
f=$(one_file t/recurse-*-t0.thread)
check "depth cap: deep samples are counted as truncated" at_least "$(counter "$f" unwind:truncated)" 1
check "depth cap: a truncated marker stands between main and the leaf" \
	sh -c "\"$CULPRIT\" dump '$f' | awk '/ main / { m = 1 } m && /<truncated unwind>/ { t = 1 } t && /deep_leaf/ { ok = 1 } END { exit !ok }'"
check "depth cap: no path is longer than the cap" \
	sh -c "\"$CULPRIT\" dump --tsv '$f' | awk -F'\t' 'NR>1 && \$3 > 17 { bad = 1 } END { exit bad }'"

done_testing
