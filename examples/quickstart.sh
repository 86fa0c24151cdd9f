#!/bin/sh
# quickstart.sh - sets everything up and profiles the bundled example end
# to end: builds culprit, runs examples/mandel (4 threads, unequal work)
# under `culprit run`, and shows what each thread's measurements say.
set -eu
cd "$(dirname "$0")/.."
./setup.sh
build=${BUILD:-build}
out=$(mktemp -d "${TMPDIR:-/tmp}/culprit-quickstart.XXXXXX")/mandel

echo
echo "\$ culprit run -o $out $build/examples/mandel 4"
"$build/culprit" run -o "$out" "$build/examples/mandel" 4

echo
echo "\$ ls $out"
ls "$out"
for f in "$out"/*.thread; do
	echo
	echo "\$ culprit dump --flat $(basename "$f")   # exclusive samples per function"
	"$build/culprit" dump "$f" | grep -E '^thread'
	"$build/culprit" dump --flat "$f" | head -n 4
done
busiest=$(for f in "$out"/*.thread; do
	echo "$("$build/culprit" dump --tsv "$f" | awk -F'\t' 'NR>1 { s += $10 } END { print s + 0 }') $f"
done | sort -rn | head -n 1 | cut -d' ' -f2)
echo
echo "\$ culprit dump $(basename "$busiest")   # the busiest thread's calling-context tree"
"$build/culprit" dump "$busiest" | sed -n '/calling-context/,$p'
echo
echo "The bands in the middle of the image cost most; the threads that got"
echo "the edges finished early.  Measurements are in $out."
