#!/bin/bash
# bench/python_cost.sh - what CPython frames cost per sample
# (unwind-plugins/python): a Python recursion D frames deep
# (tests/programs/py_recurse.py), its leaf busy for BENCH_SECONDS, run
# plain, under culprit with the plugin, and under culprit with it off
# (CULPRIT_PYTHON=0, the native frames only).  Prints, per depth, the
# handler's time per sample (collector:handler_ns / signals) with and
# without the plugin, the difference per sample, and how much slower the
# program worked under each (its rounds of work in the same time, against
# a plain run's).  Numbers, not a pass/fail test.
#
# Environment:
#   CULPRIT_BUILD   build tree holding `culprit` (default: found by walking up)
#   PYTHON          the interpreter (default /usr/bin/python3, a CPython 3.11)
#   BENCH_RUNS      runs per configuration, interleaved, median (default 3)
#   BENCH_SECONDS   the leaf's busy time per run (default 2)
#   BENCH_FREQ      samples per second (default 1000)
#   BENCH_DEPTHS    Python recursion depths (default "10 100 500")
set -eu

here=$(cd "$(dirname "$0")" && pwd -P)
# shellcheck source=SCRIPTDIR/common.sh
. "$here/common.sh"

RUNS=${BENCH_RUNS:-3}
SECS=${BENCH_SECONDS:-2}
FREQ=${BENCH_FREQ:-1000}
DEPTHS=${BENCH_DEPTHS:-10 100 500}
PY=${PYTHON:-/usr/bin/python3}
SCRIPT=$here/../tests/programs/py_recurse.py

setup_build
TMP=$(mktemp -d "${TMPDIR:-/tmp}/culprit-bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
"$PY" -c 'import sys; assert sys.version_info[:2] == (3, 11)' 2>/dev/null || {
    echo "$0: $PY is not CPython 3.11, the version the plugin reads (set PYTHON)" >&2
    exit 1
}

echo "culprit: CPython frames per sample, $($PY -V 2>&1) ($PY)"
echo "  machine:  $(nproc) CPUs, $(uname -r)"
echo "  work:     py_recurse.py, leaf busy ${SECS}s under D Python frames, CPUTIME@f$FREQ;"
echo "            $RUNS runs per configuration, interleaved, median"
echo

# handler_ns DIR: handler time per signal, in ns.
per_sample() {
    local h s
    h=$(counter_sum "$1" collector:handler_ns)
    s=$(counter_sum "$1" signals)
    awk -v h="$h" -v s="$s" 'BEGIN { if (s) printf "%.0f\n", h / s; else print "nan" }'
}

# rounds CMD...: the rounds of work the script reports.
rounds() {
    "$@" 2>/dev/null | awk '$1 == "rounds" { print $2 }'
}

printf '%6s %12s %9s %9s %9s %9s %10s\n' depth plain_rounds on_slow off_slow on_ns off_ns plugin_ns
for d in $DEPTHS; do
    plain=() on=() off=() on_ns=() off_ns=()
    for r in $(seq "$RUNS"); do
        plain+=("$(rounds "$PY" "$SCRIPT" "$SECS" "$d")")
        rm -rf "$TMP/on" "$TMP/off"
        on+=("$(rounds "$CULPRIT" run -q -e "CPUTIME@f$FREQ" -o "$TMP/on" "$PY" "$SCRIPT" "$SECS" "$d")")
        on_ns+=("$(per_sample "$TMP/on")")
        off+=("$(CULPRIT_PYTHON=0 rounds "$CULPRIT" run -q -e "CPUTIME@f$FREQ" -o "$TMP/off" "$PY" "$SCRIPT" "$SECS" "$d")")
        off_ns+=("$(per_sample "$TMP/off")")
    done
    p=$(median "${plain[@]}")
    a=$(median "${on_ns[@]}")
    b=$(median "${off_ns[@]}")
    printf '%6s %12s %9.3f %9.3f %9s %9s %10s\n' "$d" "$p" \
        "$(awk -v x="$(median "${on[@]}")" -v p="$p" 'BEGIN { print p / x }')" \
        "$(awk -v x="$(median "${off[@]}")" -v p="$p" 'BEGIN { print p / x }')" \
        "$a" "$b" "$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.0f", a - b }')"
done
echo
echo "plain_rounds: the leaf's rounds of work in ${SECS}s without culprit; on_slow,"
echo "off_slow: plain rounds over rounds under culprit, with the plugin and with"
echo "CULPRIT_PYTHON=0 (1.010: 1% slower); on_ns, off_ns: the sample handler's time"
echo "per sample (collector:handler_ns / signals); plugin_ns = on_ns - off_ns:"
echo "reading the Python frames and placing them in the path."
