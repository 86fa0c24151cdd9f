#!/bin/sh
# quickstart.sh - sets everything up and profiles the bundled examples end
# to end: builds culprit, runs examples/mandel (4 threads, unequal work)
# under `culprit run`, turns the measurements into a database with
# `culprit prof`, and shows it with `culprit report` and sqlite3; then its
# OpenMP twin, examples/mandel_omp, with a static and a dynamic schedule:
# the summary of where the effort went, and the diagnosis.
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

# The same renderer with OpenMP, whose workers culprit follows: it says
# why the static schedule does not scale, and what fixes it.
if [ -x "$build/examples/mandel_omp" ]; then
	omp=$(dirname "$out")/mandel_omp
	export OMP_NUM_THREADS=4
	echo
	echo "\$ OMP_SCHEDULE=static culprit run -o $omp-static $build/examples/mandel_omp"
	OMP_SCHEDULE=static "$build/culprit" run -o "$omp-static" "$build/examples/mandel_omp"
	"$build/culprit" prof -q "$omp-static"
	echo
	echo "\$ culprit report --summary $omp-static.db     # where the effort went"
	"$build/culprit" report --summary "$omp-static.db"
	echo
	echo "\$ culprit report --diagnose $omp-static.db    # what to do about it"
	"$build/culprit" report --diagnose "$omp-static.db"
	echo
	echo "\$ OMP_SCHEDULE=dynamic,4 culprit run -o $omp-dynamic $build/examples/mandel_omp"
	OMP_SCHEDULE=dynamic,4 "$build/culprit" run -o "$omp-dynamic" "$build/examples/mandel_omp"
	"$build/culprit" prof -q "$omp-dynamic"
	echo
	echo "\$ culprit report --summary $omp-dynamic.db"
	"$build/culprit" report --summary "$omp-dynamic.db"
	echo
	echo "With equal bands of rows (static), half of the workers' effort was spent"
	echo "waiting at the loop's end, blamed on the rows that kept them waiting: a"
	echo "finer grain fixes it, and with rows handed out 4 at a time (dynamic,4)"
	echo "nearly all of it is useful work."
	echo
	echo "Browse a database in the terminal: $build/culprit view $omp-static.db"
fi
