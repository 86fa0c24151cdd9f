#!/bin/sh
# run-exits.sh - every way to end: the exit status is the program's own,
# and the measurements of every thread are on disk, also when two threads
# crash at the same moment.
. "${srcdir:-.}/tests/lib.sh"

P=$PROGRAMS/exits
# mode, expected status, expected end of the process file
for c in "return 0 by.exit" "exit 5 by.exit,.status.5" "_exit 6 by._exit,.status.6" \
	 "_Exit 8 by._exit,.status.8" "pthread_exit 0 by.exit" "exec 4 by.exec" \
	 "segv 139 by.signal.11" "abort 134 by.signal.6" "term 143 by.signal.15" \
	 "int 130 by.signal.2" "segv2 139 by.signal.11" "abort2 134 by.signal.6"; do
	set -- $c
	mode=$1 want=$2 end=$3
	"$P" "$mode" > plain.txt 2>/dev/null
	plain=$?
	profile "m-$mode" "$P" "$mode" > out.txt 2>err.txt
	got=$?
	check "$mode: exit status $got is the program's own ($plain)" [ "$got" = "$plain" ]
	check "$mode: status is $want, as a shell reports it" [ "$got" = "$want" ]
	check "$mode: standard output is unchanged" cmp -s plain.txt out.txt
	p=$(one_file "m-$mode"/exits-*-0.process)
	check "$mode: the process file exists" [ -n "$p" ]
	[ -n "$p" ] && check "$mode: the process file says it ended $end" \
		sh -c "\"$CULPRIT\" dump '$p' | grep -Eq 'ended .* ${end}'"
	check "$mode: both threads have files" [ "$(ls "m-$mode"/exits-*-0-t*.thread | wc -l)" = 2 ]
	f=$(one_file "m-$mode"/exits-*-0-t0.thread)
	check "$mode: the main thread's work is recorded" at_least "$(exclusive "$f" main_work)" 5
	for t in "m-$mode"/*.thread; do
		"$CULPRIT" dump "$t" > /dev/null 2>&1 || not_ok "$mode: $t is damaged"
	done
done

# Two threads crashing together: whichever handler runs second must wait
# for the first to finish writing, every time (before: 0-byte files, 10
# runs out of 10).
for mode in abort2 segv2; do
	whole=0
	for i in 1 2 3 4 5; do
		rm -rf "r-$mode"
		profile "r-$mode" "$P" "$mode" > /dev/null 2>&1
		ok=1
		for t in "r-$mode"/*.thread "r-$mode"/*.process; do
			[ -s "$t" ] && "$CULPRIT" dump "$t" > /dev/null 2>&1 || ok=0
		done
		[ "$(ls "r-$mode"/*.thread 2>/dev/null | wc -l)" = 2 ] || ok=0
		whole=$((whole + ok))
	done
	check "$mode: 5 runs out of 5 leave every file whole ($whole)" [ "$whole" = 5 ]
done

done_testing
