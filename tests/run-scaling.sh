#!/bin/sh
# run-scaling.sh - culprit scale, experiments in the database, and report
# --scaling on tests/programs/omp_scaling, whose losses are known: a
# serial part (idleness:serial, (p - 1) x its time), a per-thread setup
# tagged as overhead (p x its cost), and a loop that adds to one shared
# counter (work inflation at p >= 2, in that loop alone).  The program
# times each part on its own CPU clocks; that is the truth.  Two cores
# are enough: CPU time, not wall-clock time, is compared.
. "${srcdir:-.}/tests/lib.sh"
have sqlite3 || skip_all "the sqlite3 program is not installed"
P="$PROGRAMS/omp_scaling-clang"
[ -x "$P" ] || P="$PROGRAMS/omp_scaling-gcc"
[ -x "$P" ] || skip_all "no OpenMP compiler built omp_scaling"

# part OUTPUT NAME: the CPU seconds the program says part NAME took.
part() {
	awk -v n="$2" '$1 == "part" && $2 == n { v = $4 } END { print v + 0 }' "$1"
}
# csv_field FILE LABEL PROCEDURE COLUMN: the scaling CSV's value.
csv_field() {
	awk -F, -v l="$2" -v p="$3" -v c="$4" '
		NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		$2 == l && $6 == p { v = $(col[c]); exit } END { print v + 0 }' "$1"
}

# ---- culprit scale and the experiments ----
"$CULPRIT" scale -q -t 1,2 -e CPUTIME@f2000 -o s -- "$P" > s.out 2> s.err
rc=$?
check "scale: status 0, nothing on stderr" sh -c "[ $rc = 0 ] && [ ! -s s.err ]"
check "scale: one directory per count, each with its run file" \
	sh -c "ls s/t1/*.process s/t2/*.process s/t1/run-*.info s/t2/run-*.info > /dev/null"
check "scale: the counts went to the program (OMP_NUM_THREADS)" \
	sh -c "grep -c '^threads [12]$' s.out | grep -q 2"
awk '/^threads 1$/ { f = "t1.out" } /^threads 2$/ { f = "t2.out" } f { print > f }' s.out
prof s
check "prof DIR of runs: s.db" [ -s s.db ]
check "prof: schema 12" [ "$(sql s.db 'PRAGMA user_version')" = 12 ]
check "experiments: t1 and t2, by thread count" \
	[ "$(sql s.db "SELECT group_concat(label || ':' || threads, ' ') FROM (SELECT * FROM experiments ORDER BY id)")" = "t1:1 t2:2" ]
check "experiments: wall and CPU time and status from the run files" \
	[ "$(sql s.db "SELECT count(*) FROM experiments WHERE wall_time > 0.2 AND cpu_time > 0.2 AND exit_status = 0 AND command LIKE '%omp_scaling%'")" = 2 ]
check "processes name their experiment" \
	[ "$(sql s.db "SELECT count(*) FROM processes p JOIN experiments x ON x.id = p.experiment_id AND x.run = p.experiment")" = 2 ]
sum=$(sql s.db "SELECT sum(inclusive) FROM experiment_metrics WHERE context_id = 1 AND event = 'cputime' AND metric = 'effort'")
all=$(sql s.db "SELECT total FROM metrics WHERE event = 'cputime' AND metric = 'effort'")
check "experiment_metrics: the experiments' efforts add up to the database's ($sum, $all)" \
	near "$sum" "$all" 0.000001
check "contexts.runtime: libomp's frames are runtime code, the program's are not" \
	[ "$(sql s.db "SELECT group_concat(DISTINCT runtime) FROM contexts WHERE kind = 'frame' AND procedure LIKE '\\_\\_kmp%' ESCAPE '\\'")/$(sql s.db "SELECT runtime FROM contexts WHERE kind = 'frame' AND procedure = 'serial_part'")" = 1/0 ]

# ---- the losses, against the program's own clocks ----
"$CULPRIT" report --scaling --format=csv s.db > s.csv
# The frames' losses add up to the run's (every sample at one frame).
frames=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
	$2 == "t2" { s += $(col["loss"]) } END { printf "%.9f", s }' s.csv)
run=$(sql s.db "SELECT (SELECT inclusive FROM experiment_metrics WHERE experiment_id = 2
	AND context_id = 1 AND event = 'cputime' AND metric = 'effort') -
	(SELECT inclusive FROM experiment_metrics WHERE experiment_id = 1 AND context_id = 1
	AND event = 'cputime' AND metric = 'effort')")
check "report --scaling: the frames' losses add up to the run's ($frames, $run)" \
	near "$frames" "$run" 0.000001
serial=$(part t2.out serial_part)
got=$(csv_field s.csv t2 serial_part idleness:serial)
note "serial_part at 2 threads: idleness:serial $got s; it ran $serial s"
check "serial part: idleness:serial is its own time (p - 1 = 1), within 15%" \
	within "$got" "$serial" 0.15 0.01
want=$(awk -v a="$(part t2.out thread_setup)" -v b="$(part t1.out thread_setup)" 'BEGIN { print a - b }')
got=$(csv_field s.csv t2 parallel_part overhead:setup)
note "setup overhead: grew $got s; the program's own clocks: $want s"
check "per-thread setup: overhead:setup grows as the threads' setup time, within 25%" \
	within "$got" "$want" 0.25 0.01
want=$(awk -v a="$(part t2.out contended_part)" -v b="$(part t1.out contended_part)" 'BEGIN { print a - b }')
got=$(csv_field s.csv t2 contended_part inflation)
note "contended loop: inflation $got s; the program's own clocks: $want s more"
if awk -v w="$want" 'BEGIN { exit !(w > 0.05) }'; then
	check "contended loop: work inflation as the program measured it, within 25%" \
		within "$got" "$want" 0.25 0.02
	others=$(awk -F, -v big="$got" 'NR > 1 && $2 == "t2" && $6 != "contended_part" {
			d = $13 < 0 ? -$13 : $13; if (d > 0.25 * big) bad = bad " " $6 }
		END { print bad }' s.csv)
	check "contended loop: no other context inflates by a quarter as much ($others)" [ -z "$others" ]
else
	skip "contended loop: work inflation as the program measured it" \
		"the shared counter did not slow down here ($want s): one core?"
	skip "contended loop: no other context inflates" "as above"
fi
"$CULPRIT" report --scaling s.db > s.txt
check "report --scaling: a row per run with speedup and efficiency" \
	sh -c "grep -Eq '^t1 +1 .*\(base\)' s.txt && grep -Eq '^t2 +2 +[0-9.]+ +[0-9.]+ +[0-9.]+%' s.txt"
check "report --scaling: the loss split by term" \
	sh -c "grep -q 'idleness:serial' s.txt && grep -q 'overhead:setup' s.txt && grep -q 'work inflation' s.txt"
check "report --scaling: a verdict for the serial part" \
	grep -q '^  serial_part: .*serial phase' s.txt
check "report --scaling: ... for the per-thread setup" \
	grep -q '^  parallel_part: .*overhead:setup' s.txt
if awk -v w="$want" 'BEGIN { exit !(w > 0.05) }'; then
	check "report --scaling: ... and for the contended loop, work inflation" \
		grep -q '^  contended_part: .*work inflation' s.txt
fi

# ---- diff of two experiments ----
"$CULPRIT" diff s.db:t1 s.db:t2 > d.txt 2> d.err
check "diff DB:LABEL DB:LABEL: status 0, nothing on stderr" sh -c "[ $? = 0 ] && [ ! -s d.err ]"
t1=$(sql s.db "SELECT inclusive FROM experiment_metrics WHERE experiment_id = 1 AND context_id = 1 AND event = 'cputime' AND metric = 'work'")
t2=$(sql s.db "SELECT inclusive FROM experiment_metrics WHERE experiment_id = 2 AND context_id = 1 AND event = 'cputime' AND metric = 'work'")
got=$(sed -n 's/.*total \([0-9.e+-]*\) -> \([0-9.e+-]*\) .*/\1 \2/p' d.txt)
check "diff of experiments: the totals are each experiment's ($got; $t1 $t2)" \
	sh -c "awk -v a='$got' -v x=$t1 -v y=$t2 'BEGIN { split(a, v, \" \"); exit !(v[1] - x < 1e-5 && x - v[1] < 1e-5 && v[2] - y < 1e-5 && y - v[2] < 1e-5) }'"
if awk -v w="$want" 'BEGIN { exit !(w > 0.05) }'; then
	check "diff of experiments: the contended loop changed most (its body folded in)" \
		sh -c "awk 'rows { print; exit } /^ +A +B +B - A/ { rows = 1 }' d.txt | grep -q '> main > contended_part$'"
fi
"$CULPRIT" diff s.db:t1 s.db:t9 > d2.out 2> d2.err
check "diff of an experiment the database lacks: one line naming it, status 1" \
	sh -c "[ $? = 1 ] && [ \$(wc -l < d2.err) = 1 ] && grep -q \"no experiment 't9'\" d2.err"

# ---- prediction: a known serial fraction ----
# No setup and no shared counter, 40% serial: Amdahl's law.  Only as many threads as
# cores: a thread without a core of its own cannot say it waits (it does
# not run), and the others' idleness is under-counted.
ncpu=$(nproc 2>/dev/null || echo 1)
counts=1,2
[ "$ncpu" -ge 4 ] && counts=1,2,3,4
# Three sets of runs, and the median fit.  Through two counts the fit
# cannot tell a serial part from work whose CPU time changes with the
# threads: on a 2-CPU VM the parallel part's CPU time at 2 threads was
# 1.8% above its time at 1 alone and 1% below it beside a busy loop, and
# the fit moves with it (44.1% once in CI, where the program timed 40.06%
# at 1 thread and its 2-thread clocks were not kept).  So at two counts the
# truth is the same fit made from the program's own clocks at each count
# (its effort: every part's CPU time, and the other thread idle while the
# serial part runs); with more, the serial fraction it timed.
fits= clock_fits=
for run in 1 2 3; do
	"$CULPRIT" scale -q -t $counts -o a$run -- "$P" 10 18000000 27000000 0 0 > a$run.out 2> a$run.err
	prof a$run
	"$CULPRIT" report --scaling --predict=8,16 a$run.db > a$run.txt
	fits="$fits $(sed -n 's/.*serial fraction \([0-9.]*\)%.*/\1/p' a$run.txt)"
	clock_fits="$clock_fits $(awk '$1 == "threads" { p = $2 } $1 == "part" { e[p] += $4 }
		$1 == "part" && $2 == "serial_part" { e[p] += (p - 1) * $4 }
		END { printf "%.2f", 100 * (e[2] - e[1]) / e[1] }' a$run.out)"
done
cp a1.txt a.txt
serial=$(awk '/^threads 1$/ { on = 1 } on && $2 == "serial_part" { s = $4 }
	on && $2 == "parallel_part" { p = $4; exit } END { printf "%.2f", 100 * s / (s + p) }' a1.out)
fitted=$(printf '%s\n' $fits | sort -g | sed -n 2p)
truth=$serial
[ "$counts" = 1,2 ] && truth=$(printf '%s\n' $clock_fits | sort -g | sed -n 2p)
note "prediction at $counts threads: serial fractions$fits fitted (median $fitted%); from the program's clocks$clock_fits (median ${truth}% at two counts); it timed $serial% serial at 1"
note "$(sed -n '/^prediction/,$p' a.txt)"
check "predict: the fit recovers the serial fraction, within 10% (median of 3: $fitted% against $truth%)" \
	within "${fitted:-0}" "${truth:-0}" 0.10 0
if [ "$counts" = 1,2 ]; then
	check "predict: two thread counts give no prediction, and it says why" \
		grep -q 'no prediction: a fit needs runs at 3 thread counts or more: through 2' a.txt
	skip "predict: the error on the measured points, and 8 and 16 predicted" "$ncpu cores"
else
	check "predict: it states its error on the measured points and predicts 8 and 16" \
		sh -c "grep -q 'off a measured point' a.txt && grep -Eq '^ +8 +[0-9.]+ ' a.txt && grep -Eq '^ +16 +[0-9.]+ ' a.txt"
fi

# ---- several culprit runs given to prof, and runs without a run file ----
"$CULPRIT" run -q --label=small -o r1 "$PROGRAMS/leaves" 20 > /dev/null
"$CULPRIT" run -q --label=large -o r2 "$PROGRAMS/leaves" 60 > /dev/null
prof r1 r2 -o r.db
check "prof A B: one experiment each, labelled" \
	[ "$(sql r.db "SELECT group_concat(label, ' ') FROM (SELECT label FROM experiments ORDER BY label)")" = "large small" ]
rm r2/run-*.info
prof r1 r2 -o norun.db
check "a run without its run file: told from the measurements (t1, its process's times)" \
	[ "$(sql norun.db "SELECT label || ' ' || threads || ' ' || (wall_time > 0) || ' ' || coalesce(cpu_time, 'unknown') || ' ' || exit_status FROM experiments WHERE label <> 'small'")" = "t1 1 1 unknown 0" ]

# ---- mistakes: one line each ----
prof r1
"$CULPRIT" report --scaling r1.db > e1.out 2> e1.err
rc=$?
check "report --scaling on one run: one line, status 1" \
	sh -c "[ $rc = 1 ] && [ \$(wc -l < e1.err) = 1 ] && grep -q 'culprit scale' e1.err"
"$CULPRIT" scale -o x -- "$P" > e2.out 2> e2.err
check "scale without -t: a usage error" sh -c "[ $? = 2 ] && grep -q 'thread counts' e2.err"
"$CULPRIT" scale -t 1,x -o x -- "$P" > e3.out 2> e3.err
check "scale -t 1,x: a usage error naming it" sh -c "[ $? = 2 ] && grep -q \"'1,x'\" e3.err"
"$CULPRIT" scale -t 1 -o s -- "$P" > e4.out 2> e4.err
check "scale into an existing directory: refused, nothing run" \
	sh -c "[ $? = 1 ] && grep -q 'already exists' e4.err && [ ! -s e4.out ]"
"$CULPRIT" scale -t 1,2 -o nope -- ./no-such-program > e5.out 2> e5.err
rc=$?
check "scale of a missing program: culprit run's status, no directory left" \
	sh -c "[ $rc = 127 ] && [ ! -e nope ]"
"$CULPRIT" run --threads=0 -o y "$PROGRAMS/leaves" > e6.out 2> e6.err
check "run --threads=0: a usage error" sh -c "[ $? = 2 ] && [ ! -e y ]"
"$CULPRIT" report --predict=abc s.db > e7.out 2> e7.err
check "report --predict=abc: a usage error" sh -c "[ $? = 2 ] && [ \$(wc -l < e7.err) = 1 ]"

# ---- a run that lost no effort overall ----
# The second run does a quarter of the parallel work: it takes less
# effort than the first, though its serial part loses.
OMP_NUM_THREADS=1 "$CULPRIT" run -q -e CPUTIME@f2000 -o g1 "$P" 20 100000 4000000 0 0 > /dev/null
OMP_NUM_THREADS=2 "$CULPRIT" run -q -e CPUTIME@f2000 -o g2 "$P" 20 300000 1000000 0 0 > /dev/null
prof -o g.db g1 g2
"$CULPRIT" report --scaling g.db > g.txt
check "scaling: a run with less effort than the base says so, and gives no share of a loss it did not have" \
	sh -c "grep -q 'the run as a whole lost no effort: [0-9.]* seconds less than at t1' g.txt &&
	       ! grep -q 'of the run.s loss)' g.txt && grep -q 'serial_part: [0-9.]* lost;' g.txt"

done_testing
