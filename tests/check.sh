#!/bin/sh
# check.sh - sets everything up, builds with warnings as errors and runs
# the test suite.  The last line it prints is "N passed, N failed".
#   BUILD=dir, CC=clang and configure arguments work as for ../setup.sh.
set -u
cd "$(dirname "$0")/.."
build=${BUILD:-build}
./setup.sh --enable-werror "$@" || { echo "0 passed, 1 failed"; exit 1; }
cd "$build"
rm -f tests/*.trs
make -s -j"$(nproc)" check > check.log 2>&1
status=$?
grep -h -E '^(FAIL|ERROR|XPASS)' tests/*.log 2>/dev/null
# What a failing script noted (its "# " lines) helps when CI is the only
# place a failure shows.
for log in $(grep -l -E '^(FAIL|ERROR):' tests/*.log 2>/dev/null); do
	grep '^# ' "$log" | head -n 20 | sed "s|^|$log: |"
done
[ $status -ne 0 ] && ! ls tests/*.trs > /dev/null 2>&1 && tail -n 40 check.log
cat tests/*.trs 2>/dev/null | awk '
	/^:test-result: PASS/ { pass++ }
	/^:test-result: (FAIL|ERROR|XPASS)/ { fail++ }
	/^:test-result: SKIP/ { skip++ }
	END {
		if (skip) printf "%d skipped\n", skip
		printf "%d passed, %d failed\n", pass, fail + 0
	}'
[ $status -eq 0 ]
