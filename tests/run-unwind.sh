#!/bin/sh
# run-unwind.sh - frames without unwind information, and unwinding through
# a bad frame pointer: a partial path, never a crash.
. "${srcdir:-.}/tests/lib.sh"

P=$PROGRAMS/unwind
profile m "$P" noinfo > out.txt
check "noinfo: program ran normally" grep -q "noinfo done" out.txt
f=$(one_file m/unwind-*-t0.thread)
all=$(total "$f")
check "noinfo: the frame without unwind information is on the path" nearly_all "$(inclusive "$f" mid_noinfo)" "$all"
check "noinfo: the paths through it are complete" [ "$(counter "$f" unwind:partial)" = 0 ]
check "noinfo: and reach main" nearly_all "$(inclusive "$f" main)" "$all"

profile b "$P" badrbp > out.txt
check "badrbp: the program survived" grep -q "badrbp survived" out.txt
f=$(one_file b/unwind-*-t0.thread)
faults=$(counter "$f" unwind:faults)
partial=$(counter "$f" unwind:partial)
note "$faults faults caught, $partial partial paths"
check "badrbp: reads through the bad pointer faulted and were caught" at_least "$faults" 1
check "badrbp: those samples are partial paths" at_least "$partial" "$faults"
check "badrbp: partial paths hang under their own root" \
	sh -c "\"$CULPRIT\" dump '$f' | grep -A1 '<partial unwind>' | grep -q bad_rbp_spin"
check "badrbp: samples outside the bad frame are complete" [ "$(inclusive "$f" main)" -gt 0 ]

done_testing
