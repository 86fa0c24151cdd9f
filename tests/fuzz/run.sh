#!/bin/bash
# tests/fuzz/run.sh - fuzzes a reader for a bounded time, with the libFuzzer
# targets that `make fuzz` builds (configure --enable-fuzz builds them with
# `make`): the measurement file reader (common/mfile_read.c,
# tests/fuzz/fuzz_mfile) or the database read layer under report and view
# (dbread/, tests/fuzz/fuzz_db).
#
# usage: tests/fuzz/run.sh [SECONDS [mfile|db]]
#   SECONDS   fuzzing time (default $FUZZ_SECONDS, else 30)
#   mfile|db  the reader (default mfile)
#
# Works from any directory.  The fuzzer runs on a copy of
# tests/fuzz/corpus/ (corpus-db/ for db) in a temporary directory, so the
# committed seed corpus is never modified (make check replays the mfile
# corpus: tests/run-corpus.sh).  For db, the database the inputs edit is
# made first: the build's culprit run and prof on tests/programs/callers.
#
# Exit status: 0 no crash found; 1 the fuzzer found a crash (its input and
# a command reproducing it are printed, and the temporary directory is
# kept); 2 build or usage error; 77 the build found no clang that links
# libFuzzer (the automake "skipped" status).
#
# Environment:
#   BUILD          the configured build tree (default build/, by ./setup.sh)
#   FUZZ_SECONDS   default time when no argument is given (30)
#   FUZZ_FLAGS     extra libFuzzer options, e.g. "-jobs=2 -workers=2"
#   FUZZ_KEEP      if set, keep the temporary directory (corpus as grown,
#                  log) even when nothing was found
#   TMPDIR         where the temporary directory goes (default /tmp)
set -eu

here=$(cd "$(dirname "$0")" && pwd -P)
repo=$(cd "$here/../.." && pwd -P)
seconds=${1:-${FUZZ_SECONDS:-30}}
target=${2:-mfile}
build=${BUILD:-build}
case $build in /*) ;; *) build=$repo/$build ;; esac

case $seconds in
'' | *[!0-9]*)
	echo "usage: $0 [SECONDS [mfile|db]]  (a whole number of seconds, got '$seconds')" >&2
	exit 2 ;;
esac
case $target in
mfile) corpus=corpus what=common/mfile_read.c ;;
db) corpus=corpus-db what="dbread/ (report, view)" ;;
*)
	echo "usage: $0 [SECONDS [mfile|db]]  (no fuzz target '$target')" >&2
	exit 2 ;;
esac

if [ ! -f "$build/Makefile" ]; then
	echo "$0: no configured build in $build (run ./setup.sh, or set BUILD)" >&2
	exit 2
fi
if [ -z "$(sed -n 's/^FUZZ_CLANG = //p' "$build/Makefile")" ]; then
	echo "$0: SKIP: configure found no clang that links libFuzzer" \
		"(install clang and libclang-rt-14-dev, then configure again)" >&2
	exit 77
fi
if ! make -s -C "$build" fuzz; then
	echo "$0: building the fuzz target failed" >&2
	exit 2
fi
bin=$build/tests/fuzz/fuzz_$target

work=$(mktemp -d "${TMPDIR:-/tmp}/culprit-fuzz.XXXXXX")
keep=${FUZZ_KEEP:-}
# shellcheck disable=SC2317  # called by the EXIT trap
cleanup() { if [ -z "$keep" ]; then rm -rf "$work"; fi; }
trap cleanup EXIT

mkdir "$work/corpus" "$work/artifacts"
cp "$here/$corpus"/* "$work/corpus/"
nseeds=$(find "$work/corpus" -type f | wc -l)
if [ "$target" = db ]; then
	make -s -C "$build" tests/programs/callers
	"$build/culprit" run -q -o "$work/m" "$build/tests/programs/callers" > /dev/null
	"$build/culprit" prof -q -o "$work/template.db" "$work/m"
	export CULPRIT_FUZZ_DB="$work/template.db"
fi
echo "fuzzing $what for ${seconds}s ($nseeds seeds; work dir $work)"

# -error_exitcode/-timeout_exitcode: libFuzzer's defaults (77, 70) would
# collide with the skip status above.
rc=0
# shellcheck disable=SC2086
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0} \
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
"$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=16384 \
	-error_exitcode=1 -timeout_exitcode=1 -print_final_stats=1 \
	-artifact_prefix="$work/artifacts/" ${FUZZ_FLAGS:-} \
	"$work/corpus" > "$work/fuzz.log" 2>&1 || rc=$?

# Summary: the start, the last progress lines and the final statistics.
grep -E '^INFO: seed corpus|INITED' "$work/fuzz.log" | head -3 || true
grep -E '^#[0-9]+' "$work/fuzz.log" | tail -3 || true
grep -E '^stat::' "$work/fuzz.log" || true

crashes=$(find "$work/artifacts" -type f 2> /dev/null | sort)
if [ "$rc" -ne 0 ] || [ -n "$crashes" ]; then
	keep=1
	echo
	echo "FUZZER FOUND A PROBLEM (exit status $rc). Sanitizer report:"
	grep -n -E 'ERROR: |SUMMARY: |runtime error|invariant failed|deadly signal' \
		"$work/fuzz.log" | head -10 || true
	echo "--- end of the log ($work/fuzz.log) ---"
	tail -n 60 "$work/fuzz.log"
	echo "---"
	if [ -n "$crashes" ]; then
		for c in $crashes; do
			echo "crashing input: $c ($(wc -c < "$c") bytes)"
			echo "reproduce:      $bin $c"
			echo "                (or, without libFuzzer: $build/tests/fuzz/replay $c)"
			echo "hex:            $(od -An -tx1 -v "$c" | tr -d ' \n' | head -c 400)"
		done
	else
		echo "no crashing input was saved; see $work/fuzz.log"
	fi
	exit 1
fi
corpus_now=$(find "$work/corpus" -type f | wc -l)
echo "no crash in ${seconds}s; the corpus grew from $nseeds to $corpus_now inputs"
if [ -n "$keep" ]; then echo "kept $work"; fi
exit 0
