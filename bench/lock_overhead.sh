#!/bin/bash
# bench/lock_overhead.sh - what following blocking waits costs a lock-heavy
# program: lock/unlock loops (bench/lock_work.c) uninstrumented, under
# culprit with --no-waits (the sampling alone), and under culprit (the
# wrappers too).  Uncontended: each thread its own mutex (the wrapper's
# try-first); contended: one mutex for all (each blocking wait changes
# the thread's state twice and is counted).  Prints ns per lock/unlock
# pair and the ratios; this is not a pass/fail test.
#
# Environment: CULPRIT_BUILD, CC, BENCH_RUNS (default 5), BENCH_ITER
# (lock/unlock pairs per thread, default 20000000 uncontended, a tenth
# contended), BENCH_THREADS (default 2).
set -eu

here=$(cd "$(dirname "$0")" && pwd -P)
# shellcheck source=SCRIPTDIR/common.sh
. "$here/common.sh"

RUNS=${BENCH_RUNS:-5}
ITER=${BENCH_ITER:-20000000}
THREADS=${BENCH_THREADS:-2}

setup_build
TMP=$(mktemp -d "${TMPDIR:-/tmp}/culprit-bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
${CC:-cc} -O2 -pthread -o "$TMP/lock_work" "$here/lock_work.c"

# once MODE ITER [culprit options...]: the loop's seconds, one run.
once() {
    local mode=$1 iter=$2
    shift 2
    if [ $# -eq 0 ]; then
        "$TMP/lock_work" "$mode" "$THREADS" "$iter"
    else
        rm -rf "$TMP/m"
        "$CULPRIT" run -q -o "$TMP/m" "$@" -- "$TMP/lock_work" "$mode" "$THREADS" "$iter"
    fi
}

printf '%-12s %8s %12s %12s %12s %10s %10s\n' workload threads "base ns" "no-waits ns" \
    "culprit ns" "c/base" "c/no-waits"
for mode in uncontended contended; do
    iter=$ITER
    [ $mode = contended ] && iter=$((ITER / 10))
    # Interleaved, so that a noisy machine's drift falls on all three.
    b=() w=() f=()
    for ((i = 0; i < RUNS; i++)); do
        b+=("$(once $mode $iter)")
        w+=("$(once $mode $iter --no-waits)")
        f+=("$(once $mode $iter -e CPUTIME@f1000)")
    done
    base=$(median "${b[@]}") nowaits=$(median "${w[@]}") full=$(median "${f[@]}")
    awk -v m=$mode -v t="$THREADS" -v n="$iter" -v b="$base" -v w="$nowaits" -v f="$full" 'BEGIN {
        pairs = n * t
        printf "%-12s %8d %12.1f %12.1f %12.1f %10.3f %10.3f\n", m, t, 1e9 * b / pairs,
               1e9 * w / pairs, 1e9 * f / pairs, f / b, f / w }'
done
