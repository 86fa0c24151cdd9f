# shellcheck shell=bash
# bench/common.sh - helpers shared by the benchmark scripts (sourced, not run).

# Locate the build tree: $CULPRIT_BUILD, else the nearest directory at or
# above the current one that holds a `culprit` binary, else /tmp/build.
find_build_dir() {
    if [ -n "${CULPRIT_BUILD:-}" ]; then
        printf '%s\n' "$CULPRIT_BUILD"
        return
    fi
    local d
    d=$(pwd -P)
    while :; do
        if [ -f "$d/culprit" ] && [ -x "$d/culprit" ]; then
            printf '%s\n' "$d"
            return
        fi
        [ "$d" = / ] && break
        d=$(dirname "$d")
    done
    printf '%s\n' /tmp/build
}

setup_build() {
    BUILD=$(find_build_dir)
    CULPRIT=$BUILD/culprit
    if [ ! -x "$CULPRIT" ]; then
        echo "$0: no culprit binary in $BUILD (set CULPRIT_BUILD)" >&2
        exit 1
    fi
    if [ ! -f "$BUILD/collector/libculprit.so" ]; then
        echo "$0: warning: $BUILD/collector/libculprit.so not found" >&2
    fi
}

# Find perf; sets PERF (empty if unusable) and PERF_NOTE.
# --no-bpf-event: perf 6.x otherwise starts a side-band thread that polls
# with a 1 s timeout and is joined at exit, which rounds every `perf record`
# up to the next whole second (measured: `perf record true` 1.10 s with it,
# 0.13 s without).  Override with BENCH_PERF_OPTS.
# shellcheck disable=SC2034  # PERF_NOTE and PERF_OPTS are used by the callers
setup_perf() {
    PERF=${PERF:-$(command -v perf || true)}
    PERF_OPTS=${BENCH_PERF_OPTS---no-bpf-event}
    PERF_NOTE=
    if [ -z "$PERF" ] || [ ! -x "$PERF" ]; then
        PERF=
        PERF_NOTE="perf not found: perf columns skipped"
        return
    fi
    # shellcheck disable=SC2086
    if ! "$PERF" record -q $PERF_OPTS -e cpu-clock -o "$TMP/probe.data" true \
            >/dev/null 2>&1; then
        PERF=
        PERF_NOTE="perf record does not work here (perf_event_paranoid?): perf columns skipped"
    fi
    rm -f "$TMP/probe.data"
}

now() { date +%s.%N; }

# walltime CMD... : run CMD with stdout discarded and print its wall time (s).
walltime() {
    local s e
    s=$(now)
    "$@" >/dev/null
    e=$(now)
    awk -v s="$s" -v e="$e" 'BEGIN { printf "%.4f\n", e - s }'
}

# wall_cpu CMD... : "WALL CPU" seconds of CMD, its output discarded; CPU is
# user + system time of CMD and of all its threads and waited-for children.
wall_cpu() {
    local TIMEFORMAT='%R %U %S' t
    t=$({ time "$@" >/dev/null 2>&1; } 2>&1)
    awk -v t="$t" 'BEGIN { split(t, v, " "); printf "%.4f %.4f\n", v[1], v[2] + v[3] }'
}

# median VALUES... : the median of the numbers given.
# thread_counts FIRST: FIRST, twice that, ... below nproc, then nproc (at
# least FIRST): the thread counts a scaling benchmark runs at by default.
thread_counts() {
    local n t=$1 list=
    n=$(nproc)
    [ "$n" -lt "$1" ] && n=$1
    while [ "$t" -lt "$n" ]; do
        list+="$t "
        t=$((t * 2))
    done
    echo "$list$n"
}

median() {
    printf '%s\n' "$@" | sort -g | awk '
        { v[NR] = $1 }
        END {
            if (NR == 0) { print "nan"; exit }
            if (NR % 2) print v[(NR + 1) / 2]
            else print (v[NR / 2] + v[NR / 2 + 1]) / 2
        }'
}

# trace_bytes_per_sample DIR: trace bytes per traced sample over DIR's
# thread files (from `culprit dump`'s trace line), or "nan".
trace_bytes_per_sample() {
    local f
    for f in "$1"/*.thread; do
        [ -f "$f" ] && "$CULPRIT" dump "$f"
    done | awk '/^trace / {
        n += $2; for (i = 2; i <= NF; i++) if ($i == "bytes,") b += $(i - 1) }
        END { if (n) printf "%.2f\n", b / n; else print "nan" }'
}

# counter_sum DIR NAME : sum of counter NAME over all thread files in DIR.
counter_sum() {
    local f total=0 v
    for f in "$1"/*.thread; do
        [ -f "$f" ] || continue
        v=$("$CULPRIT" dump "$f" | awk -v k="$2" '
            $1 == "counters" {
                for (i = 2; i <= NF; i++) {
                    n = index($i, "=")
                    if (substr($i, 1, n - 1) == k) print substr($i, n + 1)
                }
            }')
        total=$((total + ${v:-0}))
    done
    echo "$total"
}

# perf_samples FILE : number of SAMPLE records in a perf.data file.
perf_samples() {
    "$PERF" report -i "$1" --stats 2>/dev/null |
        awk '$1 == "SAMPLE" && $2 == "events:" { print $3; exit }'
}

# calibrate PROG ARG1 : iterations for PROG ARG1 ITERS to run ~SECONDS_TARGET
# (median of three timed probes after a warm-up run).
calibrate() {
    local probe=200000000 t1 t2 t3 t
    "$1" "$2" "$probe" >/dev/null                 # warm up
    t1=$(walltime "$1" "$2" "$probe")
    t2=$(walltime "$1" "$2" "$probe")
    t3=$(walltime "$1" "$2" "$probe")
    t=$(median "$t1" "$t2" "$t3")
    awk -v p="$probe" -v t="$t" -v s="$SECONDS_TARGET" \
        'BEGIN { if (t < 0.001) t = 0.001; printf "%.0f\n", p * s / t }'
}

# show_raw LABEL VALUES... : print per-run values when BENCH_VERBOSE is set.
show_raw() {
    if [ -n "${BENCH_VERBOSE:-}" ]; then
        local label=$1
        shift
        printf '  raw %-28s %s\n' "$label" "$*"
    fi
}

# print_header TITLE WORK: the lines every benchmark report starts with.
print_header() {
    echo "$1"
    echo "  culprit:  $CULPRIT"
    echo "  machine:  $(nproc) CPUs, $(uname -r)"
    echo "  work:     $2"
    if [ -n "$PERF" ]; then
        echo "  perf:     $PERF record -q $PERF_OPTS -g -F $FREQ -e cpu-clock"
    else
        echo "  perf:     $PERF_NOTE"
    fi
}

# measure_startup: the fixed start-up and tear-down cost of each tool,
# from RUNS runs of it wrapping /bin/true.  Sets C_START and P_START
# (median seconds; P_START is nan without perf).
measure_startup() {
    local true_bin c_start=() p_start=()
    true_bin=$(command -v true)
    for _ in $(seq "$RUNS"); do
        rm -rf "$TMP/c.out"
        c_start+=("$(walltime "$CULPRIT" run -q -o "$TMP/c.out" -e "CPUTIME@f$FREQ" "$true_bin")")
        if [ -n "$PERF" ]; then
            # shellcheck disable=SC2086
            p_start+=("$(walltime "$PERF" record -q $PERF_OPTS -g -F "$FREQ" -e cpu-clock -o "$TMP/p.data" "$true_bin")")
        fi
    done
    rm -rf "$TMP/c.out" "$TMP/p.data"
    C_START=$(median "${c_start[@]}")
    P_START=nan
    if [ -n "$PERF" ]; then P_START=$(median "${p_start[@]}"); fi
}

# quietly CMD...: CMD with stderr discarded (walltime discards stdout).
quietly() { "$@" 2>/dev/null; }

# build_prof_work: compiles prof_work.c (beside this file) into $TMP and
# sets PROG.  -O1 keeps every call a real call; frame pointers for perf's -g.
build_prof_work() {
    # shellcheck disable=SC2086
    ${CC:-cc} -std=c11 -O1 -g -fno-omit-frame-pointer -Wall -Wextra -Werror ${CFLAGS:-} \
        -pthread -o "$TMP/prof_work" "$(dirname "${BASH_SOURCE[0]}")/prof_work.c"
    PROG=$TMP/prof_work
}

# count_contexts DB: rows in the contexts table, or "-".
count_contexts() {
    local sq=${SQLITE3:-$(command -v sqlite3 || true)}
    if [ -n "$sq" ]; then
        "$sq" "$1" 'select count(*) from contexts' 2>/dev/null || echo -
    elif command -v python3 >/dev/null 2>&1; then
        python3 -c 'import sqlite3, sys
print(sqlite3.connect(sys.argv[1]).execute("select count(*) from contexts").fetchone()[0])' \
            "$1" 2>/dev/null || echo -
    else
        echo -
    fi
}

# setup_tmux: a tmux server of the benchmark's own (TM, so nothing of the
# user's is touched) and a scratch directory (TMP), both gone at exit.
setup_tmux() {
    command -v tmux > /dev/null || { echo "$0: tmux is needed" >&2; exit 1; }
    TMP=$(mktemp -d "${TMPDIR:-/tmp}/culprit-bench.XXXXXX")
    TM="tmux -L culprit-bench-$$ -f /dev/null"
    trap '$TM kill-server 2> /dev/null; rm -rf "$TMP"' EXIT
    unset TMUX
}
