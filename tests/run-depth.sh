#!/bin/sh
# run-depth.sh - whole paths at any depth: a plain recursion and a task
# recursion far deeper than a sample's native unwind would keep cheaply,
# paths cut to the depth limit keeping their outermost frames, and bad
# limits refused before the program runs.
. "${srcdir:-.}/tests/lib.sh"
have sqlite3 || skip_all "the sqlite3 program is not installed"

# complete DB: the share of samples whose path is whole (neither partial
# nor truncated), as a fraction.
complete() {
	sql "$1" "SELECT 1.0 - (SELECT total(value) FROM thread_counters WHERE name IN
		('unwind:partial', 'unwind:truncated')) / (SELECT total(value) FROM thread_counters
		WHERE name = 'samples')"
}

# under DB PROCEDURE: the share of samples under PROCEDURE.
under() {
	sql "$1" "SELECT (SELECT total(inclusive) FROM procedure_metrics WHERE procedure = '$2'
		AND event = 'cputime' AND metric = 'samples') / (SELECT total(value) FROM
		thread_counters WHERE name = 'samples')"
}

# ---- a plain recursion 3000 frames deep ----------------------------------------
profile r3k "$PROGRAMS/recurse" 3000 300000000 > r3k.out
check "3000-deep recursion: the program ran" grep -q "recursion done" r3k.out
prof r3k
note "3000-deep recursion: $(complete r3k.db) complete, $(under r3k.db main) under main, deepest context $(sql r3k.db 'SELECT max(depth) FROM contexts')"
check "3000-deep recursion: at least 99.5% of samples have their whole path" \
	at_least "$(complete r3k.db)" 0.995
check "3000-deep recursion: ... from main" at_least "$(under r3k.db main)" 0.995
check "3000-deep recursion: 3000 frames of descend in the deepest path" \
	at_least "$(sql r3k.db "SELECT max(depth) FROM contexts WHERE procedure = 'descend'")" 3000

# ---- cut to a limit, a path keeps its outermost frames ------------------------------
"$CULPRIT" run -q -o clean "$PROGRAMS/leaves" > /dev/null 2> clean.run
check "a run that lost nothing: culprit run -q prints nothing" [ ! -s clean.run ]
"$CULPRIT" run -q --max-depth=100 -o r100 "$PROGRAMS/recurse" 3000 100000000 > /dev/null \
	2> r100.run
truncated=$(sed -n 's/.*; \([0-9]*\) samples deeper than the depth limit.*/\1/p' r100.run)
check "--max-depth=100: culprit run's last line says how many samples were cut, even with -q" \
	[ -n "$truncated" ] && [ "$(tail -n 1 r100.run | grep -c "measurements of 1 process")" = 1 ]
prof r100 2> r100.err
check "--max-depth=100: samples are counted as truncated" \
	at_least "$(sql r100.db "SELECT sum(value) FROM thread_counters WHERE name = 'unwind:truncated'")" 1
check "--max-depth=100: ... as many as culprit run said (${truncated:-none})" \
	[ "$(sql r100.db "SELECT sum(value) FROM thread_counters WHERE name = 'unwind:truncated'")" = "${truncated:-x}" ]
check "--max-depth=100: ... and still hang under main" at_least "$(under r100.db main)" 0.995
check "--max-depth=100: with a <truncated> context between main and the leaf" \
	[ "$(sql r100.db "SELECT count(*) FROM contexts WHERE procedure = '<truncated>' AND depth < 100")" -ge 1 ]
frames=$(sql r100.db "SELECT max(n) FROM (WITH RECURSIVE up(id, n) AS (
	SELECT parent_id, 1 FROM contexts WHERE procedure = 'deep_leaf' AND kind = 'frame'
	UNION ALL SELECT c.parent_id, up.n + (c.kind = 'frame') FROM up JOIN contexts c ON c.id = up.id)
	SELECT n FROM up)")
check "--max-depth=100: no path has more frames than the limit ($frames)" [ "${frames:-999}" -le 100 ]
check "--max-depth=100: culprit prof says to raise the limit, in one line" \
	sh -c "[ \$(grep -c 'cut at the depth limit.*--max-depth' r100.err) = 1 ]"

# ---- a task recursion 1000 levels deep -----------------------------------------------
for cc in clang gcc; do
	[ -x "$PROGRAMS/omp_deep-$cc" ] || continue
	for threads in 1 2; do
		OMP_NUM_THREADS=$threads profile dp-$cc-$threads "$PROGRAMS/omp_deep-$cc" 1000 50 \
			> dp.out
		check "$cc 1000-deep tasks, $threads threads: the program ran" grep -q "omp_deep done" dp.out
		prof dp-$cc-$threads
		db=dp-$cc-$threads.db
		levels=$(sql $db "SELECT max(n) FROM (WITH RECURSIVE up(id, n) AS (
			SELECT parent_id, 0 FROM contexts WHERE procedure = 'leaf_work' AND kind = 'frame'
			UNION ALL SELECT c.parent_id, up.n + (c.procedure = 'descend' AND c.kind = 'frame')
			FROM up JOIN contexts c ON c.id = up.id) SELECT n FROM up)")
		ns=$(sql $db "SELECT round(1.0 * (SELECT total(value) FROM thread_counters WHERE
			name = 'collector:handler_ns') / (SELECT total(value) FROM thread_counters WHERE
			name = 'signals'))")
		note "$cc 1000-deep tasks, $threads threads: $(complete $db) complete, $(under $db main) under main, $levels levels of descend above leaf_work, $ns ns per sample in the handler"
		check "$cc 1000-deep tasks, $threads threads: at least 99.5% of samples whole" \
			at_least "$(complete $db)" 0.995
		check "$cc 1000-deep tasks, $threads threads: ... from main" at_least "$(under $db main)" 0.995
		check "$cc 1000-deep tasks, $threads threads: all 1001 levels above the leaf" \
			[ "${levels:-0}" -ge 1001 ]
	done
done

# ---- limits refused before the program runs ---------------------------------------
expect 1 "CULPRIT_MAX_DEPTH=2000000: expected a number from 4 to 1048576" \
	"CULPRIT_MAX_DEPTH out of range" \
	env CULPRIT_MAX_DEPTH=2000000 "$CULPRIT" run -o bad1 "$PROGRAMS/leaves" 1
check "CULPRIT_MAX_DEPTH out of range: nothing was run" [ ! -e bad1 ]
expect 1 "max-depth=3: expected a number from 4 to 1048576" "--max-depth too small" \
	"$CULPRIT" run --max-depth=3 -o bad2 "$PROGRAMS/leaves" 1
expect 1 "CULPRIT_MAX_NODES=lots: expected a number from 16" "CULPRIT_MAX_NODES not a number" \
	env CULPRIT_MAX_NODES=lots "$CULPRIT" run -o bad3 "$PROGRAMS/leaves" 1
check "a large limit is accepted: CULPRIT_MAX_DEPTH=1000000" \
	env CULPRIT_MAX_DEPTH=1000000 "$CULPRIT" run -q -o big "$PROGRAMS/leaves" 1

done_testing
