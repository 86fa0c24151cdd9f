#!/usr/bin/env bash
# bench/view_timeline.sh - how long culprit view's timeline takes on a
# long, wide trace: tests/programs/phases on BENCH_THREADS threads (default
# 16) for about BENCH_SECONDS (default 60), sampled with REALTIME at 1 kHz
# so that every thread has a sample each millisecond, idle or not.  The
# viewer runs in a tmux pane (80x24, then 200x60) and is sent the keys a
# person would press (open the pane, move the selection, the cursor, zoom,
# a range and back); `culprit view --timing` prints how long reading the
# trace took, and the slowest key, drawing included, apart from that.
#
# usage: CULPRIT_BUILD=build bench/view_timeline.sh   (about 1.5 min)
set -eu

here=$(cd "$(dirname "$0")" && pwd -P)
. "$here/common.sh"

THREADS=${BENCH_THREADS:-16}
SECONDS_TARGET=${BENCH_SECONDS:-60}
setup_build
setup_tmux

[ -x "$BUILD/tests/programs/phases" ] || { echo "$0: $BUILD/tests/programs/phases is not built" \
    "(make check builds it)" >&2; exit 1; }
# A third serial, a half parallel, a sixth imbalanced, in milliseconds.
ms=$((SECONDS_TARGET * 1000))
"$CULPRIT" run -q -e REALTIME@f1000 -o "$TMP/m" "$BUILD/tests/programs/phases" "$THREADS" \
    $((ms / 3)) $((ms / 2)) $((ms / 6)) > /dev/null
"$CULPRIT" prof -q "$TMP/m"

echo "culprit view: the timeline on a long trace"
echo "  culprit:  $CULPRIT"
echo "  machine:  $(nproc) CPUs, $(uname -r)"
echo "  trace:    phases, $THREADS threads, ${SECONDS_TARGET} s at REALTIME 1 kHz"
echo
printf '%10s %10s %16s %16s\n' pane samples read_trace_ms slowest_key_ms
for size in 80x24 200x60; do
    rm -f "$TMP/timing"
    $TM new-session -d -s v -x "${size%x*}" -y "${size#*x}" \
        "TERM=screen '$CULPRIT' view --timing '$TMP/m.db' 2> '$TMP/timing'"
    for _ in $(seq 100); do
        $TM capture-pane -t v -p 2> /dev/null | grep -q 'program root' && break
        sleep 0.05
    done
    for k in t j j j k . . . . z z z , , Z Z p p '[' . . . . . ']' j k x; do
        $TM send-keys -t v "$k"
        sleep 0.2
    done
    $TM send-keys -t v q
    for _ in $(seq 100); do
        grep -q 'read the trace' "$TMP/timing" 2> /dev/null && break
        sleep 0.05
    done
    awk -v size="$size" '
        /read the trace/ { n = $6; r = $(NF - 1) }
        /slowest key/ { k = $5 }
        END { printf "%10s %10s %16s %16s\n", size, n, r, k }' "$TMP/timing"
done
echo
echo "read_trace_ms: the first t, reading the trace into memory; slowest_key_ms:"
echo "every other key, its drawing included (the selection, cursor, zoom, range)."
