#!/bin/sh
# run-json.sh - --format=json for every view of culprit report and for
# culprit diff: each document parses, has the head doc/json.md gives, and
# its rows are the same command's CSV rows, column by column
# (tests/check_json.py), on databases that give every view rows: two
# culprit scale runs of an OpenMP program with task types (scaling,
# tasks), a pthreads program that blocks (waits), and their diff.
. "${srcdir:-.}/tests/lib.sh"
have python3 || skip_all "python3 is not installed"
P="$PROGRAMS/omp_task_types-clang"
[ -x "$P" ] || P="$PROGRAMS/omp_task_types-gcc"
[ -x "$P" ] || skip_all "no OpenMP compiler built omp_task_types"
CHECK="$srcdir/tests/check_json.py"

"$CULPRIT" scale -q -t 1,2 -o s -- "$P" 200 > /dev/null 2>&1
prof s
profile w "$PROGRAMS/pt_waits" > /dev/null 2>&1
prof w
check "the databases: a scale run and a pthreads run" [ -s s.db ] && [ -s w.db ]

# same_rows NAME KIND ARGS...: the JSON and CSV of one command agree, on
# one row at least.
same_rows() {
	local name=$1 kind=$2
	shift 2
	"$CULPRIT" "$@" --format=json > "$name.json" 2> "$name.jerr"
	local rc=$?
	"$CULPRIT" "$@" --format=csv > "$name.csv" 2> /dev/null
	python3 "$CHECK" "$kind" "$name.json" "$name.csv" > "$name.check" 2>&1
	local verdict=$?
	note "$name: $(cat "$name.check")"
	[ $rc = 0 ] && [ ! -s "$name.jerr" ] && [ $verdict = 0 ] && ! grep -q '^ok 0 rows' "$name.check"
}

for view in top-down callers flat summary parallelism timeline scaling tasks; do
	check "report --view=$view --format=json: the CSV's rows, as objects" \
		same_rows "$view" report report --view="$view" s.db
done
check "report --waits --format=json: the CSV's rows, as objects" \
	same_rows waits report report --waits w.db
check "report --diagnose --format=json: the CSV's rows, as objects" \
	same_rows diagnose report report --diagnose w.db
check "report --format=json --metric=idleness --depth=2: the options hold" \
	same_rows options report report --metric=idleness --depth=2 --threshold=0 w.db
check "report --format=json: the head names the view, event and metric" \
	python3 -c 'import json, sys; d = json.load(open("options.json")); sys.exit(not (d["view"] == "top-down" and d["metric"] == "idleness" and d["event"] == "cputime"))'
check "report --scaling --format=json: a row per run and context, both runs" \
	python3 -c 'import json, sys; d = json.load(open("scaling.json")); sys.exit(not ({r["label"] for r in d["rows"]} == {"t1", "t2"}))'
check "report --tasks --format=json: rows of both histograms" \
	python3 -c 'import json, sys; d = json.load(open("tasks.json")); sys.exit(not ({r["kind"] for r in d["rows"]} == {"size", "wait"}))'
check "report --waits --format=json: the mutex and the join, with their counts" \
	python3 -c 'import json, sys; d = json.load(open("waits.json")); k = {r["kind"] for r in d["rows"]}; sys.exit(not ({"mutex", "join"} <= k and all(r["count"] >= 1 for r in d["rows"])))'

check "diff --format=json: the CSV's rows, and the diff's head" \
	same_rows diff diff diff --limit=0 s.db:t1 s.db:t2
check "diff --format=json --by=procedure --inclusive: the options hold" \
	same_rows diffp diff diff --by=procedure --inclusive s.db:t1 s.db:t2
check "diff --format=json: values and grouping named" \
	python3 -c 'import json, sys; d = json.load(open("diffp.json")); sys.exit(not (d["by"] == "procedure" and d["values"] == "inclusive" and d["a"] == "s.db:t1"))'

"$CULPRIT" report --format=yaml s.db > bad.out 2> bad.err
check "report --format=yaml: one line naming the formats, status 2" \
	sh -c "[ $? = 2 ] && grep -q 'use text, csv or json' bad.err && [ ! -s bad.out ]"

done_testing
