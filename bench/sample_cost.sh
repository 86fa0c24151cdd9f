#!/bin/bash
# bench/sample_cost.sh - cost of one culprit sample at several stack depths,
# measured at a high sampling rate.  Prints numbers; not a pass/fail test.
#
# Environment:
#   CULPRIT_BUILD   build tree holding `culprit` (default: found by walking up
#                   from the current directory, else /tmp/build)
#   CC, CFLAGS      compiler (default cc) and extra flags
#   BENCH_RUNS      repetitions per configuration, median taken (default 3)
#   BENCH_SECONDS   target uninstrumented run time (default 1)
#   BENCH_FREQ      sampling frequency in Hz (default 20000)
#   BENCH_DEPTHS    recursion depths D to measure (default "8 26 60")
#   BENCH_PERF_OPTS extra `perf record` options (default --no-bpf-event)
#   PERF            perf binary (default: perf on PATH)
#   BENCH_VERBOSE   if set, also print the per-run values
set -eu

here=$(cd "$(dirname "$0")" && pwd -P)
# shellcheck source=SCRIPTDIR/common.sh
. "$here/common.sh"

RUNS=${BENCH_RUNS:-3}
SECONDS_TARGET=${BENCH_SECONDS:-1}
FREQ=${BENCH_FREQ:-20000}
DEPTHS=${BENCH_DEPTHS:-8 26 60}

setup_build
TMP=$(mktemp -d "${TMPDIR:-/tmp}/culprit-bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
setup_perf

# -fno-optimize-sibling-calls: keep every recursion level as a real frame.
# shellcheck disable=SC2086
${CC:-cc} -std=c11 -O2 -fno-optimize-sibling-calls -Wall -Wextra -Werror \
    ${CFLAGS:-} -o "$TMP/sample_cost_work" "$here/sample_cost_work.c"
PROG=$TMP/sample_cost_work

ITERS=$(calibrate "$PROG" 8)

# leaf_depth DIR : depth of the calling-context node with the most exclusive
# samples (column 10 of `culprit dump --tsv`), over all thread files.
leaf_depth() {
    local f
    for f in "$1"/*.thread; do
        [ -f "$f" ] || continue
        "$CULPRIT" dump --tsv "$f" | awk -F'\t' 'NR > 1 { print $10, $3 }'
    done | sort -g -k1,1 | tail -n 1 | awk '{ print $2 }'
}

print_header "culprit per-sample cost benchmark: CPUTIME@f$FREQ" \
    "leaf of $ITERS iterations (~${SECONDS_TARGET}s) below D recursive frames, $RUNS runs per configuration, interleaved, median"

# Fixed start-up and tear-down cost of each tool, taken out of the
# comparisons below.
measure_startup

# Per depth: space-separated per-run values.
declare -A base cwall sig hus ctot ldepth pwall psamp ptot
for d in $DEPTHS; do
    base[$d]="" cwall[$d]="" sig[$d]="" hus[$d]="" ctot[$d]="" ldepth[$d]=""
    pwall[$d]="" psamp[$d]="" ptot[$d]=""
done

for r in $(seq "$RUNS"); do
    if [ -t 2 ]; then echo "  run $r/$RUNS ..." >&2; fi
    for d in $DEPTHS; do
        b=$(walltime "$PROG" "$d" "$ITERS")
        base[$d]+=" $b"

        rm -rf "$TMP/c.out"
        c=$(walltime "$CULPRIT" run -q -o "$TMP/c.out" -e "CPUTIME@f$FREQ" "$PROG" "$d" "$ITERS")
        s=$(counter_sum "$TMP/c.out" signals)
        h=$(counter_sum "$TMP/c.out" collector:handler_ns)
        cwall[$d]+=" $c"
        sig[$d]+=" $s"
        ldepth[$d]+=" $(leaf_depth "$TMP/c.out")"
        hus[$d]+=" $(awk -v h="$h" -v s="$s" 'BEGIN { printf "%.4f", s ? h / s / 1000 : 0 }')"
        ctot[$d]+=" $(awk -v c="$c" -v b="$b" -v f="$C_START" -v s="$s" \
            'BEGIN { printf "%.3f", s ? (c - b - f) / s * 1e6 : 0 }')"
        rm -rf "$TMP/c.out"

        if [ -n "$PERF" ]; then
            rm -f "$TMP/p.data"
            # shellcheck disable=SC2086
            p=$(walltime "$PERF" record -q $PERF_OPTS -g -F "$FREQ" -e cpu-clock -o "$TMP/p.data" "$PROG" "$d" "$ITERS")
            ps=$(perf_samples "$TMP/p.data")
            ps=${ps:-0}
            pwall[$d]+=" $p"
            psamp[$d]+=" $ps"
            ptot[$d]+=" $(awk -v p="$p" -v b="$b" -v f="$P_START" -v s="$ps" \
                'BEGIN { printf "%.3f", s ? (p - b - f) / s * 1e6 : 0 }')"
            rm -f "$TMP/p.data"
        fi
    done
done

echo
printf '%4s %6s %7s | %8s %8s %8s %10s %10s | %8s %8s %10s\n' \
    D depth base_s culprit_s signals signals/s handler_us total_us perf_s samples total_us
printf '%s\n' '---------------------------------------------------------------------------------------------------'
for d in $DEPTHS; do
    # shellcheck disable=SC2086
    {
        mb=$(median ${base[$d]})
        mc=$(median ${cwall[$d]})
        ms=$(median ${sig[$d]})
        mh=$(median ${hus[$d]})
        mt=$(median ${ctot[$d]})
        md=$(median ${ldepth[$d]})
        if [ -n "$PERF" ]; then
            mp=$(median ${pwall[$d]})
            mps=$(median ${psamp[$d]})
            mpt=$(median ${ptot[$d]})
        else
            mp=nan mps=nan mpt=nan
        fi
    }
    awk -v d="$d" -v dep="$md" -v b="$mb" -v c="$mc" -v s="$ms" -v h="$mh" \
        -v t="$mt" -v p="$mp" -v ps="$mps" -v pt="$mpt" 'BEGIN {
        if (p == "nan") { p = "-"; ps = "-"; pt = "-" }
        else { p = sprintf("%.3f", p); ps = sprintf("%d", ps); pt = sprintf("%.2f", pt) }
        printf "%4d %6d %7.3f | %8.3f %8d %8.0f %10.3f %10.2f | %8s %8s %10s\n",
            d, dep, b, c, s, s / c, h, t, p, ps, pt
    }'
done
if [ -n "${BENCH_VERBOSE:-}" ]; then
    echo
    for d in $DEPTHS; do
        # shellcheck disable=SC2086
        {
            show_raw "D=$d base_s" ${base[$d]}
            show_raw "D=$d culprit_s" ${cwall[$d]}
            show_raw "D=$d signals" ${sig[$d]}
            show_raw "D=$d handler_us" ${hus[$d]}
            show_raw "D=$d culprit total_us" ${ctot[$d]}
            show_raw "D=$d perf_s" ${pwall[$d]}
            show_raw "D=$d perf samples" ${psamp[$d]}
            show_raw "D=$d perf total_us" ${ptot[$d]}
        }
    done
fi
echo
echo "D = recursion depth; depth = depth of the calling-context node with the most"
echo "exclusive samples (frames from _start to the leaf).  Values are medians of $RUNS runs."
echo "handler_us = collector:handler_ns / signals / 1000: time inside culprit's signal"
echo "  handler per sample, as measured by the collector itself."
echo "total_us   = (tool wall - uninstrumented wall - tool start-up) / samples: the whole"
echo "  cost of a sample, including the kernel's timer and signal delivery."
echo "  culprit counts 'signals'; perf counts its SAMPLE records (perf report --stats)."
awk -v c="$C_START" -v p="$P_START" 'BEGIN {
    printf "  start-up subtracted (tool wrapping /bin/true, median): culprit %.3f s", c
    if (p != "nan") printf ", perf %.3f s", p
    printf "\n"
}'
echo "Target: handler_us <= 1.5 at depth ~30 (D=26)."
