#!/bin/bash
# bench/export_large.sh - how long `culprit export` takes, and how much
# memory it holds, on a generated database of about a million contexts
# (bench/gen_db.sh), in each format.  Prints medians; this is not a
# pass/fail test.  The README's "Exports: memory and time on a large tree"
# table comes from it.
#
# Environment:
#   CULPRIT_BUILD   build tree holding `culprit` (default: found by walking up)
#   BENCH_CONTEXTS  contexts in the generated database (default 1000000)
#   BENCH_FORMATS   formats exported (default "folded speedscope pprof")
#   BENCH_RUNS      timed runs per format, median taken (default 5)
#   BENCH_DB        keep the generated database here (made only when missing),
#                   so that another build can be timed on the same one
set -eu

here=$(cd "$(dirname "$0")" && pwd -P)
# shellcheck source=SCRIPTDIR/common.sh
. "$here/common.sh"

N=${BENCH_CONTEXTS:-1000000}
FORMATS=${BENCH_FORMATS:-folded speedscope pprof}
RUNS=${BENCH_RUNS:-5}
setup_build
TMP=$(mktemp -d "${TMPDIR:-/tmp}/culprit-bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
DB=${BENCH_DB:-$TMP/big.db}

if [ ! -s "$DB" ]; then
    # A real database for the schema: a short run of the bundled example.
    "$CULPRIT" run -q -o "$TMP/small" "$BUILD/examples/mandel" 2 300 100 > /dev/null
    "$CULPRIT" prof -q "$TMP/small"
    "$here/gen_db.sh" "$TMP/small.db" "$DB" "$N"
fi

# rss_wall CMD...: "PEAK_KB WALL_S" of CMD, its output discarded.
rss_wall() {
    local s e kb
    s=$(now)
    kb=$(/usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -n 1)
    e=$(now)
    awk -v s="$s" -v e="$e" -v kb="$kb" 'BEGIN { printf "%d %.4f\n", kb, e - s }'
}

echo "culprit export on a generated tree"
echo "  culprit:  $CULPRIT"
echo "  machine:  $(nproc) CPUs, $(uname -r)"
echo "  work:     $(sqlite3 "$DB" 'SELECT count(*) FROM contexts') contexts," \
    "$(($(stat -c %s "$DB") / 1048576)) MiB; $RUNS timed runs per format, median"
printf '\n%-12s %10s %10s %10s\n' format "time s" "peak MB" "output MB"
for f in $FORMATS; do
    times=() peaks=()
    for _ in $(seq "$RUNS"); do
        read -r kb t < <(rss_wall "$CULPRIT" export --format="$f" --force -o "$TMP/out" "$DB")
        times+=("$t")
        peaks+=("$kb")
    done
    awk -v f="$f" -v t="$(median "${times[@]}")" -v kb="$(median "${peaks[@]}")" \
        -v o="$(stat -c %s "$TMP/out")" \
        'BEGIN { printf "%-12s %10.3f %10.0f %10.1f\n", f, t, kb / 1000, o / 1e6 }'
done
