#!/bin/bash
# bench/schema_queries.sh - the documented interface against the storage
# it reads: the same questions asked of the documented views (contexts,
# context_metrics) and of the stored_* tables culprit's own readers use,
# on a generated database of a million contexts (bench/gen_db.sh).  Prints
# each query's median time and the ratio documented / storage; this is not
# a pass/fail test.
#
# Environment:
#   CULPRIT_BUILD   build tree holding `culprit` (default: found by walking up)
#   BENCH_CONTEXTS  contexts in the generated database (default 1000000)
#   BENCH_RUNS      runs per query, interleaved, median taken (default 5)
set -eu

here=$(cd "$(dirname "$0")" && pwd -P)
# shellcheck source=SCRIPTDIR/common.sh
. "$here/common.sh"

N=${BENCH_CONTEXTS:-1000000}
RUNS=${BENCH_RUNS:-5}
setup_build
command -v sqlite3 > /dev/null || { echo "schema_queries: needs the sqlite3 program" >&2; exit 1; }
TMP=$(mktemp -d "${TMPDIR:-/tmp}/culprit-bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

"$CULPRIT" run -q -o "$TMP/small" "$BUILD/examples/mandel" 2 300 100 > /dev/null
"$CULPRIT" prof -q "$TMP/small"
"$here/gen_db.sh" "$TMP/small.db" "$TMP/big.db" "$N"
DB=$TMP/big.db

work="(SELECT id FROM metrics WHERE event = 'cputime' AND metric = 'work')"
idle="(SELECT id FROM metrics WHERE event = 'cputime' AND metric = 'idleness')"
# name|documented query|storage query: the same rows.
QUERIES=(
"one context's work|SELECT inclusive, exclusive FROM context_metrics WHERE context_id = 30 AND event = 'cputime' AND metric = 'work'|SELECT inclusive, exclusive FROM stored_values WHERE context_id = 30 AND metric_id = $work"
"children, work|SELECT c.id, c.procedure, m.inclusive FROM contexts c JOIN context_metrics m ON m.context_id = c.id WHERE c.parent_id = 2 AND m.event = 'cputime' AND m.metric = 'work'|SELECT c.id, n.name, v.inclusive FROM stored_contexts c JOIN stored_values v ON v.context_id = c.id AND v.metric_id = $work LEFT JOIN stored_names n ON n.id = c.procedure_id WHERE c.parent_id = 2"
"children, effort (computed)|SELECT c.id, c.procedure, m.inclusive FROM contexts c JOIN context_metrics m ON m.context_id = c.id WHERE c.parent_id = 2 AND m.event = 'cputime' AND m.metric = 'effort'|SELECT c.id, n.name, sum(v.inclusive) FROM stored_contexts c JOIN stored_values v ON v.context_id = c.id AND v.metric_id IN ($work, $idle) LEFT JOIN stored_names n ON n.id = c.procedure_id WHERE c.parent_id = 2 GROUP BY c.id"
"top 10 contexts by effort|SELECT context_id, inclusive FROM context_metrics WHERE event = 'cputime' AND metric = 'effort' ORDER BY exclusive DESC LIMIT 10|SELECT context_id, sum(inclusive) FROM stored_values WHERE metric_id IN ($work, $idle) GROUP BY context_id ORDER BY sum(exclusive) DESC LIMIT 10"
"procedures by own work|SELECT c.procedure, sum(m.exclusive) AS e FROM contexts c JOIN context_metrics m ON m.context_id = c.id WHERE m.event = 'cputime' AND m.metric = 'work' GROUP BY c.procedure ORDER BY e DESC LIMIT 10|SELECT n.name, sum(v.exclusive) AS e FROM stored_values v JOIN stored_contexts c ON c.id = v.context_id JOIN stored_names n ON n.id = c.procedure_id WHERE v.metric_id = $work GROUP BY n.name ORDER BY e DESC LIMIT 10"
)

# The seconds one query takes (its rows read and dropped).
seconds() {
    local s e
    s=$(date +%s.%N)
    sqlite3 -batch "$DB" "$1" > /dev/null
    e=$(date +%s.%N)
    awk -v s="$s" -v e="$e" 'BEGIN { printf "%.4f", e - s }'
}

echo "the documented views against the storage, $N contexts ($(du -m "$DB" | cut -f1) MiB)"
echo "  culprit:  $CULPRIT"
echo "  sqlite3:  $(sqlite3 --version | cut -d' ' -f1)"
echo "  machine:  $(nproc) CPUs, $(uname -r)"
echo "  runs:     $RUNS per query, interleaved, median; the database in the page cache"
echo
printf '%-28s %14s %12s %8s\n' query documented_s storage_s ratio
for q in "${QUERIES[@]}"; do
    IFS='|' read -r name doc store <<< "$q"
    sqlite3 -batch "$DB" "$doc" > /dev/null	# warm the cache
    d=() s=()
    for _ in $(seq "$RUNS"); do
        d+=("$(seconds "$doc")")
        s+=("$(seconds "$store")")
    done
    md=$(median "${d[@]}") ms=$(median "${s[@]}")
    awk -v n="$name" -v d="$md" -v s="$ms" \
        'BEGIN { printf "%-28s %14.4f %12.4f %8.2f\n", n, d, s, (s > 0 ? d / s : 0) }'
done
echo
echo "Each time includes starting sqlite3 (about 2 ms). A LEFT JOIN of context_metrics"
echo "is not among them: SQLite cannot flatten a join view on that side and reads every"
echo "value (doc/schema.md says to join it)."
