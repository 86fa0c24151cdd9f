#!/bin/sh
# run-signals.sh - the program's own signals keep working, and culprit's
# sample signal stays out of its way.
. "${srcdir:-.}/tests/lib.sh"

P=$PROGRAMS/sigs
for mode in prof blockall ownsig sigsegv allrt altstack; do
	"$P" "$mode" > plain.txt
	plain=$?
	profile "m-$mode" "$P" "$mode" > out.txt 2> err.txt
	got=$?
	note "$mode: $(cat out.txt)"
	check "$mode: same output as without culprit" cmp -s plain.txt out.txt
	check "$mode: same exit status" [ "$got" = "$plain" ]
	f=$(one_file "m-$mode"/sigs-*-t0.thread)
	check "$mode: culprit still took samples" at_least "$(exclusive "$f" busy)" 50
done
check "prof: the program's own SIGPROF profiling gets its ticks" sh -c "\"$CULPRIT\" run -q -o p2 '$P' prof | grep -q many"
check "blockall: the program believes it blocked culprit's signal" \
	sh -c "\"$CULPRIT\" run -q -o b2 '$P' blockall | grep -q 'SIGRTMIN+7 blocked: yes'"
check "ownsig: a program using culprit's signal number is warned once" \
	sh -c "\"$CULPRIT\" run -q -o o2 '$P' ownsig 2>&1 >/dev/null | grep -c 'uses signal' | grep -qx 1"

check "allrt: every real-time signal the program raised reached its handler" \
	sh -c "\"$CULPRIT\" run -q -o r2 '$P' allrt 2>/dev/null | grep -Eq 'delivered: ([0-9]+) of \\1\$'"
check "altstack: the program's handlers run on its own sigaltstack" \
	sh -c "\"$CULPRIT\" run -q -o a2 '$P' altstack | grep -q 'altstack: yes; altstack still the program.s: yes'"

done_testing
