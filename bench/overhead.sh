#!/bin/bash
# bench/overhead.sh - run-time overhead of culprit (and perf) at 1 kHz per
# thread on CPU-bound programs.  Prints numbers; this is not a pass/fail test.
#
# Environment:
#   CULPRIT_BUILD   build tree holding `culprit` (default: found by walking up
#                   from the current directory, else /tmp/build)
#   CC, CFLAGS      compiler (default cc) and extra flags
#   BENCH_RUNS      repetitions per configuration, median taken (default 5)
#   BENCH_SECONDS   target uninstrumented run time per workload (default 2.5)
#   BENCH_FREQ      sampling frequency per thread in Hz (default 1000)
#   BENCH_PERF_OPTS extra `perf record` options (default --no-bpf-event)
#   PERF            perf binary (default: perf on PATH)
#   BENCH_VERBOSE   if set, also print the per-run values
set -eu

here=$(cd "$(dirname "$0")" && pwd -P)
# shellcheck source=SCRIPTDIR/common.sh
. "$here/common.sh"

RUNS=${BENCH_RUNS:-5}
SECONDS_TARGET=${BENCH_SECONDS:-2.5}
FREQ=${BENCH_FREQ:-1000}

setup_build
TMP=$(mktemp -d "${TMPDIR:-/tmp}/culprit-bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
setup_perf

# shellcheck disable=SC2086
${CC:-cc} -std=c11 -O2 -Wall -Wextra -Werror ${CFLAGS:-} -pthread \
    -o "$TMP/overhead_work" "$here/overhead_work.c"
PROG=$TMP/overhead_work

ITERS=$(calibrate "$PROG" 1)

print_header "culprit overhead benchmark: CPUTIME@f$FREQ vs uninstrumented" \
    "$ITERS iterations per thread (~${SECONDS_TARGET}s), $RUNS runs per configuration, interleaved, median"

# Fixed start-up and tear-down cost of each tool, taken out of the
# comparisons below.
measure_startup

# Workloads: name and thread count.  Every thread does ITERS iterations, so
# both run for about BENCH_SECONDS of wall time on an otherwise idle machine
# with >= 2 CPUs.
WORKLOADS="1-thread:1 2-threads:2"

declare -A base culp notr perf csamp psamp tbytes
for w in $WORKLOADS; do
    base[$w]="" culp[$w]="" notr[$w]="" perf[$w]="" csamp[$w]="" psamp[$w]="" tbytes[$w]=""
done

for r in $(seq "$RUNS"); do
    if [ -t 2 ]; then echo "  run $r/$RUNS ..." >&2; fi
    for w in $WORKLOADS; do
        n=${w#*:}
        base[$w]+=" $(walltime "$PROG" "$n" "$ITERS")"

        rm -rf "$TMP/c.out"
        culp[$w]+=" $(walltime "$CULPRIT" run -q -o "$TMP/c.out" -e "CPUTIME@f$FREQ" "$PROG" "$n" "$ITERS")"
        csamp[$w]+=" $(counter_sum "$TMP/c.out" samples)"
        tbytes[$w]+=" $(trace_bytes_per_sample "$TMP/c.out")"
        rm -rf "$TMP/c.out"
        # The same without the trace: what recording the timeline costs.
        notr[$w]+=" $(walltime "$CULPRIT" run -q --no-trace -o "$TMP/c.out" -e "CPUTIME@f$FREQ" "$PROG" "$n" "$ITERS")"
        rm -rf "$TMP/c.out"

        if [ -n "$PERF" ]; then
            rm -f "$TMP/p.data"
            # shellcheck disable=SC2086
            perf[$w]+=" $(walltime "$PERF" record -q $PERF_OPTS -g -F "$FREQ" -e cpu-clock -o "$TMP/p.data" "$PROG" "$n" "$ITERS")"
            psamp[$w]+=" $(perf_samples "$TMP/p.data")"
            rm -f "$TMP/p.data"
        fi
    done
done

echo
printf '%-10s %9s | %9s %7s %9s | %9s %7s %7s %6s | %9s %7s %9s\n' \
    workload base_s culprit_s ratio samples notrace_s ratio trace B/smp perf_s ratio samples
printf '%s\n' '------------------------------------------------------------------------------------------------------------'
for w in $WORKLOADS; do
    name=${w%:*}
    # shellcheck disable=SC2086
    b=$(median ${base[$w]})
    # shellcheck disable=SC2086
    c=$(median ${culp[$w]})
    # shellcheck disable=SC2086
    cs=$(median ${csamp[$w]})
    # shellcheck disable=SC2086
    nt=$(median ${notr[$w]})
    # shellcheck disable=SC2086
    tb=$(median ${tbytes[$w]})
    if [ -n "$PERF" ]; then
        # shellcheck disable=SC2086
        p=$(median ${perf[$w]})
        # shellcheck disable=SC2086
        ps=$(median ${psamp[$w]})
    else
        p=nan ps=-
    fi
    awk -v n="$name" -v b="$b" -v c="$c" -v cs="$cs" -v nt="$nt" -v tb="$tb" \
        -v p="$p" -v ps="$ps" 'BEGIN {
        if (p == "nan") pr = "-"; else pr = sprintf("%.3f", p / b)
        if (p == "nan") p = "-"; else p = sprintf("%.3f", p)
        printf "%-10s %9.3f | %9.3f %7.3f %9s | %9.3f %7.3f %7.3f %6.1f | %9s %7s %9s\n",
            n, b, c, c / b, cs, nt, nt / b, c / nt, tb, p, pr, ps
    }'
done
if [ -n "${BENCH_VERBOSE:-}" ]; then
    echo
    for w in $WORKLOADS; do
        # shellcheck disable=SC2086
        {
            show_raw "${w%:*} base_s" ${base[$w]}
            show_raw "${w%:*} culprit_s" ${culp[$w]}
            show_raw "${w%:*} culprit samples" ${csamp[$w]}
            show_raw "${w%:*} notrace_s" ${notr[$w]}
            show_raw "${w%:*} perf_s" ${perf[$w]}
            show_raw "${w%:*} perf samples" ${psamp[$w]}
        }
    done
fi
echo
echo "Times are median wall-clock seconds of $RUNS runs; ratio = tool / base."
echo "samples = samples recorded (culprit: sum of the 'samples' counters of all"
echo "thread files; perf: SAMPLE records in perf.data), median over runs."
echo "notrace = culprit run --no-trace; trace = culprit / notrace, what recording"
echo "the timeline costs (target <= 1.01); B/smp = trace bytes per traced sample."
awk -v c="$C_START" -v p="$P_START" 'BEGIN {
    printf "Fixed start-up + tear-down cost (tool wrapping /bin/true, median): culprit %.3f s", c
    if (p != "nan") printf ", perf %.3f s", p
    printf "\n(included in the ratios above).\n"
}'
echo "Target: culprit ratio <= 1.03 at 1 kHz per thread."
