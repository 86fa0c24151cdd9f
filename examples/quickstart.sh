#!/bin/sh
# quickstart.sh - sets everything up and profiles the bundled example end
# to end: builds culprit, runs examples/mandel (4 threads, unequal work)
# under `culprit run`, turns the measurements into a database with
# `culprit prof`, and shows it with `culprit report` and sqlite3.
set -eu
cd "$(dirname "$0")/.."
./setup.sh
build=${BUILD:-build}
out=$(mktemp -d "${TMPDIR:-/tmp}/culprit-quickstart.XXXXXX")/mandel

echo
echo "\$ culprit run -o $out $build/examples/mandel 4"
"$build/culprit" run -o "$out" "$build/examples/mandel" 4

echo
echo "\$ culprit prof $out"
"$build/culprit" prof "$out"
db=$out.db

echo
echo "\$ culprit report $db        # the calling-context tree, hottest first"
"$build/culprit" report "$db"

echo
echo "\$ culprit report --view=callers --threshold=5% $db"
"$build/culprit" report --view=callers --threshold=5% "$db"

echo
echo "\$ sqlite3 $db 'select name, round(value, 3) ...'   # CPU seconds per thread"
sqlite3 -header -column "$db" "select t.seq as thread, round(m.value, 3) as seconds
	from threads t join thread_metrics m on m.thread_id = t.id
	where m.event = 'cputime' and m.metric = 'work' order by t.seq"
echo
echo "The bands in the middle of the image cost most: two threads did nearly"
echo "all the work while the other two, given the edges, finished early."
echo "Measurements: $out, database: $db (doc/schema.md describes it)."
