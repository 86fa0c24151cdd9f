#!/bin/sh
# run-timeline.sh - the samples over time: the trace each thread records,
# the trace table, and the parallelism profile, against a program that
# knows its phases (tests/programs/phases.c: serial, parallel, imbalanced,
# of lengths it measures with its own clock).
. "${srcdir:-.}/tests/lib.sh"

P=$PROGRAMS/phases
# Wall-clock samples, so that a phase's samples cover its length whatever
# CPU time a loaded machine gives the threads.
profile_e ph REALTIME@f1000 "$P" 2 300 400 200 > ph.out
check "phases: the program ran under culprit" [ "$(grep -c '^phase ' ph.out)" = 3 ]

# ---- the collector's trace --------------------------------------------------
for f in ph/*.thread; do "$CULPRIT" dump "$f"; done > ph.dump
traced=$(grep -c '^trace ' ph.dump)
check "every thread file has a trace ($traced of 2)" [ "$traced" = 2 ]
bytes=$(awk '/^trace / { n += $2; for (i = 2; i <= NF; i++) if ($i == "bytes,") b += $(i - 1) }
	END { if (n) printf "%.2f", b / n }' ph.dump)
note "trace: $(grep '^trace ' ph.dump | tr '\n' ' ')"
check "the trace takes at most 8 bytes a sample ($bytes)" below "${bytes:-99}" 8.01
# Each sample is traced: work, idle and culprit's own.
counted=$(for f in ph/*.thread; do "$CULPRIT" dump "$f" | sed -n 's/^counters *//p'; done |
	tr ' ' '\n' | awk -F= '$1 == "samples" || $1 == "idle_samples" ||
		$1 == "measurement_samples" { n += $2 } END { print n + 0 }')
records=$(for f in ph/*.thread; do "$CULPRIT" dump --trace "$f" | tail -n +2; done | wc -l)
check "a trace record for every sample ($records records, $counted samples)" [ "$records" = "$counted" ]
check "trace times never go back" sh -c "for f in ph/*.thread; do \"$CULPRIT\" dump --trace \"\$f\" |
	awk 'NR == 1 { next } NR > 2 && \$1 < last { exit 1 } { last = \$1 }' || exit 1; done"

# ---- the trace table ------------------------------------------------------
prof -o ph.db ph
rows=$(sql ph.db "SELECT count(*) FROM trace")
check "the trace table holds every record ($rows)" [ "$rows" = "$records" ]
check "idle samples have no context, the others have one" \
	[ "$(sql ph.db "SELECT count(*) FROM trace WHERE (state LIKE 'idle:%') <> (context_id IS NULL)")" = 0 ]
origin=$(sql ph.db "SELECT value FROM culprit_info WHERE key = 'trace_origin'")

# The contexts in and below procedure $1, as SQL.
subtree() {
	echo "WITH RECURSIVE sub(id) AS (SELECT id FROM contexts WHERE procedure = '$1'
		UNION SELECT c.id FROM contexts c JOIN sub ON c.parent_id = sub.id)"
}
# A phase as culprit saw it: the first and last sample in its function,
# in seconds since the run started.
seen() {
	sql ph.db "$(subtree "$1") SELECT printf('%.4f %.4f', min(time), max(time)) FROM trace
		WHERE context_id IN sub"
}
last_end=0
for phase in serial parallel imbalanced; do
	set -- $(awk -v p="$phase" -v o="$origin" '$1 == "phase" && $2 == p {
		printf "%.4f %.4f", $3 - o, $4 - o }' ph.out)
	start=$1 end=$2
	set -- $(seen ${phase}_work)
	first=${1:-0} last=${2:-0}
	note "$phase: the program says $start to $end s; its samples run from $first to $last s"
	# Within a tenth of the phase's length, and a sample period.
	slack=$(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.4f", (e - s) / 10 + 0.002 }')
	check "$phase: its samples start when it started" near "$first" "$start" "$slack"
	check "$phase: ... and end when it ended" near "$last" "$end" "$slack"
	check "$phase: after the phase before it" at_least "$first" "$last_end"
	last_end=$last
done

# ---- the parallelism profile ------------------------------------------------
# Two threads: one works alone in the serial phase and in the imbalanced
# phase's second half (300 + 200 ms), both in the parallel phase and the
# first half of the imbalanced one (400 + 200 ms).
par() {
	sql ph.db "SELECT printf('%.4f', total(seconds)) FROM parallelism
		WHERE event = 'realtime' AND n_working = $1"
}
one=$(par 1) two=$(par 2)
set -- $(awk -v o="$origin" '$1 == "phase" && $2 == "serial" { s = $4 - $3 }
	$1 == "phase" && $2 == "parallel" { p = $4 - $3 }
	$1 == "phase" && $2 == "imbalanced" { i = ($4 - $3) / 2 }
	END { printf "%.4f %.4f", s + i, p + i }' ph.out)
note "parallelism: 1 thread working $one s (the program: $1 s), 2 threads $two s ($2 s)"
check "parallelism: one thread working for the serial time, within 10%" within "$one" "$1" 0.1 0.01
check "parallelism: two threads working for the parallel time, within 10%" within "$two" "$2" 0.1 0.01
total=$(sql ph.db "SELECT printf('%.4f', total(seconds)) FROM parallelism WHERE event = 'realtime'")
duration=$(sql ph.db "SELECT value FROM culprit_info WHERE key = 'trace_duration'")
# A sample's time counts with the threads working when it was taken: one
# that spans a change in their number (here four: the serial phase starts,
# the parallel one, the imbalanced half, the end) counts up to a sampling
# period (1 ms) with the wrong number, so the sum may miss by that much
# per change.
check "parallelism: the times add up to the run's length, within a period per change of the threads working ($total of $duration s)" \
	within "$total" "$duration" 0 0.004
# The serial work ran alone: its context's samples are all at 1.
check "parallelism by context: serial_work ran with one thread working" \
	[ "$(sql ph.db "$(subtree serial_work) SELECT group_concat(DISTINCT n_working)
		FROM context_parallelism WHERE context_id IN sub")" = 1 ]

# ---- culprit report --parallelism and --timeline ---------------------------
"$CULPRIT" report --parallelism ph.db > par.txt 2> par.err
check "report --parallelism: exit status 0, nothing on stderr" [ $? = 0 ] && [ ! -s par.err ]
note "$(sed -n '4,8p' par.txt | tr '\n' '/')"
at1=$(awk '$1 == 1 && NF >= 5 { print $2; exit }' par.txt)
check "report --parallelism: the row for one thread working is the view's ($at1 s)" \
	near "${at1:-0}" "$one" 0.0011
check "report --parallelism: the procedures by latency name serial_work" \
	grep -q "serial_work" par.txt
# serial_work ran alone: its latency is its work (parallelism 1.00).
check "report --parallelism: serial_work's parallelism is 1.00" \
	sh -c "grep 'serial_work' par.txt | awk '{ exit !(\$3 == \"1.00\") }'"
"$CULPRIT" report --parallelism --format=csv ph.db > par.csv
check "report --parallelism --format=csv: a header and a row per level" \
	[ "$(head -n 1 par.csv)" = "event,n_working,seconds,percent,work,idleness" ] && \
	[ "$(tail -n +2 par.csv | wc -l)" = "$(sql ph.db "SELECT count(*) FROM parallelism WHERE event = 'realtime'")" ]

"$CULPRIT" report --timeline --width=44 ph.db > tl.txt 2> tl.err
check "report --timeline: exit status 0, nothing on stderr" [ $? = 0 ] && [ ! -s tl.err ]
note "timeline: $(cat tl.txt)"
# 44 columns over the run (about 1.1 s): the main thread works in every
# column but the last, or the first: the worker waits at a barrier
# through the serial phase (the first quarter), works, and waits again
# in the imbalanced phase's second half.
main=$(awk -F'|' 'NF == 3 && / phases/ { print $2; exit }' tl.txt)
worker=$(awk -F'|' 'NF == 3 && / phases/ { n++; if (n == 2) { print $2; exit } }' tl.txt)
check "report --timeline: a row of 44 columns per thread" \
	[ "$(awk -F'|' 'NF == 3' tl.txt | wc -l)" = 2 ] && [ "${#main}" = 44 ] && [ "${#worker}" = 44 ]
check "report --timeline: the main thread works throughout" \
	[ "$(printf '%s' "$main" | tr -cd '#' | wc -c)" -ge 40 ]
check "report --timeline: the worker waits at the barrier first, then works, then waits again" \
	sh -c "printf '%s\n' '$worker' | grep -Eq '^ ?b{8,}#{14,}b{6,} ?\$'"
"$CULPRIT" report --timeline --format=csv --width=10 --from=0.3 --to=0.7 ph.db > tl.csv
check "report --timeline --format=csv: 10 rows per thread" [ "$(tail -n +2 tl.csv | wc -l)" = 20 ]
# In the parallel phase both threads only work.
check "report --timeline --from/--to: the parallel phase is work in both threads" \
	sh -c "tail -n +2 tl.csv | awk -F, '{ idle = 0; for (i = 9; i <= 15; i++) idle += \$i
		if (\$7 <= 0 || idle > \$7 / 5) bad++ } END { exit bad > 0 }'"
expect 2 "must be after --from" "report --timeline with --to before --from" \
	"$CULPRIT" report --timeline --from=2 --to=1 ph.db

# ---- culprit export --format=perfetto ---------------------------------------
"$CULPRIT" export --format=perfetto -o ph.json ph.db 2> ex.err
check "export --format=perfetto: exit status 0, nothing on stderr" [ $? = 0 ] && [ ! -s ex.err ]
sql ph.db "SELECT t.tid, count(*) FROM trace x JOIN threads t ON t.id = x.thread_id
	GROUP BY t.tid" | tr '|' ' ' > ex.counts
verdict=$(python3 "${srcdir:-.}/tests/check_trace_events.py" ph.json ex.counts 2>&1)
note "export: $verdict"
check "export: the JSON parses, and every thread is named" \
	sh -c "echo '$verdict' | grep -q '^threads 2 2 '"
check "export: the outermost slices hold every sample of each thread" \
	sh -c "echo '$verdict' | grep -q 'samples True'"
check "export: slices nest within their callers' slices" \
	sh -c "echo '$verdict' | grep -q 'nested True'"
check "export: the phases' functions and the barrier waits are slices" \
	sh -c "echo '$verdict' | grep -q 'serial_work True idle True'"
check "export: the working threads are a counter, 1 and 2" \
	sh -c "echo '$verdict' | grep -q 'working \\[1, 2\\]'"
expect 2 "say which format" "export without --format" "$CULPRIT" export -o x.json ph.db
expect 1 "unknown export format 'svg'" "export --format=svg" \
	"$CULPRIT" export --format=svg -o x.json ph.db
check "export: nothing written after a refusal" [ ! -e x.json ]

# ---- turned off -------------------------------------------------------------
"$CULPRIT" run -q --no-trace -o off "$P" 2 50 50 50 > /dev/null
check "--no-trace: no thread file has a trace" \
	sh -c "for f in off/*.thread; do \"$CULPRIT\" dump \"\$f\" | grep -q '^trace ' && exit 1; done; exit 0"
prof -o off.db off
check "--no-trace: the trace table is empty" [ "$(sql off.db "SELECT count(*) FROM trace")" = 0 ]
"$CULPRIT" report --parallelism off.db > off.txt
check "--no-trace: report --parallelism says there is no trace" grep -q "no trace" off.txt
expect 1 "CULPRIT_TRACE_MB=lots: expected a number from 0 to 4096" "a bad CULPRIT_TRACE_MB is refused" \
	env CULPRIT_TRACE_MB=lots "$CULPRIT" run -o bad "$P" 1 1 1 1
# A trace at its limit keeps the run's start and counts the rest.
CULPRIT_TRACE_MB=0 profile small "$P" 2 50 50 50 > /dev/null
check "CULPRIT_TRACE_MB=0: as --no-trace" \
	sh -c "! \"$CULPRIT\" dump small/*-t0.thread | grep -q '^trace '"

done_testing
