#!/bin/sh
# run-quality.sh - how far a run's figures can be trusted: culprit's own
# cost as the measurement metric, the measurement_quality table, and
# culprit prof's warning when an item passes 5%.
. "${srcdir:-.}/tests/lib.sh"
have sqlite3 || skip_all "the sqlite3 program is not installed"

export OMP_NUM_THREADS=2

# share DB: culprit's own work in its callbacks, as % of the sampled time.
share() {
	sql "$1" "SELECT round(percent, 2) FROM measurement_quality WHERE item = 'culprit:callbacks'"
}

if [ -x "$PROGRAMS/omp_fib-clang" ]; then
	# ---- fine tasks: culprit's callbacks are a large part of the run -------
	profile fine "$PROGRAMS/omp_fib-clang" 27 2 > fine.out
	check "fine tasks: the program ran" grep -q "fib(27) = 196418" fine.out
	prof fine 2> fine.err
	fshare=$(share fine.db)
	note "fine fib(27, 2): culprit's callbacks $fshare% of the sampled time; $(cat fine.err)"
	check "fine tasks: the measurement metric is in the database" \
		[ "$(sql fine.db "SELECT count(*) FROM metrics WHERE event = 'cputime' AND metric = 'measurement' AND total > 0")" = 1 ]
	check "fine tasks: culprit's own work is large (over 5%)" at_least "$fshare" 5
	check "fine tasks: ... and is not the program's work: measurement samples are not samples" \
		near "$(sql fine.db "SELECT total FROM metrics WHERE event = 'cputime' AND metric = 'samples'")" \
		"$(sql fine.db "SELECT sum(value) FROM thread_counters WHERE name = 'samples'")" 0
	check "fine tasks: culprit prof warns in one line, saying what it means" \
		sh -c "[ \$(grep -c \"warning: culprit's own work took\" fine.err) = 1 ] && grep -q 'coarser tasks' fine.err"
	"$CULPRIT" report --summary fine.db > fine.summary
	check "fine tasks: report --summary says what culprit took" grep -q '^culprit itself' fine.summary

	# ---- coarse tasks: small (a few ms of 1 s: a handful of samples) --------
	profile coarse "$PROGRAMS/omp_fib-clang" 40 22 > coarse.out
	check "coarse tasks: the program ran" grep -q "fib(40) = 102334155" coarse.out
	prof coarse 2> coarse.err
	cshare=$(share coarse.db)
	note "coarse fib(40, 22): culprit's callbacks $cshare% of the sampled time"
	check "coarse tasks: culprit's own work is small (under 2%)" below "$cshare" 2
	[ -s coarse.err ] && note "coarse tasks: prof said: $(cat coarse.err)"
	check "coarse tasks: the database is written, with no warning" sh -c "[ -s coarse.db ] && [ ! -s coarse.err ]"
fi

# ---- the table adds up --------------------------------------------------------
profile lv "$PROGRAMS/leaves" 2 > /dev/null
prof lv
taken=$(sql lv.db "SELECT value FROM measurement_quality WHERE item = 'samples'")
counted=$(sql lv.db "SELECT sum(value) FROM thread_counters WHERE name IN ('samples',
	'idle_samples', 'measurement_samples', 'dropped:tree_full', 'dropped:busy')")
check "quality: samples taken are the counters' sum" [ "${taken%.0}" = "$counted" ]
check "quality: culprit's part is its callbacks and its handler" \
	near "$(sql lv.db "SELECT value FROM measurement_quality WHERE item = 'culprit'")" \
	"$(sql lv.db "SELECT sum(value) FROM measurement_quality WHERE item IN ('culprit:callbacks', 'culprit:handler')")" 0.000001

done_testing
