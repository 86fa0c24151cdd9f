#!/bin/bash
# bench/prof_scaling.sh - how `culprit prof` grows with the calling-context
# tree: time, database bytes and contexts written per second at about 10
# thousand, 100 thousand and 1 million contexts, and `perf report --stdio`
# on perf.data recorded from the same program at the same rate.  Prints
# numbers; this is not a pass/fail test.
#
# The program is bench/prof_work.c (random descents through eight mutually
# recursive functions: nearly every sample reaches new contexts).  For each
# size, the run's length is found by trying: a first guess from the
# contexts per sample of a short run, then scaled by what it gave (at most
# three tries, accepted within 30% of the target).
#
# Environment: CULPRIT_BUILD, CC, BENCH_RUNS (timed runs of each command,
# median; default 3), BENCH_SIZES (target contexts, default "10000 100000
# 1000000"), BENCH_THREADS (default 2), BENCH_FREQ (Hz per thread, default
# 4000), PERF, BENCH_PERF_OPTS (see common.sh).
set -eu

here=$(cd "$(dirname "$0")" && pwd -P)
# shellcheck source=SCRIPTDIR/common.sh
. "$here/common.sh"

RUNS=${BENCH_RUNS:-3}
SIZES=${BENCH_SIZES:-10000 100000 1000000}
THREADS=${BENCH_THREADS:-2}
FREQ=${BENCH_FREQ:-4000}
SECONDS_TARGET=1

setup_build
TMP=$(mktemp -d "${TMPDIR:-/tmp}/culprit-bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
setup_perf

build_prof_work
UNITS_PER_SECOND=$(calibrate "$PROG" "$THREADS")


# record SECONDS: a measurement of prof_work running about SECONDS, in
# $TMP/c.out, and its database in $TMP/c.db.
record() {
    local units
    units=$(awk -v u="$UNITS_PER_SECOND" -v s="$1" 'BEGIN { printf "%.0f\n", u * s }')
    ARGS=("$THREADS" "$units")
    rm -rf "$TMP/c.out"
    "$CULPRIT" run -q -e "CPUTIME@f$FREQ" -o "$TMP/c.out" "$PROG" "${ARGS[@]}" >/dev/null
    "$CULPRIT" prof -q --force -o "$TMP/c.db" "$TMP/c.out" 2>/dev/null
}

print_header "culprit prof as the tree grows, against perf report" \
    "prof_work, $THREADS threads, ${FREQ} Hz; $RUNS timed runs per command, median"
printf '\n%10s %8s %10s %10s %8s %12s %10s %10s\n' contexts samples "prof s" "MiB" "B/ctx" \
    "ctx/s" "perf s" "perf/prof"
for target in $SIZES; do
    # A short run says how many contexts a second of samples makes.
    seconds=0.5
    for try in 1 2 3; do
        record "$seconds"
        got=$(count_contexts "$TMP/c.db")
        ok=$(awk -v g="$got" -v t="$target" 'BEGIN { print (g > 0.7 * t && g < 1.3 * t) }')
        [ "$ok" = 1 ] && [ "$try" -gt 1 ] && break
        seconds=$(awk -v s="$seconds" -v g="$got" -v t="$target" \
            'BEGIN { if (g < 1) g = 1; printf "%.3f\n", s * t / g }')
    done
    samples=$(counter_sum "$TMP/c.out" samples)
    prof=()
    for _ in $(seq "$RUNS"); do
        prof+=("$(walltime "$CULPRIT" prof -q --force -o "$TMP/c.db" "$TMP/c.out")")
    done
    pt=$(median "${prof[@]}")
    bytes=$(stat -c %s "$TMP/c.db")
    pr=nan
    if [ -n "$PERF" ]; then
        # shellcheck disable=SC2086
        "$PERF" record -q $PERF_OPTS -g -F "$FREQ" -e cpu-clock -o "$TMP/perf.data" \
            "$PROG" "${ARGS[@]}" >/dev/null 2>&1
        rep=()
        for _ in $(seq "$RUNS"); do
            rep+=("$(walltime quietly "$PERF" report --stdio -i "$TMP/perf.data")")
        done
        pr=$(median "${rep[@]}")
    fi
    awk -v c="$got" -v s="$samples" -v t="$pt" -v b="$bytes" -v p="$pr" 'BEGIN {
        printf "%10d %8d %10.3f %10.1f %8.0f %12.0f %10s %10s\n", c, s, t, b / 1048576,
            b / c, c / t, p == "nan" ? "-" : sprintf("%.3f", p),
            p == "nan" ? "-" : sprintf("%.2f", p / t) }'
done
cat <<EOF

prof s: \`culprit prof\` wall-clock seconds (default -j$(nproc)); ctx/s: contexts
written per second; perf s: \`perf report --stdio\` on perf.data recorded from the
same program and arguments at the same rate; perf/prof above 1 means culprit
prof is that many times faster than perf report.
EOF
