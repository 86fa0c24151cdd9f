# lib.sh - shared helper of the tests/run-*.sh scripts (sourced).
#
# Each test script runs programs under culprit and checks what the
# measurement files say.  Results are reported in TAP, one line per check,
# so that `make check` counts checks rather than scripts.  A script that
# lacks a prerequisite calls skip_all.
#
# Set by make check (see Makefile.am): CULPRIT (the driver), PROGRAMS (the
# built test programs), and CULPRIT_PRELOAD (the collector).

set -u
: "${CULPRIT:?run the tests through make check}"
: "${PROGRAMS:?run the tests through make check}"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/culprit-test.XXXXXX")
# CULPRIT_TEST_KEEP=1 keeps each test's work directory, to look into.
if [ "${CULPRIT_TEST_KEEP:-0}" = 1 ]; then
	echo "# work directory: $WORK"
else
	trap 'rm -rf "$WORK"' EXIT
fi
cd "$WORK" || exit 99

tap_n=0
tap_failed=0

# configure --enable-valgrind: culprit prof, report, dump and view run
# under memcheck (CULPRIT_VALGRIND is its command line), each with a log in
# $WORK/.valgrind; done_testing fails the script when a log reports an
# error.  CULPRIT_VALGRIND_RUN=1 puts `culprit run` and so the collector
# (--trace-children) under memcheck too: memcheck runs the program so slowly,
# and its threads one at a time, that sample counts and rates are off; that
# is for reading the logs, not for passing the suite.
# CULPRIT_BIN is always the binary itself, for loops of hundreds of runs.
CULPRIT_BIN=$CULPRIT
if [ -n "${CULPRIT_VALGRIND:-}" ]; then
	mkdir "$WORK/.valgrind"
	cat > "$WORK/.valgrind/culprit" << EOF
#!/bin/sh
case \${1:-} in
prof | report | dump | view)
	exec $CULPRIT_VALGRIND --log-file='$WORK/.valgrind/%p.log' '$CULPRIT' "\$@" ;;
run)
	[ -z "\${CULPRIT_VALGRIND_RUN:-}" ] ||
		exec $CULPRIT_VALGRIND --trace-children=yes --log-file='$WORK/.valgrind/%p.log' \
			'$CULPRIT' "\$@" ;;
esac
exec '$CULPRIT' "\$@"
EOF
	chmod +x "$WORK/.valgrind/culprit"
	CULPRIT=$WORK/.valgrind/culprit
fi

ok() {
	tap_n=$((tap_n + 1))
	echo "ok $tap_n - $*"
}

not_ok() {
	tap_n=$((tap_n + 1))
	tap_failed=$((tap_failed + 1))
	echo "not ok $tap_n - $*"
}

# have TOOL...: every TOOL is a command here.
have() {
	for _t in "$@"; do command -v "$_t" > /dev/null || return 1; done
}

# skip DESCRIPTION REASON: a check that cannot run here (a missing tool).
skip() {
	tap_n=$((tap_n + 1))
	echo "ok $tap_n - $1 # SKIP $2"
}

# check DESCRIPTION COMMAND...: one check that COMMAND succeeds.
check() {
	local desc=$1
	shift
	if "$@"; then ok "$desc"; else not_ok "$desc"; fi
}

# note TEXT: a comment in the TAP stream (shown in the test's log).
note() {
	echo "# $*"
}

skip_all() {
	echo "1..0 # SKIP $*"
	exit 0
}

# valgrind_verdict: with --enable-valgrind, one check that memcheck found
# nothing in this script's runs of the tools, with the logs that say what.
valgrind_verdict() {
	local n bad
	n=$(find "$WORK/.valgrind" -name '*.log' | wc -l)
	if [ "$n" = 0 ]; then
		skip "valgrind: no errors in culprit's tools" "this script ran none of them"
		return
	fi
	bad=$(find "$WORK/.valgrind" -name '*.log' -size +0 | sort)
	check "valgrind: no errors in $n runs of culprit's tools under memcheck" [ -z "$bad" ]
	for f in $bad; do
		head -n 60 "$f" | sed 's/^/# /'
	done
}

done_testing() {
	[ -z "${CULPRIT_VALGRIND:-}" ] || valgrind_verdict
	echo "1..$tap_n"
	exit 0
}

# profile DIR PROGRAM ARGS...: runs under culprit; returns the program's status.
profile() {
	local dir=$1
	shift
	"$CULPRIT" run -q -o "$dir" "$@"
}

# profile_e DIR EVENT PROGRAM ARGS...: the same with one chosen event.
profile_e() {
	local dir=$1 ev=$2
	shift 2
	"$CULPRIT" run -q -e "$ev" -o "$dir" "$@"
}

# The one file matching a glob, or nothing.
one_file() {
	local f
	for f in "$@"; do [ -e "$f" ] && echo "$f"; done | head -n 1
}

# tsv FILE: `culprit dump --tsv FILE`, or nothing and a failure when the
# file cannot be read, so that the helpers below print nothing (which no
# comparison accepts) rather than a count of 0.
tsv() {
	_tsv=$("$CULPRIT" dump --tsv "$1" 2> /dev/null) || return 1
	printf '%s\n' "$_tsv"
}

# counter FILE NAME: a counter of a thread file (nothing when it has none).
counter() {
	"$CULPRIT" dump "$1" | awk -v n="$2" '
		/^counters/ { for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == n) print kv[2] } }'
}

# column FILE NAME: the --tsv column of metric NAME ("realtime:work").
column() {
	tsv "$1" | awk -F'\t' -v n="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == n) print i; exit }'
}

# exclusive FILE FUNCTION [COLUMN]: exclusive samples (or COLUMN, default
# the first event's samples) at frames of FUNCTION; nothing when FILE
# cannot be read.
exclusive() {
	_t=$(tsv "$1") || return 1
	printf '%s\n' "$_t" | awk -F'\t' -v fn="$2" -v col="${3:-10}" '
		NR > 1 && $8 == fn { s += $col } END { printf "%.0f\n", s }'
}

# inclusive FILE FUNCTION [COLUMN]: samples at FUNCTION or anything it
# called, each sample counted once however often FUNCTION recurs.
inclusive() {
	_t=$(tsv "$1") || return 1
	printf '%s\n' "$_t" | awk -F'\t' -v fn="$2" -v col="${3:-10}" '
		NR > 1 { under[$1] = ($2 >= 0 && under[$2]) || $8 == fn; if (under[$1]) s += $col }
		END { printf "%.0f\n", s }'
}

# total FILE [COLUMN]: all samples in a thread file.
total() {
	_t=$(tsv "$1") || return 1
	printf '%s\n' "$_t" | awk -F'\t' -v col="${2:-10}" 'NR > 1 { s += $col } END { printf "%.0f\n", s }'
}

# The comparisons and ratios below fail when an argument is not a number
# (an empty measurement, a failed query, a file that was not written) and
# say so on stderr, so that nothing measured never passes a check.  A ratio
# or percentage of a zero or missing whole is not a number either.
NUM_AWK='
function num(x) { return x ~ /^[-+]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][-+]?[0-9]+)?$/ }
function need(f, x) { if (!num(x)) { printf "# %s: \"%s\" is not a number\n", f, x > "/dev/stderr"; exit 1 } }
function need_whole(f, x) { need(f, x); if (x + 0 <= 0) { printf "# %s: the whole is %s\n", f, x > "/dev/stderr"; exit 1 } }'

# near A B TOLERANCE: |A - B| <= TOLERANCE (decimals allowed).
near() {
	awk -v a="$1" -v b="$2" -v t="$3" "$NUM_AWK"'
	BEGIN { need("near", a); need("near", b); need("near", t)
		d = a - b; if (d < 0) d = -d; exit !(d <= t) }'
}

# within A B SHARE FLOOR: A is B to within SHARE of B, or FLOOR.
within() {
	awk -v a="$1" -v b="$2" -v s="$3" -v f="$4" "$NUM_AWK"'
	BEGIN { need("within", a); need("within", b); need("within", s); need("within", f)
		d = a - b; if (d < 0) d = -d; t = s * (b < 0 ? -b : b); exit !(d <= t || d <= f) }'
}

# at_least A B: A >= B (decimals allowed).
at_least() {
	awk -v a="$1" -v b="$2" "$NUM_AWK"'
	BEGIN { need("at_least", a); need("at_least", b); exit !(a >= b) }'
}

# below A B: A < B (decimals allowed).
below() {
	awk -v a="$1" -v b="$2" "$NUM_AWK"'
	BEGIN { need("below", a); need("below", b); exit !(a < b) }'
}

# ratio A B: A / B to three decimals; nothing, and a failure, when B is
# not a positive number.
ratio() {
	awk -v a="$1" -v b="$2" "$NUM_AWK"'
	BEGIN { need("ratio", a); need_whole("ratio", b); printf "%.3f\n", a / b }'
}

# expect STATUS PATTERN DESC COMMAND...: a refused request: COMMAND exits
# with STATUS, writes one line to stderr that matches PATTERN, and nothing
# to stdout.
expect() {
	local want=$1 pat=$2 desc=$3
	shift 3
	"$@" > out.txt 2> err.txt
	local got=$?
	check "$desc: exit status $want" [ "$got" = "$want" ]
	check "$desc: one line on stderr" [ "$(wc -l < err.txt)" = 1 ]
	check "$desc: the message says '$pat'" grep -q "$pat" err.txt
	check "$desc: nothing on stdout" [ ! -s out.txt ]
	note "$(cat err.txt)"
}

# nearly_all PART WHOLE: PART is WHOLE but for a stray sample or two (in
# the dynamic loader before main, say, or in exit handlers after it); WHOLE
# is not 0.
nearly_all() {
	awk -v p="$1" -v w="$2" "$NUM_AWK"'
	BEGIN { need("nearly_all", p); need_whole("nearly_all", w)
		slack = w / 100; if (slack < 3) slack = 3
		# PART and WHOLE are sums of the same doubles in different
		# orders: the last bits may differ either way.
		exit !(p <= w + 1e-9 * w && p >= w - slack) }'
}

# percent PART WHOLE: PART as a percentage of WHOLE, one decimal; nothing,
# and a failure, when WHOLE is not a positive number.
percent() {
	awk -v p="$1" -v w="$2" "$NUM_AWK"'
	BEGIN { need("percent", p); need_whole("percent", w); printf "%.1f\n", 100 * p / w }'
}

# leaf_share OUTPUT LEAF cpu|wall: the share of the leaves program's time
# that LEAF took, as the program measured it on its own clocks and printed
# ("leaf_two cpu 28.57% wall 28.60%"); nothing if it printed none.
leaf_share() {
	awk -v fn="$2" -v clock="$3" '
		$1 == fn { for (i = 2; i < NF; i++) if ($i == clock) { sub("%", "", $(i + 1)); print $(i + 1) } }' "$1"
}

# has_not FILE WANT UNWANTED: FILE has a line matching WANT (so that it is
# the output meant, not an empty or failed one) and none matching UNWANTED
# (grep -E patterns).
has_not() {
	grep -Eq -- "$2" "$1" && ! grep -Eq -- "$3" "$1"
}

# fits FILE COLUMNS WANT: FILE has a line matching WANT and no line is
# longer than COLUMNS characters.
fits() {
	grep -Eq -- "$3" "$1" && ! awk -v n="$2" 'length > n' "$1" | grep -q .
}

# thread_file DIR NAME: the thread file of the thread named NAME.
thread_file() {
	local f
	for f in "$1"/*.thread; do
		if "$CULPRIT" dump "$f" | grep -q "name \"$2\""; then echo "$f"; return; fi
	done
}

# process_field FILE REGEX: the first line of the process dump matching REGEX.
process_line() {
	"$CULPRIT" dump "$1" | grep -E "$2" | head -n 1
}

# prof DIR: makes DIR.db quietly; returns culprit prof's status.
prof() {
	"$CULPRIT" prof -q "$@"
}

# sql DB QUERY: one query's output, values separated by '|'.
sql() {
	sqlite3 -batch "$1" "$2"
}

# derived_wrong DB VIEW: rows of VIEW (context_metrics or
# context_thread_metrics) where effort is not work + idleness, or
# useful_work not work - overhead (rows present where they should not be,
# or missing, count too).  The views compute both from stored values
# since schema 9; this holds them to the metrics' definitions.
derived_wrong() {
	_k="o.context_id = x.context_id AND o.event = x.event"
	[ "$2" = context_thread_metrics ] && _k="$_k AND o.thread_id = x.thread_id"
	sql "$1" "WITH w AS (SELECT * FROM $2 WHERE metric = 'work'),
	  v AS (SELECT o.*,
	    o.inclusive + coalesce((SELECT x.inclusive FROM $2 x WHERE $_k AND x.metric = 'idleness'), 0) AS ei,
	    o.inclusive - coalesce((SELECT x.inclusive FROM $2 x WHERE $_k AND x.metric = 'overhead'), 0) AS ui,
	    o.exclusive - coalesce((SELECT x.exclusive FROM $2 x WHERE $_k AND x.metric = 'overhead'), 0) AS ue
	    FROM w o)
	  SELECT (SELECT count(*) FROM v o WHERE NOT EXISTS (SELECT 1 FROM $2 x WHERE $_k
	      AND x.metric = 'effort' AND abs(x.inclusive - o.ei) <= 1e-9 * (1 + o.ei)))
	  + (SELECT count(*) FROM v o WHERE (o.ui > 1e-12 OR o.ue > 1e-12) AND NOT EXISTS (SELECT 1
	      FROM $2 x WHERE $_k AND x.metric = 'useful_work' AND abs(x.inclusive - o.ui) <= 1e-9 * (1 + o.ui)))
	  + (SELECT count(*) FROM v o WHERE abs(o.ui) <= 1e-12 AND abs(o.ue) <= 1e-12 AND EXISTS (SELECT 1
	      FROM $2 x WHERE $_k AND x.metric = 'useful_work'))
	  + (SELECT count(*) FROM $2 x WHERE x.metric IN ('effort', 'useful_work') AND NOT EXISTS
	      (SELECT 1 FROM w o WHERE $_k))"
}

# pm DB PROCEDURE METRIC: the procedure's inclusive cputime METRIC in DB
# (0 when it has none; nothing when DB is not there).
pm() {
	[ -s "$1" ] || return 1
	_v=$(sql "$1" "SELECT sum(inclusive) FROM procedure_metrics
		WHERE event = 'cputime' AND procedure = '$2' AND metric = '$3'")
	echo "${_v:-0}"
}
