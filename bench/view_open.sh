#!/bin/bash
# bench/view_open.sh - how long `culprit view` takes to show its first
# screen on generated databases of 10 thousand to 1 million contexts
# (bench/gen_db.sh).  The viewer runs in a tmux pane of 100x30 and reports
# the time from its start to its first screen drawn (--timing).  Prints
# numbers; this is not a pass/fail test.
#
# Environment:
#   CULPRIT_BUILD   build tree holding `culprit` (default: found by walking up)
#   BENCH_SIZES     numbers of contexts (default "10000 100000 1000000")
#   BENCH_RUNS      runs per size, median taken (default 5)
set -eu

here=$(cd "$(dirname "$0")" && pwd -P)
# shellcheck source=SCRIPTDIR/common.sh
. "$here/common.sh"

SIZES=${BENCH_SIZES:-10000 100000 1000000}
RUNS=${BENCH_RUNS:-5}
setup_build
setup_tmux

# A real database for the schema: a short run of the bundled example.
"$CULPRIT" run -q -o "$TMP/small" "$BUILD/examples/mandel" 2 300 100 > /dev/null
"$CULPRIT" prof -q "$TMP/small"

echo "culprit view: time to the first screen"
echo "  culprit:  $CULPRIT"
echo "  machine:  $(nproc) CPUs, $(uname -r)"
echo "  runs:     $RUNS per size, median; a 100x30 tmux pane"
echo
printf '%12s %12s %12s %14s\n' contexts db_MiB gen_s first_screen_ms
for n in $SIZES; do
    s=$(date +%s.%N)
    "$here/gen_db.sh" "$TMP/small.db" "$TMP/big.db" "$n"
    e=$(date +%s.%N)
    times=()
    for _ in $(seq "$RUNS"); do
        rm -f "$TMP/timing"
        $TM new-session -d -s v -x 100 -y 30 \
            "TERM=screen '$CULPRIT' view --timing '$TMP/big.db' 2> '$TMP/timing'"
        for _ in $(seq 100); do
            $TM capture-pane -t v -p 2> /dev/null | grep -q 'program root' && break
            sleep 0.05
        done
        $TM send-keys -t v q
        for _ in $(seq 100); do
            [ -s "$TMP/timing" ] && break
            sleep 0.05
        done
        times+=("$(sed -n 's/.*first screen in \([0-9.]*\) ms.*/\1/p' "$TMP/timing")")
    done
    awk -v n="$n" -v mib="$(du -m "$TMP/big.db" | cut -f1)" -v g="$(awk -v s="$s" -v e="$e" 'BEGIN { print e - s }')" \
        -v t="$(median "${times[@]}")" 'BEGIN { printf "%12d %12d %12.1f %14.1f\n", n, mib, g, t }'
done
echo
echo "first_screen_ms: from the viewer's start to its first screen drawn, as the viewer"
echo "measures it (culprit view --timing); gen_s: making the database (not the viewer)."
