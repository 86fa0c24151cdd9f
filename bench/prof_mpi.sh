#!/bin/bash
# bench/prof_mpi.sh - `culprit prof --mpi` against serial `culprit prof` on
# one measurement of an MPI run: its time at 1, 2, 4 ... ranks, where it
# goes on rank 0 (reading and naming, merging its own share, the
# reduction, writing), and whether each database is serial prof's
# (tests/same_db.py).  Prints numbers; this is not a pass/fail test.
#
# The measurement is bench/prof_work.c (random descents through eight
# mutually recursive functions: a large tree) under
# `mpirun -np PROCS culprit run`, 2 threads a process at 4 kHz.
#
# Environment: CULPRIT_BUILD, CC, BENCH_RUNS (timed runs, median; default
# 3), BENCH_PROCS (MPI processes measured, default 4), BENCH_UNITS (work
# per thread, default 2000000000: about 1 s), BENCH_RANKS (default "1 2 4"),
# BENCH_PROG (prof_work already built, where there is no compiler).
#
# The ranks run --bind-to none: Open MPI binds each rank to one core by
# default, and a rank works with threads (-j: its node's cores shared by
# its ranks); bound, one rank's writing took 1.8 s against serial prof's
# 1.3 s on the same input.
set -eu

here=$(cd "$(dirname "$0")" && pwd -P)
# shellcheck source=SCRIPTDIR/common.sh
. "$here/common.sh"

RUNS=${BENCH_RUNS:-3}
PROCS=${BENCH_PROCS:-4}
UNITS=${BENCH_UNITS:-2000000000}
RANKS=${BENCH_RANKS:-1 2 4}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1

setup_build
if [ ! -x "$BUILD/postmortem/culprit-prof-mpi" ]; then
    echo "$0: $BUILD has no culprit-prof-mpi (configure --with-mpi)" >&2
    exit 1
fi
command -v mpirun >/dev/null || { echo "$0: no mpirun" >&2; exit 1; }
TMP=$(mktemp -d "${TMPDIR:-/tmp}/culprit-bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
if [ -n "${BENCH_PROG:-}" ]; then PROG=$BENCH_PROG; else build_prof_work; fi

mpirun -np "$PROCS" "$CULPRIT" run -q -e CPUTIME@f4000 -o "$TMP/m" "$PROG" 2 "$UNITS" >/dev/null
"$CULPRIT" prof -q -o "$TMP/serial.db" "$TMP/m" 2>/dev/null
contexts=$(count_contexts "$TMP/serial.db")
echo "measurement: $PROCS MPI processes, $(du -sh "$TMP/m" | cut -f1), $contexts contexts"
echo "machine: $(nproc) cores; medians of $RUNS runs"

# seconds PROGRESS_FILE PATTERN: the forced progress clock at PATTERN's
# first line, or at the summary line for "wrote".
seconds_at() {
    awk -v p="$2" '$0 ~ p { print $2; exit }' "$1"
}

exec 3>&2 2>/dev/null	# the measurement's own warnings, once per prof
serial=() name=() own=() wr=()
for _ in $(seq "$RUNS"); do
    t0=$(now)
    CULPRIT_PROGRESS=1 "$CULPRIT" prof --force -o "$TMP/serial.db" "$TMP/m" 2> "$TMP/progress"
    t1=$(now)
    serial+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", b - a }')")
    m0=$(seconds_at "$TMP/progress" "merging: thread")
    w0=$(seconds_at "$TMP/progress" " writing: ")
    w1=$(seconds_at "$TMP/progress" "writing: committing")
    name+=("$m0")
    own+=("$(awk -v a="$m0" -v b="$w0" 'BEGIN { print b - a }')")
    wr+=("$(awk -v a="$w0" -v b="$w1" 'BEGIN { print b - a }')")
done
s=$(median "${serial[@]}")
echo
echo "| ranks | prof (wall) | speed-up | read + name | merge own share | reduction | write | same database |"
echo "|---|---|---|---|---|---|---|---|"
printf '| serial prof | %s s | 1.00 | %.2f s | %.2f s | | %.2f s | |\n' "$s" "$(median "${name[@]}")" \
    "$(median "${own[@]}")" "$(median "${wr[@]}")"
for k in $RANKS; do
    wall=() name=() own=() red=() wr=()
    for _ in $(seq "$RUNS"); do
        t0=$(now)
        CULPRIT_PROGRESS=1 mpirun --bind-to none -np "$k" "$CULPRIT" prof --mpi --force -o "$TMP/mpi.db" "$TMP/m" \
            > /dev/null 2> "$TMP/progress"
        t1=$(now)
        wall+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", b - a }')")
        m0=$(seconds_at "$TMP/progress" "merging: thread")
        m1=$(seconds_at "$TMP/progress" "merging shares")
        w0=$(seconds_at "$TMP/progress" " writing: ")
        w1=$(seconds_at "$TMP/progress" "writing: committing")
        name+=("$m0")
        own+=("$(awk -v a="$m0" -v b="${m1:-$w0}" 'BEGIN { print b - a }')")
        red+=("$(awk -v a="${m1:-$w0}" -v b="$w0" 'BEGIN { print b - a }')")
        wr+=("$(awk -v a="$w0" -v b="$w1" 'BEGIN { print b - a }')")
    done
    same=$(python3 "$here/../tests/same_db.py" "$TMP/serial.db" "$TMP/mpi.db" | head -n 1)
    w=$(median "${wall[@]}")
    printf '| %s | %s s | %.2f | %.2f s | %.2f s | %.2f s | %.2f s | %s |\n' "$k" "$w" \
        "$(awk -v a="$s" -v b="$w" 'BEGIN { print a / b }')" "$(median "${name[@]}")" \
        "$(median "${own[@]}")" "$(median "${red[@]}")" "$(median "${wr[@]}")" "${same#\# }"
done
exec 2>&3
echo
echo "wall: the command's, mpirun's start included; the phases are rank 0's clock (CULPRIT_PROGRESS);"
echo "write: from the first table to the commit."
