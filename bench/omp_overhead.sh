#!/bin/bash
# bench/omp_overhead.sh - the cost of culprit's OpenMP plugin on task
# recursions: fine-grained (millions of tasks per second) and coarse.
# Each runs uninstrumented, with an OMPT tool that registers the same
# callbacks and does nothing (the tools interface's own cost), under culprit
# sampling at 1 Hz (the plugin's cost: records and worker states, hardly any
# samples) and under culprit at its default 1 kHz.  Prints numbers; this is
# not a pass/fail test.
#
# Environment:
#   CULPRIT_BUILD   build tree holding `culprit` (default: found by walking up)
#   OMP_CC          OpenMP compiler on LLVM's libomp (default clang)
#   BENCH_RUNS      repetitions per configuration, median taken (default 5)
#   BENCH_THREADS   OpenMP threads (default 2)
#   BENCH_FINE      fib N and cutoff of the fine-grained run (default "31 2")
#   BENCH_COARSE    the same for the coarse-grained run (default "42 22")
#   BENCH_VERBOSE   if set, also print the per-run values
set -eu

here=$(cd "$(dirname "$0")" && pwd -P)
# shellcheck source=SCRIPTDIR/common.sh
. "$here/common.sh"

RUNS=${BENCH_RUNS:-5}
THREADS=${BENCH_THREADS:-2}
FINE=${BENCH_FINE:-31 2}
COARSE=${BENCH_COARSE:-42 22}
OMP_CC=${OMP_CC:-clang}

setup_build
TMP=$(mktemp -d "${TMPDIR:-/tmp}/culprit-bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

"$OMP_CC" -O2 -g -fopenmp -I"$here/../tests/programs" -o "$TMP/fib" \
    "$here/../tests/programs/omp_fib.c"
"$OMP_CC" -O2 -fPIC -shared -Wall -Wextra -Werror -o "$TMP/null_tool.so" "$here/omp_null_tool.c"
export OMP_NUM_THREADS=$THREADS

echo "culprit OpenMP overhead benchmark: task recursion (tests/programs/omp_fib.c)"
echo "  culprit:  $CULPRIT"
echo "  machine:  $(nproc) CPUs, $(uname -r); $THREADS OpenMP threads"
echo "  compiler: $("$OMP_CC" --version | head -n 1)"
echo "  runs:     $RUNS per configuration, interleaved, median"

WORKLOADS="fine coarse"
CONFIGS="base null plugin culprit"
declare -A args wall cpu tasks samples
args[fine]=$FINE
args[coarse]=$COARSE

for r in $(seq "$RUNS"); do
    if [ -t 2 ]; then echo "  run $r/$RUNS ..." >&2; fi
    for w in $WORKLOADS; do
        for c in $CONFIGS; do
            rm -rf "$TMP/c.out"
            # shellcheck disable=SC2086
            case $c in
            base) t=$(wall_cpu "$TMP/fib" ${args[$w]}) ;;
            null) t=$(OMP_TOOL_LIBRARIES=$TMP/null_tool.so wall_cpu "$TMP/fib" ${args[$w]}) ;;
            plugin) t=$(wall_cpu "$CULPRIT" run -q -e CPUTIME@f1 -o "$TMP/c.out" "$TMP/fib" ${args[$w]})
                tasks[$w]+=" $(counter_sum "$TMP/c.out" context:captures)" ;;
            culprit) t=$(wall_cpu "$CULPRIT" run -q -o "$TMP/c.out" "$TMP/fib" ${args[$w]})
                samples[$w]+=" $(counter_sum "$TMP/c.out" samples)" ;;
            esac
            wall[$w.$c]+=" ${t% *}"
            cpu[$w.$c]+=" ${t#* }"
        done
    done
done
rm -rf "$TMP/c.out"

# The fixed cost of `culprit run` itself, taken out of the per-task figures.
start=()
for _ in $(seq "$RUNS"); do
    rm -rf "$TMP/c.out"
    start+=("$(wall_cpu "$CULPRIT" run -q -e CPUTIME@f1 -o "$TMP/c.out" true)")
done
rm -rf "$TMP/c.out"
START_WALL=$(median "${start[@]% *}")
START_CPU=$(median "${start[@]#* }")

echo
printf '%-7s %-6s %-4s %8s | %8s %6s | %8s %6s %7s | %8s %6s %7s\n' \
    run fib time base_s null_s ratio plugin_s ratio vs_null culprit_s ratio vs_null
printf '%s\n' '-------------------------------------------------------------------------------------------'
for w in $WORKLOADS; do
    for kind in wall cpu; do
        declare -n m=$kind
        # shellcheck disable=SC2086
        {
            b=$(median ${m[$w.base]}) n=$(median ${m[$w.null]})
            p=$(median ${m[$w.plugin]}) f=$(median ${m[$w.culprit]})
        }
        unset -n m
        awk -v w="$w" -v a="${args[$w]}" -v k="$kind" -v b="$b" -v n="$n" -v p="$p" -v f="$f" 'BEGIN {
            printf "%-7s %-6s %-4s %8.3f | %8.3f %6.2f | %8.3f %6.2f %7.2f | %8.3f %6.2f %7.2f\n",
                w, a, k, b, n, n / b, p, p / b, p / n, f, f / b, f / n
        }'
        eval "${kind}_b=\$b ${kind}_n=\$n ${kind}_p=\$p"
    done
    # shellcheck disable=SC2086
    t=$(median ${tasks[$w]}) s=$(median ${samples[$w]})
    awk -v w="$w" -v t="$t" -v s="$s" -v b="$wall_b" -v wn="$wall_n" -v wp="$wall_p" \
        -v cn="$cpu_n" -v cp="$cpu_p" -v sw="$START_WALL" -v sc="$START_CPU" 'BEGIN {
        printf "        %d tasks, %.2f M/s uninstrumented; %d samples at 1 kHz", t, t / b / 1e6, s
        if (t > 0)
            printf "\n        per task, culprit plugin over null tool: %.0f ns wall, %.0f ns CPU",
                (wp - sw - wn) / t * 1e9, (cp - sc - cn) / t * 1e9
        printf "\n"
    }'
done
if [ -n "${BENCH_VERBOSE:-}" ]; then
    echo
    for w in $WORKLOADS; do
        for c in $CONFIGS; do
            # shellcheck disable=SC2086
            show_raw "$w $c wall" ${wall[$w.$c]}
            # shellcheck disable=SC2086
            show_raw "$w $c cpu" ${cpu[$w.$c]}
        done
    done
fi
echo
echo "Median seconds of $RUNS runs: wall-clock, and CPU (user + system, all threads)."
echo "ratio = / base, vs_null = / null.  null: libomp with an OMPT tool that registers"
echo "culprit's callbacks and does nothing.  plugin: culprit run -e CPUTIME@f1 (records"
echo "and worker states, almost no samples).  culprit: culprit run at its default"
echo "CPUTIME@f1000.  tasks: logical context records captured (context:captures)."
awk -v w="$START_WALL" -v c="$START_CPU" 'BEGIN {
    printf "Per-task figures leave out culprit run'"'"'s fixed cost (wrapping true: %.3f s wall,\n%.3f s CPU).\n", w, c }'
