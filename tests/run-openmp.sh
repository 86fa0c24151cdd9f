#!/bin/sh
# run-openmp.sh - OpenMP programs through the OMPT plugin, end to end
# through the database: idleness and its causes where the ground truth is
# known, and logical paths of tasks.  Each program is built by clang (on
# LLVM's libomp) and by gcc (for libgomp, which culprit run moves onto
# libomp); the results must be the same.
. "${srcdir:-.}/tests/lib.sh"
have sqlite3 || skip_all "the sqlite3 program is not installed"

compilers=
[ -x "$PROGRAMS/omp_fib-clang" ] && compilers="$compilers clang"
[ -x "$PROGRAMS/omp_fib-gcc" ] && compilers="$compilers gcc"
[ -n "$compilers" ] || skip_all "no compiler with OpenMP support was found by configure"

export OMP_NUM_THREADS=2
# libomp's waiting threads spin for 200 ms before they sleep; with none,
# they sleep at once and CPU-time samples never see them: idleness must
# come from the worker counts alone.
export KMP_BLOCKTIME=0

# omp_fib.c's task constructs and the calls in their bodies, by line.
fib_tasks=$(grep -n '#pragma omp task shared' "$srcdir/tests/programs/omp_fib.c" | cut -d: -f1 | paste -sd,)
fib_calls=$(grep -n '= fib(n - [12], cutoff);' "$srcdir/tests/programs/omp_fib.c" | cut -d: -f1 | paste -sd,)

for cc in $compilers; do
	# ---- a serial phase between parallel phases --------------------------
	"$CULPRIT" run -e CPUTIME@f2000 -o ph-$cc "$PROGRAMS/omp_phases-$cc" > ph-$cc.out 2> ph-$cc.err
	check "$cc phases: the program ran" grep -q "omp_phases done" ph-$cc.out
	if [ $cc = gcc ]; then
		check "gcc: culprit run says, in one line, that it runs the program on libomp" \
			sh -c "[ \$(grep -c \"uses GCC's libgomp.*running it on LLVM's libomp\" ph-$cc.err) = 1 ]"
	fi
	prof ph-$cc
	db=ph-$cc.db
	work=$(pm $db serial_phase work)
	idle=$(pm $db serial_phase idleness)
	serial=$(pm $db serial_phase idleness:serial)
	note "$cc serial_phase: work $work s, idleness $idle s (serial $serial s)"
	check "$cc phases: the serial function's idleness is its own work, within 15%" \
		near "$(ratio "$idle" "$work")" 1 0.15
	check "$cc phases: all of it idleness:serial" at_least "$(ratio "$serial" "$idle")" 0.95
	bwork=$(pm $db balanced_phase work)
	bidle=$(pm $db balanced_phase idleness)
	note "$cc balanced_phase: work $bwork s, idleness $bidle s"
	# Idleness only where the threads, timing their shares, saw one wait
	# for the other (a CPU-time event misses a descheduled thread's wait:
	# 15%, or 2% of the loop's work).
	btruth=$(awk '/^balanced idle/ { print $3 }' ph-$cc.out)
	note "$cc balanced_phase: the threads waited $btruth s by their own clocks"
	check "$cc phases: the balanced loop's idleness is what its threads' clocks say, within 15% or 2% of its work" \
		within "$bidle" "$btruth" 0.15 "$(awk -v w="$bwork" 'BEGIN { print 0.02 * w }')"
	check "$cc phases: the balanced loop's work is in its iterations on both threads" \
		at_least "$(ratio "$(pm $db balanced_body work)" "$bwork")" 0.95
	total=$(sql $db "SELECT total FROM metrics WHERE event = 'cputime' AND metric = 'idleness'")
	sum=$(sql $db "SELECT sum(total) FROM metrics WHERE event = 'cputime' AND metric LIKE 'idleness:%'")
	check "$cc phases: the causes add up to idleness" near "$(ratio "$sum" "$total")" 1 0.001

	# ---- a statically scheduled loop, second half three times the first --
	profile_e im-$cc CPUTIME@f2000 "$PROGRAMS/omp_imbalance-$cc" > im-$cc.out 2>&1
	check "$cc imbalance: the program ran" grep -q "omp_imbalance done" im-$cc.out
	prof im-$cc
	db=im-$cc.db
	hwork=$(pm $db heavy work)
	hidle=$(pm $db heavy idleness)
	hbar=$(pm $db heavy idleness:barrier)
	note "$cc heavy: work $hwork s, idleness $hidle s (barrier $hbar s); light: work $(pm $db light work) s, idleness $(pm $db light idleness) s"
	# One thread runs the light half (W), the other the heavy half (3W)
	# and works alone for 2W of it: idleness 2W on work 3W on a quiet
	# machine.  The program's clocks say what it was (beside a busy
	# neighbour the halves get unequal CPU shares): the heavy thread's CPU
	# time alone, which culprit's idleness is, within 12%.
	truth=$(awk '/^idle/ { s += $3 } END { print s }' im-$cc.out)
	check "$cc imbalance: heavy iterations carry the idleness the program timed ($hidle s against $truth s), within 12%" \
		within "$hidle" "$truth" 0.12 0
	check "$cc imbalance: as idleness:barrier" at_least "$(ratio "$hbar" "$hidle")" 0.95
	check "$cc imbalance: light iterations carry almost none" \
		below "$(ratio "$(pm $db light idleness)" "$(pm $db light work)")" 0.05
	# Idleness and overhead both here: the views' effort and useful_work.
	check "$cc imbalance: effort and useful_work as defined, at every context" \
		[ "$(derived_wrong $db context_metrics)" = 0 ]
	check "$cc imbalance: ... and for every thread" \
		[ "$(derived_wrong $db context_thread_metrics)" = 0 ]
	for region in loop_in_region parallel_loop; do
		# Idleness 2W on work 4W in each kind of barrier, quietly: what
		# the program timed in each, against its work in the halves.
		said_r=$(awk -v r=$region '$1 == "idle" && $2 == r { printf "%.3f", $3 / $5 }' im-$cc.out)
		got_r=$(ratio "$(pm $db $region idleness)" "$(pm $db $region work)")
		check "$cc imbalance: $region's idleness over its work is what the program timed ($got_r against $said_r), within 0.07" \
			near "$got_r" "${said_r:-0}" 0.07
	done

	# ---- waiting for a lock ----------------------------------------------------
	profile_e lk-$cc CPUTIME@f2000 "$PROGRAMS/omp_lock-$cc" > lk-$cc.out 2>&1
	check "$cc lock: the program ran" grep -q "omp_lock done" lk-$cc.out
	prof lk-$cc
	db=lk-$cc.db
	cwork=$(pm $db in_critical work)
	cidle=$(pm $db in_critical idleness)
	note "$cc in_critical: work $cwork s, idleness $cidle s (lock $(pm $db in_critical idleness:lock) s); held: work $(pm $db held work) s, idleness $(pm $db held idleness) s; polling: work $(pm $db polling work) s"
	check "$cc lock: a contended critical section carries idleness equal to its work, within 15%" \
		near "$(ratio "$cidle" "$cwork")" 1 0.15
	check "$cc lock: as idleness:lock" at_least "$(ratio "$(pm $db in_critical idleness:lock)" "$cidle")" 0.95
	check "$cc lock: a thread polling with omp_test_lock works: its polling is sampled" \
		at_least "$(ratio "$(pm $db polling work)" "$(pm $db held work)")" 0.8
	check "$cc lock: and is not idle: the lock holder gets almost no idleness" \
		below "$(ratio "$(pm $db held idleness)" "$(pm $db held work)")" 0.05

	# ---- waiting for a task, with nothing else queued ------------------------
	profile_e tw-$cc CPUTIME@f2000 "$PROGRAMS/omp_taskwait-$cc" > tw-$cc.out 2>&1
	check "$cc taskwait: the program ran" grep -q "omp_taskwait done" tw-$cc.out
	prof tw-$cc
	db=tw-$cc.db
	twork=$(pm $db long_task work)
	tidle=$(pm $db long_task idleness)
	twait=$(awk -v a="$(pm $db long_task idleness:taskwait)" -v b="$(pm $db long_task idleness:barrier)" 'BEGIN { print a + b }')
	note "$cc long_task: work $twork s, idleness $tidle s (taskwait $(pm $db long_task idleness:taskwait) s, barrier $(pm $db long_task idleness:barrier) s); overhead $(sql $db "SELECT round(percent, 2) FROM metrics WHERE event = 'cputime' AND metric = 'overhead'")% of effort"
	check "$cc taskwait: a waiter with nothing queued is idle: the task carries idleness = its work, within 15%" \
		near "$(ratio "$tidle" "$twork")" 1 0.15
	check "$cc taskwait: as idleness:taskwait or :barrier" at_least "$(ratio "$twait" "$tidle")" 0.95
	check "$cc taskwait: ... not as the runtime's overhead (under 5% of effort)" \
		below "$(sql $db "SELECT percent FROM metrics WHERE event = 'cputime' AND metric = 'overhead'")" 5

	# ---- fork after a region ---------------------------------------------------
	profile_e fk-$cc CPUTIME@f2000 "$PROGRAMS/omp_fork-$cc" > fk-$cc.out 2>&1
	check "$cc fork: parent and child ran" sh -c "grep -q 'child done' fk-$cc.out && grep -q 'parent done' fk-$cc.out"
	prof fk-$cc
	db=fk-$cc.db
	check "$cc fork: two processes" [ "$(sql $db 'SELECT count(*) FROM processes')" = 2 ]
	swork=$(pm $db serial work)
	note "$cc serial after fork: work $swork s, idleness $(pm $db serial idleness) s (serial $(pm $db serial idleness:serial) s)"
	check "$cc fork: serial code in parent and child is charged their idle workers, within 15%" \
		near "$(ratio "$(pm $db serial idleness:serial)" "$swork")" 1 0.15

	# ---- a task-parallel recursion ------------------------------------------
	profile_e fib-$cc CPUTIME@f4000 "$PROGRAMS/omp_fib-$cc" 41 18 > fib-$cc.out 2>&1
	check "$cc fib: the program computed fib(41)" grep -q "fib(41) = 165580141" fib-$cc.out
	prof fib-$cc
	db=fib-$cc.db
	samples=$(sql $db "SELECT sum(value) FROM thread_counters WHERE name = 'samples'")
	partial=$(sql $db "SELECT sum(value) FROM thread_counters WHERE name = 'unwind:partial'")
	# Samples in fib, and those of them with open_region on their path.
	set -- $(sql $db "WITH RECURSIVE t(id, opened, infib) AS (
			SELECT id, 0, 0 FROM contexts WHERE parent_id IS NULL
			UNION ALL
			SELECT c.id, t.opened OR (c.kind = 'frame' AND c.procedure = 'open_region'),
			       t.infib OR (c.kind = 'frame' AND c.procedure = 'fib')
			FROM contexts c JOIN t ON c.parent_id = t.id)
		SELECT sum(m.exclusive), sum(CASE WHEN t.opened THEN m.exclusive ELSE 0 END)
		FROM t JOIN context_metrics m ON m.context_id = t.id
		JOIN contexts c ON c.id = t.id AND c.kind IN ('frame', 'inlined')
		WHERE t.infib AND m.event = 'cputime' AND m.metric = 'samples'" | tr '|' ' ')
	fib=${1:-0} opened=${2:-0}
	main=$(pm $db main samples)
	note "$cc fib: $samples samples, $partial partial, $fib in fib, $opened under the region's fib, $main under main"
	check "$cc fib: the recursion has most samples" at_least "$(ratio "$fib" "$samples")" 0.9
	# Outlining and start-up frames are folded: the recursion reads fib > fib.
	# A task's body is the creating fib's code: its call of fib hangs
	# from the body's line, under the line that created the task.
	check "$cc fib: a task's fib hangs from its call's line in the task, under the task's line in the fib that created it" \
		at_least "$(sql $db "SELECT count(*) FROM contexts c JOIN contexts s ON s.id = c.parent_id
			JOIN contexts t ON t.id = s.parent_id JOIN contexts p ON p.id = t.parent_id
			WHERE c.kind = 'frame' AND c.procedure = 'fib' AND s.kind = 'callsite'
			AND s.procedure = 'fib' AND s.line IN ($fib_calls) AND t.kind = 'callsite'
			AND t.line IN ($fib_tasks) AND p.kind = 'frame' AND p.procedure = 'fib'")" 10
	check "$cc fib: ... and never from the task's line itself" \
		[ "$(sql $db "SELECT count(*) FROM contexts c JOIN contexts s ON s.id = c.parent_id
			WHERE c.kind = 'frame' AND c.procedure = 'fib' AND s.line IN ($fib_tasks)")" = 0 ]
	check "$cc fib: no compiler-outlined frame is a context" \
		[ "$(sql $db "SELECT count(*) FROM contexts WHERE procedure LIKE '.omp_outlined%'
			OR procedure LIKE '.omp_task_entry%' OR procedure GLOB '*._omp_fn.[0-9]*'")" = 0 ]
	check "$cc fib: ... the contexts they were folded into name them" \
		at_least "$(sql $db "SELECT count(*) FROM contexts WHERE folded LIKE '%.omp_task_entry.%'
			OR folded GLOB '*fib._omp_fn.[0-9]*'")" 1
	check "$cc fib: the C library's start-up is folded: main hangs from the root, standing for _start" \
		[ "$(sql $db "SELECT count(*) FROM contexts c JOIN contexts r ON r.id = c.parent_id
			WHERE r.parent_id IS NULL AND c.kind = 'frame' AND c.procedure = 'main'
			AND c.folded LIKE '_start > %__libc_start%'")" = 1 ]
	# Unnamed libomp code is named by the entry point it runs under; an
	# address stands alone only where the program called it directly.
	check "$cc fib: no bare libomp address below another libomp frame: internals are named by their entry point" \
		[ "$(sql $db "SELECT count(*) FROM contexts c JOIN contexts s ON s.id = c.parent_id
			JOIN contexts p ON p.id = s.parent_id WHERE c.kind = 'frame'
			AND c.procedure LIKE 'libomp%+0x%' AND p.module LIKE '%libomp%'")" = 0 ]
	"$CULPRIT" report --folded --depth=6 $db > fib-$cc-folded.txt
	check "$cc fib: report --folded names the folded frames" \
		grep -Eq "^ .* fib  <- omp_fib.c:[0-9]+  \[folded: .*(omp_task_entry|_omp_fn)" fib-$cc-folded.txt
	check "$cc fib: at least 99% of samples have their full logical path from main" \
		at_least "$(ratio "$main" "$samples")" 0.99
	check "$cc fib: at most 1% of samples are partial" below "$(ratio "$partial" "$samples")" 0.01
	check "$cc fib: the recursion hangs from the function that opened the region" \
		at_least "$(ratio "$opened" "$fib")" 0.99
	outside=$(sql $db "SELECT coalesce(sum(m.inclusive), 0) FROM contexts c
		JOIN context_metrics m ON m.context_id = c.id AND m.event = 'cputime' AND m.metric = 'samples'
		WHERE c.parent_id = (SELECT id FROM contexts WHERE parent_id IS NULL) AND c.procedure <> 'main'")
	check "$cc fib: at most 1% of samples under a root other than the program's start" \
		below "$(ratio "$outside" "$samples")" 0.01
	tasks=$(sql $db "SELECT sum(value) FROM thread_counters WHERE name = 'context:captures'")
	note "$cc fib: $tasks context records captured"
	check "$cc fib: a record for each task (at least 40000)" at_least "${tasks:-0}" 40000

	# ---- tasks set aside and resumed: untied, undeferred ---------------------
	for threads in 1 2; do
		OMP_NUM_THREADS=$threads profile ut-$cc-$threads "$PROGRAMS/omp_untied-$cc" > ut.out
		check "$cc untied, $threads threads: the program ran" grep -q "omp_untied done" ut.out
		prof ut-$cc-$threads
		db=ut-$cc-$threads.db
		# serial() right under main, and one main whose work is all of it.
		parent=$(sql $db "SELECT p.procedure FROM contexts c JOIN contexts s ON s.id = c.parent_id
			JOIN contexts p ON p.id = s.parent_id WHERE c.procedure = 'serial' AND c.kind = 'frame'")
		mains=$(sql $db "SELECT count(*) FROM contexts WHERE procedure = 'main' AND kind = 'frame'")
		share=$(sql $db "SELECT round(100.0 * (SELECT sum(inclusive) FROM procedure_metrics WHERE
			procedure = 'main' AND event = 'cputime' AND metric = 'work') / (SELECT total FROM
			metrics WHERE event = 'cputime' AND metric = 'work'), 1)")
		note "$cc untied, $threads threads: serial() under $parent; $mains main frame(s) with $share% of the work; untied/serial $(ratio "$(pm $db untied_tasks work)" "$(pm $db serial work)"), undeferred/serial $(ratio "$(pm $db undeferred_tasks work)" "$(pm $db serial work)")"
		check "$cc untied, $threads threads: serial code after the region is under main" \
			[ "$parent" = main ]
		check "$cc untied, $threads threads: one main, with all of the work" \
			sh -c "[ '$mains' = 1 ] && awk -v s='$share' 'BEGIN { exit !(s >= 99 && s <= 100.01) }'"
		# Per task, each kind does three units of work: serial() one.  The
		# tasks run two at a time and serial() alone, so on a loaded machine
		# a unit costs the tasks more CPU time than serial(), never less:
		# 10% in CI's sanitizer build, 15.2% in its gcc build (3.456).  So
		# the ratio may be up to 20% high, and at most 15% low, which still
		# catches a lost sixth of the tasks' work (2.5).
		r=$(ratio "$(pm $db untied_tasks work)" "$(pm $db serial work)")
		check "$cc untied, $threads threads: untied tasks and their children under the function that created them ($r)" \
			sh -c "awk -v r=$r 'BEGIN { exit !(r >= 2.55 && r <= 3.6) }'"
		r=$(ratio "$(pm $db undeferred_tasks work)" "$(pm $db serial work)")
		check "$cc untied, $threads threads: undeferred tasks and their children likewise ($r)" \
			sh -c "awk -v r=$r 'BEGIN { exit !(r >= 2.55 && r <= 3.6) }'"
	done

	# ---- short parallel regions: idleness against the program's clocks ----------
	# 50 us and 0.4 ms regions, thread 0 doing twice the work (shorter
	# ones: bench/idle_accuracy.sh, where a sample's own stall is a large
	# part of a region and runs spread more; and not 1 ms, the sampling
	# period, at which every sample meets a region at the same point).
	# Three runs of each, and the median of culprit's idleness over the
	# program's: one run on a busy 2-core machine strays by 10% now and
	# then (0.90 to 1.04 measured), as the program's own clocks do.  At
	# 60 us the states' few microseconds of lag per region are a tenth of
	# a region's idleness: CI measured medians of 0.88 and 0.77 there
	# (ratios 0.83 to 0.93, and 0.76 to 0.77, in two of five runs), so
	# the short shape is held to 25% and the 0.3 ms one to 10%.  The 0.3 ms
	# shape runs 6000 regions: at 2000, thread 0 took some 250 samples
	# in its regions' tails at 1 kHz, a binomial error of 5% a run besides
	# the states' lag (3 to 5% low), and medians of 0.87 and 0.89 failed
	# on a quiet machine; at 6000 the error is 3% a run (ratios 0.94 to
	# 0.98 in eight runs).
	for shape in "20000 12500 0.25" "6000 90000 0.1"; do
		set -- $shape
		ratios=""
		for run in 1 2 3; do
			profile rg-$cc-$1-$run "$PROGRAMS/omp_regions-$cc" $1 $2 2 > rg.out
			truth=$(awk '/omp_regions:/ { print $8 }' rg.out)
			prof rg-$cc-$1-$run
			got=$(pm rg-$cc-$1-$run.db region_work idleness)
			note "$cc $(cat rg.out); culprit: $got s"
			ratios="$ratios $(ratio "$got" "$truth")"
		done
		median=$(printf '%s\n' $ratios | sort -g | sed -n 2p)
		check "$cc short regions ($(awk '/omp_regions:/ { print $5 }' rg.out) us): idleness within $(awk -v t="$3" 'BEGIN { print 100 * t }')% of the program's own clocks, median of 3 (ratios$ratios)" \
			near "$median" 1 "$3"
	done
done

# A program that does not use OpenMP is left alone, and --openmp=libomp
# still runs it.
"$CULPRIT" run -o plain "$PROGRAMS/leaves" 1 > plain.out 2> plain.err
check "a program without OpenMP: no word about libomp, and it ran" \
	sh -c "grep -q 'leaves done' plain.out && ! grep -q libomp plain.err && [ -n \"\$(ls plain/*.thread)\" ]"
check "--openmp=libomp runs a program without OpenMP" \
	"$CULPRIT" run -q --openmp=libomp -o forced "$PROGRAMS/leaves" 1
check "--openmp with a bad mode: one line, usage status" \
	sh -c "\"$CULPRIT\" run --openmp=gnu -o bad \"$PROGRAMS/leaves\" 1 2> bad.err; [ \$? = 2 ] && [ \$(wc -l < bad.err) = 1 ] && grep -q 'auto, libomp or native' bad.err"
check "CULPRIT_LIBOMP naming no file: one line, before the program runs" \
	sh -c "CULPRIT_LIBOMP=/no/such/libomp.so \"$CULPRIT\" run --openmp=libomp -o bad2 \"$PROGRAMS/leaves\" 1 > bad2.out 2> bad2.err; [ \$? = 1 ] && [ \$(wc -l < bad2.err) = 1 ] && [ ! -s bad2.out ] && grep -q CULPRIT_LIBOMP bad2.err"
OMP_TOOL_LIBRARIES=/no/such/tool.so "$CULPRIT" run -o tool "$PROGRAMS/omp_fib-$cc" 20 5 > tool.out 2> tool.err
check "OMP_TOOL_LIBRARIES: culprit run warns, in one line, that that tool will not start" \
	sh -c "[ \$(grep -c 'OMP_TOOL_LIBRARIES is set.*will not be started' tool.err) = 1 ]"
check "OMP_TOOL_LIBRARIES: the program runs" grep -q "fib(20) = 6765" tool.out
if [ -x "$PROGRAMS/omp_fib-gcc" ]; then
	"$CULPRIT" run --openmp=native -o native "$PROGRAMS/omp_fib-gcc" 30 10 > native.out 2> native.err
	check "--openmp=native keeps libgomp: no word about libomp, and the program still runs" \
		sh -c "grep -q 'fib(30) = 832040' native.out && ! grep -q libomp native.err"
fi

done_testing
