#!/bin/bash
# tests/fuzz/run.sh - builds the libFuzzer target for the measurement file
# reader (common/mfile_read.c) and fuzzes it for a bounded time.
#
# usage: tests/fuzz/run.sh [SECONDS]
#   SECONDS   fuzzing time (default $FUZZ_SECONDS, else 30)
#
# Works from any directory: the sources are found relative to this script.
# The fuzzer runs on a copy of tests/fuzz/corpus/ in a temporary directory,
# so the committed seed corpus is never modified.
#
# Exit status: 0 no crash found; 1 the fuzzer found a crash (its input and
# a command reproducing it are printed, and the temporary directory is
# kept); 2 build or usage error; 77 clang or libFuzzer is not available
# (the automake "skipped" status).
#
# Environment:
#   FUZZ_SECONDS   default time when no argument is given (30)
#   CLANG          compiler (default clang)
#   FUZZ_FLAGS     extra libFuzzer options, e.g. "-jobs=2 -workers=2"
#   FUZZ_KEEP      if set, keep the temporary directory (binary, corpus
#                  as grown, log) even when nothing was found
#   TMPDIR         where the temporary directory goes (default /tmp)
set -eu

here=$(cd "$(dirname "$0")" && pwd -P)
repo=$(cd "$here/../.." && pwd -P)
seconds=${1:-${FUZZ_SECONDS:-30}}
clang=${CLANG:-clang}

case $seconds in
'' | *[!0-9]*)
	echo "usage: $0 [SECONDS]  (a whole number of seconds, got '$seconds')" >&2
	exit 2 ;;
esac

if ! command -v "$clang" > /dev/null 2>&1; then
	echo "$0: SKIP: $clang not found (install clang to build the libFuzzer target)" >&2
	exit 77
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/culprit-fuzz.XXXXXX")
keep=${FUZZ_KEEP:-}
# shellcheck disable=SC2317  # called by the EXIT trap
cleanup() { if [ -z "$keep" ]; then rm -rf "$work"; fi; }
trap cleanup EXIT

# libFuzzer ships with clang's compiler-rt, which some installs lack.
printf '#include <stdint.h>\n#include <stddef.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n' \
	> "$work/probe.c"
if ! "$clang" -fsanitize=fuzzer,address,undefined -o "$work/probe" "$work/probe.c" \
		> "$work/probe.log" 2>&1; then
	echo "$0: SKIP: $clang cannot link -fsanitize=fuzzer,address,undefined" \
		"(libFuzzer/compiler-rt missing?):" >&2
	sed 's/^/  /' "$work/probe.log" | head -5 >&2
	exit 77
fi

bin=$work/fuzz_mfile
if ! "$clang" -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
		-std=c11 -D_GNU_SOURCE -Wall -Wextra -I "$repo/common" \
		-o "$bin" "$here/fuzz_mfile.c" "$repo/common/mfile_read.c" \
		"$repo/common/crc32c.c"; then
	echo "$0: building the fuzz target failed" >&2
	exit 2
fi

mkdir "$work/corpus" "$work/artifacts"
cp "$here"/corpus/* "$work/corpus/"
nseeds=$(find "$work/corpus" -type f | wc -l)
echo "fuzzing common/mfile_read.c for ${seconds}s ($nseeds seeds; work dir $work)"

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
