#!/bin/sh
# run-pthreads.sh - idleness of a pthreads program that declares nothing,
# against the program's own clocks: condition-variable and pthread
# barriers, a contended mutex, a join (tests/programs/pt_waits.c); the
# waits table; REALTIME; an uncontended lock; --no-waits; diagnoses.
. "${srcdir:-.}/tests/lib.sh"
have sqlite3 || skip_all "the sqlite3 program is not installed"

# metric DB METRIC: the cputime total of METRIC.
metric() {
	sql "$1" "SELECT total FROM metrics WHERE event = 'cputime' AND metric = '$2'"
}
# said NAME: what pt_waits measured of NAME.
said() {
	awk -v n="$1" '/^waited/ { for (i = 2; i < NF; i += 2) if ($i == n) print $(i + 1) }' pt.out
}

profile pt "$PROGRAMS/pt_waits" > pt.out 2>&1
check "pt_waits ran" grep -q "pt_waits done" pt.out
prof pt
db=pt.db
cv=$(said cv) lock=$(said lock) bar=$(said barrier) join=$(said join)
note "program: waited cv $cv s, lock $lock s, barrier $bar s, join $join s, launch $(said launch) s"
note "culprit: barrier $(metric $db idleness:barrier) s, lock $(metric $db idleness:lock) s, join $(metric $db idleness:join) s"
# Condition-variable and pthread barriers are both cause barrier.
check "barrier idleness is the time waited at both barriers, within 10%" \
	within "$(metric $db idleness:barrier)" "$(awk -v a="$cv" -v b="$bar" 'BEGIN { print a + b }')" 0.10 0.01
check "lock idleness is the time waited for the mutex, within 10%" \
	within "$(metric $db idleness:lock)" "$lock" 0.10 0.01
# What main's join lost is the CPU time the worker ran meanwhile: its
# wall-clock wait, on a quiet machine; less beside a busy neighbour.
check "join idleness is the CPU time the joined worker ran, within 10% (main waited $join s)" \
	within "$(metric $db idleness:join)" "$(said longcpu)" 0.10 0.01
# Blamed on the right code: the worker waited for all of serial_step.
check "serial_step carries the worker's wait: idleness = its work, within 10%" \
	within "$(pm $db serial_step idleness)" "$(pm $db serial_step work)" 0.10 0.01
check "long_work carries main's join: idleness:join = its work, within 10%" \
	within "$(pm $db long_work idleness:join)" "$(pm $db long_work work)" 0.10 0.01
# Phase 6: main waits to join one worker per CPU, the CPUs all busy.
check "a launcher's join while every CPU works is no idleness: launched_work's join blame under 10% of its work" \
	below "$(ratio "$(pm $db launched_work idleness:join)" "$(pm $db launched_work work)")" 0.10
check "critical carries the lock waits" \
	at_least "$(ratio "$(pm $db critical idleness:lock)" "$(metric $db idleness:lock)")" 0.9

"$CULPRIT" report --summary $db > sum.txt
check "the summary has the join cause" grep -Eq "^idleness +waiting for threads to end +[0-9.]+ +[1-9]" sum.txt

# The waits: each site with its kind, the time the program measured.
"$CULPRIT" report --waits $db > waits.txt
check "--waits lists the condition variable at cv_barrier" grep -Eq "^condition +barrier .* cv_barrier \(pt_waits.c:[0-9]+\)" waits.txt
check "--waits lists the mutex at worker" grep -Eq "^mutex +lock .* worker \(pt_waits.c:[0-9]+\)" waits.txt
check "--waits lists the pthread barrier and the join" \
	sh -c "grep -Eq '^barrier +barrier' waits.txt && grep -Eq '^join +join .* main' waits.txt"
check "the mutex's waits add up to what the program measured, within 10%" \
	within "$(sql $db "SELECT sum(seconds) FROM wait_sites WHERE kind = 'mutex' AND procedure = 'worker'")" "$lock" 0.10 0.005
check "--waits says what kept them waiting" grep -q "critical" waits.txt

# Diagnoses name the program's code with the fitting advice.
"$CULPRIT" report --diagnose $db > diag.txt
note "$(grep -E '^ *[0-9]+\. ' diag.txt)"
# The ranked list may name an outer frame of the program (worker) when
# the serial step explains less than 80% of its waste; the diagnoses table
# has every diagnosed frame, ranked or not.
check "the serial step is diagnosed a serial phase, in user code" \
	[ "$(sql $db "SELECT d.diagnosis FROM diagnoses d JOIN contexts c ON c.id = d.context_id
		WHERE c.procedure = 'serial_step' AND d.event = 'cputime'")" = "serial phase" ]
check "the ranked list names a serial phase in user code" \
	grep -Eq "^ *[0-9]+\. serial phase: (serial_step|worker) " diag.txt
check "the mutex is diagnosed as contention at its site" \
	grep -Eq "contention on mutex 0x[0-9a-f]+ at worker \(pt_waits.c:[0-9]+\)" diag.txt
check "no diagnosis names libc" has_not diag.txt "^ *[0-9]+\." "^ *[0-9]+\. .*(libc|__futex|pthread_)"

# Idleness is CPU capacity lost (tests/programs/pt_share.c, one worker
# per CPU): main waiting on a condition variable while every CPU works
# loses nothing, and the CPUs the fast workers leave free at a barrier,
# while main joins them all, count once, for the barrier.  Three runs,
# the median ratio of each.
queue_r= bar_r= join_r=
for run in 1 2 3; do
	profile sh$run "$PROGRAMS/pt_share" > sh$run.out 2>&1
	prof sh$run
	queue=$(awk '/^waited/ { print $3 }' sh$run.out)
	alone=$(awk '/^alone/ { print $2 }' sh$run.out)
	queue_r="$queue_r $(ratio "$(pm sh$run.db pool_work idleness)" "$queue")"
	bar_r="$bar_r $(ratio "$(pm sh$run.db slow_work idleness:barrier)" "$alone")"
	join_r="$join_r $(ratio "$(metric sh$run.db idleness:join)" "$(metric sh$run.db idleness:barrier)")"
done
median3() { printf '%s\n' "$@" | sort -g | sed -n 2p; }
note "pt_share ($(sed -n 's/^workers //p' sh1.out) workers): pool_work's idleness / main's queue wait$queue_r; slow_work's barrier idleness / the CPU time it ran alone, per fast worker$bar_r; join / barrier idleness$join_r"
check "a condition wait while every CPU works is no idleness: pool_work's under 10% of main's wait (median$queue_r)" \
	below "$(median3 $queue_r)" 0.10
check "slow_work's barrier idleness is the CPU time it ran alone, per CPU left free, within 10% (median$bar_r)" \
	within "$(median3 $bar_r)" 1 0.10 0
check "a free CPU counts once: main's join beside the barrier adds under 10% of it (median$join_r)" \
	below "$(median3 $join_r)" 0.10

# REALTIME: blocked time is idleness and the thread's own waiting, not work.
profile_e rt REALTIME@1ms "$PROGRAMS/pt_waits" > rt.out 2>&1
prof rt
rwork=$(sql rt.db "SELECT total FROM metrics WHERE event = 'realtime' AND metric = 'work'")
rwaited=$(sql rt.db "SELECT sum(value) FROM thread_metrics WHERE event = 'realtime' AND metric = 'waited'")
allwait=$(awk '/^waited/ { print $3 + $5 + $7 + $9 + $11 }' rt.out)
lives=$(sql rt.db "SELECT sum(end_time - start_time) FROM threads")
note "REALTIME: work $rwork s, threads seen waiting $rwaited s (the program waited $allwait s), threads lived $lives s"
check "REALTIME: the threads' own waiting is what the program waited, within 15%" \
	within "$rwaited" "$allwait" 0.15 0.02
check "REALTIME: blocked time is not work: work and waiting add up to the threads' lives, within 10%" \
	within "$(awk -v a="$rwork" -v b="$rwaited" 'BEGIN { print a + b }')" "$lives" 0.10 0.02

# Locks that never block cost no idleness.
profile un "$PROGRAMS/uncontended" > un.out 2>&1
prof un
check "uncontended locks: no lock idleness (under 0.5% of effort)" \
	below "$(percent "$(metric un.db idleness:lock)" "$(metric un.db effort)")" 0.5
check "uncontended locks: no mutex waits" [ "$(sql un.db "SELECT count(*) FROM waits WHERE kind = 'mutex'")" = 0 ]

# Not followed: idleness is not measured, and says so.
"$CULPRIT" run -q --no-waits -o nw "$PROGRAMS/pt_waits" > /dev/null 2>&1
prof nw
"$CULPRIT" report --summary nw.db > nw.txt
check "--no-waits: the summary says idleness was not measured" grep -q "not measured" nw.txt
check "--no-waits: ... and how to get it" grep -q "runtime API" nw.txt
check "--no-waits: the database says so" [ "$(sql nw.db "SELECT value FROM culprit_info WHERE key = 'idleness'")" = "not measured" ]
check "--no-waits: no number for idleness" [ -z "$(metric nw.db idleness)" ]
done_testing
