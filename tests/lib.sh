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
trap 'rm -rf "$WORK"' EXIT
cd "$WORK" || exit 99

tap_n=0
tap_failed=0

ok() {
	tap_n=$((tap_n + 1))
	echo "ok $tap_n - $*"
}

not_ok() {
	tap_n=$((tap_n + 1))
	tap_failed=$((tap_failed + 1))
	echo "not ok $tap_n - $*"
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

done_testing() {
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

# counter FILE NAME: a counter of a thread file.
counter() {
	"$CULPRIT" dump "$1" | awk -v n="$2" '
		/^counters/ { for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == n) print kv[2] } }'
}

# column FILE NAME: the --tsv column of metric NAME ("realtime:work").
column() {
	"$CULPRIT" dump --tsv "$1" | awk -F'\t' -v n="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == n) print i; exit }'
}

# exclusive FILE FUNCTION [COLUMN]: exclusive samples (or COLUMN, default
# the first event's samples) at frames of FUNCTION.
exclusive() {
	"$CULPRIT" dump --tsv "$1" | awk -F'\t' -v fn="$2" -v col="${3:-10}" '
		NR > 1 && $8 == fn { s += $col } END { printf "%.0f\n", s }'
}

# inclusive FILE FUNCTION [COLUMN]: samples at FUNCTION or anything it
# called, each sample counted once however often FUNCTION recurs.
inclusive() {
	"$CULPRIT" dump --tsv "$1" | awk -F'\t' -v fn="$2" -v col="${3:-10}" '
		NR > 1 { under[$1] = ($2 >= 0 && under[$2]) || $8 == fn; if (under[$1]) s += $col }
		END { printf "%.0f\n", s }'
}

# total FILE [COLUMN]: all samples in a thread file.
total() {
	"$CULPRIT" dump --tsv "$1" | awk -F'\t' -v col="${2:-10}" 'NR > 1 { s += $col } END { printf "%.0f\n", s }'
}

# near A B TOLERANCE: |A - B| <= TOLERANCE (decimals allowed).
near() {
	awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= t) }'
}

# within A B SHARE FLOOR: A is B to within SHARE of B, or FLOOR.
within() {
	awk -v a="$1" -v b="$2" -v s="$3" -v f="$4" 'BEGIN {
		d = a - b; if (d < 0) d = -d; t = s * (b < 0 ? -b : b); exit !(d <= t || d <= f) }'
}

# at_least A B: A >= B (decimals allowed).
at_least() {
	awk -v a="$1" -v b="$2" 'BEGIN { exit !(a >= b) }'
}

# below A B: A < B (decimals allowed).
below() {
	awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }'
}

# ratio A B: A / B to three decimals (0 when B is 0).
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f\n", (b > 0 ? a / b : 0) }'
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
# the dynamic loader before main, say, or in exit handlers after it).
nearly_all() {
	awk -v p="$1" -v w="$2" 'BEGIN { slack = w / 100; if (slack < 3) slack = 3; exit !(p <= w && p >= w - slack) }'
}

# percent PART WHOLE: PART as a percentage of WHOLE, one decimal.
percent() {
	awk -v p="$1" -v w="$2" 'BEGIN { printf "%.1f\n", (w > 0 ? 100 * p / w : 0) }'
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

# pm DB PROCEDURE METRIC: the procedure's inclusive cputime METRIC in DB
# (0 when it has none).
pm() {
	_v=$(sql "$1" "SELECT sum(inclusive) FROM procedure_metrics
		WHERE event = 'cputime' AND procedure = '$2' AND metric = '$3'")
	echo "${_v:-0}"
}
