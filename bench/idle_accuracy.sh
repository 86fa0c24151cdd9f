#!/bin/bash
# bench/idle_accuracy.sh - how close culprit's idleness comes to what a
# program measures with its own clocks, for parallel regions from about
# 10 us to 10 ms long, at T = 2, 4, ... up to nproc threads.
#
# The program is tests/programs/omp_regions.c: many regions in which
# thread 0 does twice the work of the others; each thread reads
# CLOCK_MONOTONIC around its share, and the program adds up the idleness
# those clocks show (doc/idleness.md: idle thread time while at least one
# thread is in its share).  culprit's figure is the idleness it blames on
# region_work.  Each (T, region length) runs BENCH_RUNS times under
# `culprit run` at its default 1 kHz; the table gives the truth's median,
# culprit / truth as median and range, and whether the median is within
# 10%.  Prints numbers; this is not a pass/fail test.
#
# Takes about 1 min per thread count with the default 3 runs.
#
# Environment:
#   CULPRIT_BUILD   build tree holding `culprit` (default: found by walking up)
#   OMP_CC          OpenMP compiler on LLVM's libomp (default clang)
#   BENCH_RUNS      runs per cell (default 3)
#   BENCH_THREADS   thread counts (default "2 4 ... nproc")
#   BENCH_SHAPES    "REGIONS:UNITS ..." (default: about 10 us, 25 us, 100 us,
#                   1 ms and 10 ms regions at 2 threads on our test VM)
#   KMP_BLOCKTIME   passed on (libomp's default: waiting threads spin 200 ms)
set -eu

here=$(cd "$(dirname "$0")" && pwd -P)
# shellcheck source=SCRIPTDIR/common.sh
. "$here/common.sh"

RUNS=${BENCH_RUNS:-3}
SHAPES=${BENCH_SHAPES:-50000:2500 20000:6000 5000:25000 500:250000 50:2500000}
OMP_CC=${OMP_CC:-clang}

THREADS=${BENCH_THREADS:-$(thread_counts 2)}

setup_build
TMP=$(mktemp -d "${TMPDIR:-/tmp}/culprit-bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
"$OMP_CC" -O2 -g -fopenmp -I"$here/../tests/programs" -o "$TMP/regions" \
    "$here/../tests/programs/omp_regions.c"

echo "culprit idleness accuracy: short parallel regions (tests/programs/omp_regions.c)"
echo "  culprit:  $CULPRIT"
echo "  machine:  $(nproc) CPUs, $(uname -r); threads: $THREADS"
echo "  compiler: $("$OMP_CC" --version | head -n 1)"
echo "  runs:     $RUNS per cell; thread 0 does twice the others' work"
echo
printf '%3s %10s %9s | %9s | %8s %8s %8s | %s\n' T region_us regions truth_s median min max within_10%
printf '%s\n' '-----------------------------------------------------------------------------------'

# one_run T REGIONS UNITS: "region_us truth culprit" of one run.
one_run() {
    rm -rf "$TMP/m" "$TMP/m.db"
    OMP_NUM_THREADS=$1 "$CULPRIT" run -q -o "$TMP/m" "$TMP/regions" "$2" "$3" 2 > "$TMP/out"
    "$CULPRIT" prof -q -o "$TMP/m.db" "$TMP/m" 2> /dev/null
    local truth us got
    us=$(awk '/omp_regions:/ { print $5 }' "$TMP/out")
    truth=$(awk '/omp_regions:/ { print $8 }' "$TMP/out")
    got=$("$CULPRIT" report "$TMP/m.db" --view=flat --metric=idleness --format=csv |
          awk -F, '$1 == "region_work" { print $6; found = 1 } END { if (!found) print 0 }')
    echo "$us $truth $got"
}

for t in $THREADS; do
    for shape in $SHAPES; do
        regions=${shape%%:*} units=${shape#*:}
        us=() truth=() ratio=()
        for _ in $(seq "$RUNS"); do
            read -r u tr got < <(one_run "$t" "$regions" "$units")
            us+=("$u")
            truth+=("$tr")
            ratio+=("$(awk -v a="$got" -v b="$tr" 'BEGIN { printf "%.4f", (b > 0 ? a / b : 0) }')")
        done
        printf '%3d %10s %9d | %9.4f | %s\n' "$t" "$(median "${us[@]}")" "$regions" \
            "$(median "${truth[@]}")" "$(printf '%s\n' "${ratio[@]}" | sort -g | awk '
                { v[NR] = $1 } END {
                    m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
                    printf "%8.3f %8.3f %8.3f | %s", m, v[1], v[NR], (m >= 0.9 && m <= 1.1) ? "yes" : "no" }')"
    done
done
echo
echo "truth_s: idleness the program's clocks show (median); median, min, max:"
echo "culprit's idleness on region_work / truth.  region_us: measured under culprit."
