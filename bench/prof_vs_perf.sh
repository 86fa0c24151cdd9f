#!/bin/bash
# bench/prof_vs_perf.sh - post-processing time: `culprit prof` (measurement
# directory -> SQLite database) against `perf report --stdio` on a perf.data
# recorded from the same program at the same rate.  Prints numbers; this is
# not a pass/fail test.
#
# The program (prof_work.c) runs a few seconds on BENCH_THREADS threads and
# descends random paths through eight mutually recursive functions, so its
# calling-context tree has tens of thousands of distinct contexts.  It is
# recorded once by each tool at BENCH_FREQ Hz per thread, with frame-pointer
# call chains for perf (-g; the program is built with -fno-omit-frame-pointer)
# and culprit's default depth cap (512 frames; the stacks are < 25 deep, so
# neither tool truncates).  Then each post-processing command runs BENCH_RUNS
# times, interleaved, and the medians are compared.
#
# Environment:
#   CULPRIT_BUILD   build tree holding `culprit` (default: found by walking up
#                   from the current directory, else /tmp/build)
#   CC, CFLAGS      compiler (default cc) and extra flags
#   BENCH_RUNS      timed repetitions of each command, median taken (default 5)
#   BENCH_SECONDS   target uninstrumented run time of the program (default 3)
#   BENCH_THREADS   worker threads in the program (default 2)
#   BENCH_FREQ      sampling frequency per thread in Hz (default 1000)
#   BENCH_PERF_OPTS extra `perf record` options (default --no-bpf-event)
#   BENCH_PHASES    0 to skip the per-phase timing of one `culprit prof` run
#   PERF            perf binary (default: perf on PATH)
#   SQLITE3         sqlite3 shell used to count contexts (default: on PATH;
#                   python3's sqlite3 module otherwise)
#   BENCH_VERBOSE   if set, also print the per-run values
#   BENCH_WORKLOAD  tree (default): prof_work, a stress test with tens of
#                   thousands of contexts for a few thousand samples;
#                   mandel: the bundled example, a typical application tree
#                   (4 threads, a few dozen contexts)
set -eu

here=$(cd "$(dirname "$0")" && pwd -P)
# shellcheck source=SCRIPTDIR/common.sh
. "$here/common.sh"

RUNS=${BENCH_RUNS:-5}
SECONDS_TARGET=${BENCH_SECONDS:-3}
THREADS=${BENCH_THREADS:-2}
FREQ=${BENCH_FREQ:-1000}

setup_build
TMP=$(mktemp -d "${TMPDIR:-/tmp}/culprit-bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
setup_perf

build_prof_work

if [ "${BENCH_WORKLOAD:-tree}" = mandel ]; then
    PROG=$BUILD/examples/mandel
    [ -x "$PROG" ] || { echo "$0: $PROG is not built" >&2; exit 1; }
    ARGS=(4 2600 1500)
    WORK="examples/mandel ${ARGS[*]}"
else
    ITERS=$(calibrate "$PROG" "$THREADS")
    ARGS=("$THREADS" "$ITERS")
    WORK="prof_work $THREADS threads x $ITERS units (~${SECONDS_TARGET}s)"
fi

size_of() { du -sk "$1" | awk '{ printf "%.1f MiB\n", $1 / 1024 }'; }

# ---- record ------------------------------------------------------------

CDIR=$TMP/c.out
CDB=$TMP/c.db
PDATA=$TMP/perf.data
"$CULPRIT" run -q -e "CPUTIME@f$FREQ" -o "$CDIR" "$PROG" "${ARGS[@]}" >/dev/null
if [ -n "$PERF" ]; then
    # shellcheck disable=SC2086
    if ! "$PERF" record -q $PERF_OPTS -g -F "$FREQ" -e cpu-clock -o "$PDATA" \
            "$PROG" "${ARGS[@]}" >/dev/null 2>"$TMP/perf-record.err"; then
        PERF_NOTE="perf record failed ($(head -n 1 "$TMP/perf-record.err")): perf rows skipped"
        PERF=
    elif ! "$PERF" report --stdio -i "$PDATA" >/dev/null 2>"$TMP/perf-report.err"; then
        PERF_NOTE="perf report failed ($(head -n 1 "$TMP/perf-report.err")): perf rows skipped"
        PERF=
    fi
fi

print_header "culprit prof vs perf report: post-processing time" \
    "$WORK, recorded at ${FREQ} Hz; $RUNS timed runs per command, interleaved, median"
echo "  prof:     $CULPRIT prof -q --force -o OUT.db DIR  (default -j$(nproc), and -j1)"
if [ -n "$PERF" ]; then
    echo "  report:   $PERF report --stdio -i perf.data  (and --no-children -g none)"
fi

# ---- time -----------------------------------------------------------------

# One untimed run of each first: page cache, perf's symbol files.
"$CULPRIT" prof -q --force -o "$CDB" "$CDIR"
if [ -n "$PERF" ]; then
    quietly "$PERF" report --stdio -i "$PDATA" >/dev/null
fi

c_def=() c_j1=() p_def=() p_light=()
for r in $(seq "$RUNS"); do
    if [ -t 2 ]; then echo "  run $r/$RUNS ..." >&2; fi
    c_def+=("$(walltime "$CULPRIT" prof -q --force -o "$CDB" "$CDIR")")
    c_j1+=("$(walltime "$CULPRIT" prof -q --force -j1 -o "$CDB" "$CDIR")")
    if [ -n "$PERF" ]; then
        p_def+=("$(walltime quietly "$PERF" report --stdio -i "$PDATA")")
        p_light+=("$(walltime quietly "$PERF" report --stdio --no-children -g none -i "$PDATA")")
    fi
done

# ---- sizes ----------------------------------------------------------------

csamples=$(counter_sum "$CDIR" samples)
contexts=$(count_contexts "$CDB")
psamples=-
if [ -n "$PERF" ]; then
    psamples=$(perf_samples "$PDATA")
    plines=$(quietly "$PERF" report --stdio -i "$PDATA" | wc -l)
fi

CMED=$(median "${c_def[@]}")
row() {  # row LABEL MEDIAN
    awk -v l="$1" -v m="$2" -v c="$CMED" 'BEGIN {
        printf "%-44s %9.3f %12.2f\n", l, m, m / c
    }'
}
echo
printf '%-44s %9s %12s\n' "tool / variant" median_s "vs_culprit"
printf '%s\n' '-------------------------------------------------------------------'
row "culprit prof (-j$(nproc))" "$CMED"
row "culprit prof -j1" "$(median "${c_j1[@]}")"
if [ -n "$PERF" ]; then
    PMED=$(median "${p_def[@]}")
    row "perf report --stdio" "$PMED"
    row "perf report --stdio --no-children -g none" "$(median "${p_light[@]}")"
else
    echo "perf rows skipped: $PERF_NOTE"
fi
if [ -n "${BENCH_VERBOSE:-}" ]; then
    echo
    show_raw "culprit prof" "${c_def[@]}"
    show_raw "culprit prof -j1" "${c_j1[@]}"
    if [ -n "$PERF" ]; then
        show_raw "perf report" "${p_def[@]}"
        show_raw "perf report light" "${p_light[@]}"
    fi
fi

echo
echo "Inputs:"
printf '  %-38s %s samples, %s\n' "culprit measurement directory" "$csamples" "$(size_of "$CDIR")"
printf '  %-38s %s contexts, %s\n' "culprit database" "$contexts" "$(size_of "$CDB")"
if [ -n "$PERF" ]; then
    printf '  %-38s %s samples, %s\n' "perf.data" "$psamples" "$(size_of "$PDATA")"
    printf '  %-38s %s lines\n' "perf report --stdio output" "$plines"
fi

# ---- phases of one culprit prof run ----------------------------------------

# CULPRIT_PROGRESS=1 prints a line as each phase starts; time-stamp them.
if [ "${BENCH_PHASES:-1}" != 0 ]; then
    echo
    echo "culprit prof phases (one run, -j$(nproc); from CULPRIT_PROGRESS=1 lines):"
    start=$EPOCHREALTIME
    CULPRIT_PROGRESS=1 "$CULPRIT" prof --force -o "$CDB" "$CDIR" 2>&1 >/dev/null |
        while IFS= read -r line; do
            printf '%s %s\n' "$EPOCHREALTIME" "$line"
        done | tr -d '\r' | sed 's/\x1b\[K//g' |
        awk -v t0="$start" '
            {
                t = $1; $1 = ""; sub(/^ /, "")
                sub(/^culprit: /, "")
                sub(/^ *[0-9.]+ s /, "")	# its own clock: ours is the same
                if (n) printf "  %-40s %7.3f s\n", what, t - last
                else printf "  %-40s %7.3f s\n", "(start-up)", t - t0
                what = $0; last = t; n++
            }
            END { printf "  %-40s %7.3f s\n", "total (up to the wrote line)", last - t0 }'
fi

echo
echo "Times are median wall-clock seconds of $RUNS runs, stdout to /dev/null;"
echo "vs_culprit = median / median of 'culprit prof' with its default -j: a perf"
echo "row above 1 means culprit prof is that many times faster than it."
echo "samples: culprit = sum of the 'samples' counters of all thread files;"
echo "perf = SAMPLE records in perf.data.  perf report groups its call graph by"
echo "function; culprit prof writes every context (call site and frame) with"
echo "per-thread metrics to the database."
if [ -n "$PERF" ]; then
    awk -v p="$PMED" -v c="$CMED" 'BEGIN {
        printf "Goal: culprit prof several times faster than perf report --stdio; now %.2fx.\n", p / c
    }'
fi
