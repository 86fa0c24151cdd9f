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

# A full queue of real-time signals (a low RLIMIT_SIGPENDING; a tracer
# that holds them): the kernel sends a plain SIGIO instead, whose default
# action ended culprit run as it measured its sample lead (status 157).
if have prlimit && prlimit --sigpending=1:1 true 2> /dev/null; then
	rc=0
	prlimit --sigpending=1:1 "$CULPRIT" run -q -o sp1 /bin/true 2> /dev/null || rc=$?
	check "sigpending 1: culprit run /bin/true ends, status 0 (it is $rc; 157: SIGIO)" [ "$rc" = 0 ]
	rc=0
	prlimit --sigpending=1:1 "$CULPRIT" run -q -o sp2 "$PROGRAMS/pt_share" 4000000 > sp2.out 2>&1 || rc=$?
	lost=0
	for f in sp2/*.thread; do
		n=$(counter "$f" dropped:queue_full)
		lost=$((lost + ${n:-0}))
	done
	check "sigpending 1: a sampled program with no room for its signals ends as it would (status $rc), its samples counted lost ($lost)" \
		sh -c "[ $rc = 0 ] && grep -q 'pt_share done' sp2.out && [ $lost -gt 0 ]"
else
	skip "sigpending 1: culprit run and the program survive a full signal queue" "no prlimit"
fi
if have strace && strace -o /dev/null true 2> /dev/null; then
	rc=0
	# LeakSanitizer (a sanitizer build's culprit) refuses to run under
	# ptrace, and says so with status 1: its leak check is off here.
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -f -o /dev/null "$CULPRIT" run -q -o st1 "$PROGRAMS/pt_share" 4000000 > st1.out 2>&1 || rc=$?
	check "strace -f culprit run: ends as it would (status $rc)" \
		sh -c "[ $rc = 0 ] && grep -q 'pt_share done' st1.out"
else
	skip "strace -f culprit run: ends as it would" "strace cannot trace here"
fi

done_testing
