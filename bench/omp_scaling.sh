#!/bin/bash
# bench/omp_scaling.sh - what culprit costs OpenMP programs as the thread
# count grows, against the OMPT tools interface alone and against perf.
# Three workloads: fine-grained tasks (tests/programs/omp_fib.c, fib(31)
# with cutoff 2: about 2.7 million tasks), coarse tasks (fib(42), cutoff
# 22: about 35 thousand) and a dynamic parallel loop (bench/omp_loop_work.c,
# fixed total work, so it gets shorter as T grows).  Each runs at
# T = 1, 2, 4, ... up to nproc threads in four configurations: uninstrumented
# (base), with an OMPT tool that registers culprit's callbacks and does
# nothing (null, bench/omp_null_tool.c), under `culprit run` at its default
# CPUTIME@f1000 (culprit), and under `perf record -g -F 1000 -e cpu-clock`
# (perf; skipped with a note where perf does not work).  Prints one table
# of wall and CPU medians and ratios, each target marked ok or over.  Prints
# numbers; this is not a pass/fail test.
#
# Takes about 1 min on 2 CPUs (T = 1 2) with the default 3 runs, and not
# much longer on 16 (T = 1 2 4 8 16): the total work is fixed, so the T = 1
# runs dominate.
#
# Environment:
#   CULPRIT_BUILD   build tree holding `culprit` (default: found by walking up)
#   OMP_CC          OpenMP compiler on LLVM's libomp (default clang)
#   BENCH_RUNS      repetitions per configuration, median taken (default 3)
#   BENCH_THREADS   thread counts (default "1 2 4 ... nproc": the powers of
#                   two below nproc, then nproc)
#   BENCH_FINE      fib N and cutoff of the fine-grained tasks (default "31 2")
#   BENCH_COARSE    the same for the coarse tasks (default "42 22")
#   BENCH_LOOP      regions, rows and units of the loop (default "40 2048 5000")
#   BENCH_PERF_OPTS extra `perf record` options (default --no-bpf-event)
#   PERF            perf binary (default: perf on PATH)
#   BENCH_VERBOSE   if set, also print the per-run values
set -eu

here=$(cd "$(dirname "$0")" && pwd -P)
# shellcheck source=SCRIPTDIR/common.sh
. "$here/common.sh"

RUNS=${BENCH_RUNS:-3}
FINE=${BENCH_FINE:-31 2}
COARSE=${BENCH_COARSE:-42 22}
LOOP=${BENCH_LOOP:-40 2048 5000}
OMP_CC=${OMP_CC:-clang}
FREQ=1000

# The targets, marked in the last column.
FINE_MAX=1.30        # fine, wall: culprit / null, at every T up to FINE_MAX_T
FINE_STRETCH=1.15
FINE_MAX_T=16
TASK_NS_MAX=60       # fine, at T = 1: ns per task of culprit over null
CPU_MAX=1.05         # coarse and loop, CPU: culprit / base

THREADS=${BENCH_THREADS:-$(thread_counts 1)}

setup_build
TMP=$(mktemp -d "${TMPDIR:-/tmp}/culprit-bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
setup_perf

"$OMP_CC" -O2 -g -fopenmp -I"$here/../tests/programs" -o "$TMP/fib" \
    "$here/../tests/programs/omp_fib.c"
"$OMP_CC" -std=c11 -O2 -g -fopenmp -Wall -Wextra -Werror -I"$here/../tests/programs" \
    -o "$TMP/loop" "$here/omp_loop_work.c"
"$OMP_CC" -O2 -fPIC -shared -Wall -Wextra -Werror -o "$TMP/null_tool.so" "$here/omp_null_tool.c"

print_header "culprit OpenMP scaling benchmark: tasks and a loop at T = $THREADS" \
    "fine = omp_fib $FINE, coarse = omp_fib $COARSE, loop = omp_loop_work $LOOP"
echo "  compiler: $("$OMP_CC" --version | head -n 1)"
echo "  runs:     $RUNS per configuration, interleaved, median"

WORKLOADS="fine coarse loop"
CONFIGS="base null culprit perf"
declare -A cmd wall cpu tasks
cmd[fine]="$TMP/fib $FINE"
cmd[coarse]="$TMP/fib $COARSE"
cmd[loop]="$TMP/loop $LOOP"

for r in $(seq "$RUNS"); do
    if [ -t 2 ]; then echo "  run $r/$RUNS ..." >&2; fi
    for w in $WORKLOADS; do
        for T in $THREADS; do
            export OMP_NUM_THREADS=$T
            for c in $CONFIGS; do
                rm -rf "$TMP/c.out" "$TMP/p.data"
                # shellcheck disable=SC2086
                case $c in
                base) t=$(wall_cpu ${cmd[$w]}) ;;
                null) t=$(OMP_TOOL_LIBRARIES=$TMP/null_tool.so wall_cpu ${cmd[$w]}) ;;
                culprit) t=$(wall_cpu "$CULPRIT" run -q -o "$TMP/c.out" ${cmd[$w]})
                    if [ "$w" = fine ]; then
                        tasks[$w.$T]+=" $(counter_sum "$TMP/c.out" context:captures)"
                    fi ;;
                perf) [ -n "$PERF" ] || continue
                    t=$(wall_cpu "$PERF" record -q $PERF_OPTS -g -F "$FREQ" -e cpu-clock \
                        -o "$TMP/p.data" ${cmd[$w]}) ;;
                esac
                wall[$w.$T.$c]+=" ${t% *}"
                cpu[$w.$T.$c]+=" ${t#* }"
            done
        done
    done
done
unset OMP_NUM_THREADS
rm -rf "$TMP/c.out" "$TMP/p.data"

# The fixed cost of each tool (wrapping true), taken out of the per-task
# figures and printed below the table; the ratios include it.
cstart=() pstart=()
for _ in $(seq "$RUNS"); do
    rm -rf "$TMP/c.out" "$TMP/p.data"
    cstart+=("$(wall_cpu "$CULPRIT" run -q -o "$TMP/c.out" true)")
    if [ -n "$PERF" ]; then
        # shellcheck disable=SC2086
        pstart+=("$(wall_cpu "$PERF" record -q $PERF_OPTS -g -F "$FREQ" -e cpu-clock -o "$TMP/p.data" true)")
    fi
done
rm -rf "$TMP/c.out" "$TMP/p.data"
START_WALL=$(median "${cstart[@]% *}")
START_CPU=$(median "${cstart[@]#* }")

echo
printf '%-6s %3s %-4s %7s %7s %9s %7s | %6s %6s %6s | %7s | %s\n' \
    work T time base_s null_s culprit_s perf_s c/base c/null p/base ns/task target
printf '%s\n' '----------------------------------------------------------------------------------------------'
for w in $WORKLOADS; do
    for T in $THREADS; do
        n=nan
        if [ "$w" = fine ]; then
            # shellcheck disable=SC2086
            n=$(median ${tasks[$w.$T]})
        fi
        for kind in wall cpu; do
            declare -n m=$kind
            # shellcheck disable=SC2086
            {
                b=$(median ${m[$w.$T.base]}) u=$(median ${m[$w.$T.null]})
                c=$(median ${m[$w.$T.culprit]}) p=nan
                if [ -n "$PERF" ]; then p=$(median ${m[$w.$T.perf]}); fi
            }
            unset -n m
            s=$START_WALL
            if [ "$kind" = cpu ]; then s=$START_CPU; fi
            awk -v w="$w" -v T="$T" -v k="$kind" -v b="$b" -v u="$u" -v c="$c" -v p="$p" \
                -v n="$n" -v s="$s" -v fmax="$FINE_MAX" -v fstr="$FINE_STRETCH" \
                -v fmaxt="$FINE_MAX_T" -v nsmax="$TASK_NS_MAX" -v cmax="$CPU_MAX" '
            # Judged on the value as printed, so that 1.05 never reads "over 1.05".
            function mark(v, max, fmt) { return sprintf(fmt, v) + 0 <= max ? "ok" : "over" }
            BEGIN {
                ps = "-"; pr = "-"
                if (p != "nan") { ps = sprintf("%.3f", p); pr = sprintf("%.2f", p / b) }
                ns = "-"
                if (n != "nan" && n > 0) ns = sprintf("%.0f", (c - s - u) / n * 1e9)
                tg = ""
                if (w == "fine" && k == "wall" && T <= fmaxt)
                    tg = sprintf("c/null %s, stretch %s", mark(c / u, fmax, "%.2f"), mark(c / u, fstr, "%.2f"))
                if (w == "fine" && T == 1 && ns != "-")
                    tg = tg (tg == "" ? "" : "; ") sprintf("ns %s", mark(ns, nsmax, "%.0f"))
                if (w != "fine" && k == "cpu")
                    tg = sprintf("c/base %s", mark(c / b, cmax, "%.2f"))
                line = sprintf("%-6s %3d %-4s %7.3f %7.3f %9.3f %7s | %6.2f %6.2f %6s | %7s | %s",
                    w, T, k, b, u, c, ps, c / b, c / u, pr, ns, tg)
                sub(/ +$/, "", line)
                print line
            }'
        done
    done
done
if [ -n "${BENCH_VERBOSE:-}" ]; then
    echo
    for w in $WORKLOADS; do
        for T in $THREADS; do
            for c in $CONFIGS; do
                if [ "$c" = perf ] && [ -z "$PERF" ]; then continue; fi
                # shellcheck disable=SC2086
                show_raw "$w T=$T $c wall" ${wall[$w.$T.$c]:-}
                # shellcheck disable=SC2086
                show_raw "$w T=$T $c cpu" ${cpu[$w.$T.$c]:-}
            done
            if [ "$w" = fine ]; then
                # shellcheck disable=SC2086
                show_raw "$w T=$T tasks" ${tasks[$w.$T]}
            fi
        done
    done
fi
echo
echo "Median seconds of $RUNS runs: wall-clock, and CPU (user + system of all threads"
echo "and children, the tool's own processes included).  c/base = culprit / base,"
echo "c/null = culprit / null, p/base = perf / base.  null: libomp with an OMPT tool"
echo "that registers culprit's callbacks and does nothing.  ns/task: culprit over null"
echo "per task (context:captures), less culprit run's fixed cost."
echo "Targets: fine wall c/null <= $FINE_MAX (stretch $FINE_STRETCH) at T <= $FINE_MAX_T;"
echo "fine at T = 1 <= $TASK_NS_MAX ns per task (wall and CPU); coarse and loop CPU"
echo "c/base <= $CPU_MAX."
p_wall=nan p_cpu=nan
if [ -n "$PERF" ]; then
    p_wall=$(median "${pstart[@]% *}") p_cpu=$(median "${pstart[@]#* }")
fi
awk -v cw="$START_WALL" -v cc="$START_CPU" -v pw="$p_wall" -v pc="$p_cpu" 'BEGIN {
    printf "Fixed cost (tool wrapping true, included in the ratios): culprit %.3f s wall,\n%.3f s CPU", cw, cc
    if (pw != "nan") printf "; perf %.3f s wall, %.3f s CPU", pw, pc
    printf ".\n"
}'
if [ -z "$PERF" ]; then echo "$PERF_NOTE"; fi
