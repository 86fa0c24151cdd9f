#!/bin/sh
# tests/golden/regen.sh - rewrites the golden outputs in tests/golden/expected/
# from the current build, for when a change of output is intended.  Review
# the result with `git diff tests/golden/expected` before committing it.
#
# usage: tests/golden/regen.sh [--elf]
#   --elf   first rebuild the committed ELF files tests/golden/elf/app and
#           libomp.so.5 from tests/golden/src/ with gcc.  Their addresses
#           and build-ids change, and so may the lines that
#           tests/golden/fixture.c names: check that it still writes its
#           files (the test says which frame it cannot place).
#
#   BUILD=dir   the build tree (default build/, made by ./setup.sh)
set -eu
cd "$(dirname "$0")/../.."
build=${BUILD:-build}

if [ "${1:-}" = --elf ]; then
	src=tests/golden/src
	# Relative file names in the debug information, as /golden/app.c.
	flags="-O1 -g -fno-omit-frame-pointer -fdebug-prefix-map=$(pwd)/$src=/golden"
	# shellcheck disable=SC2086
	(cd "$src" && gcc $flags -fPIC -shared -Wl,-soname,libomp.so.5 -o ../elf/libomp.so.5 libomp.c &&
		gcc $flags -pthread -o ../elf/app app.c ../elf/libomp.so.5)
	echo "regen: rebuilt tests/golden/elf/app and libomp.so.5"
elif [ $# -gt 0 ]; then
	echo "usage: $0 [--elf]" >&2
	exit 2
fi

[ -f "$build/Makefile" ] || { echo "regen: no build in $build/ (run ./setup.sh)" >&2; exit 1; }
make -s -C "$build" -j"$(nproc)" > /dev/null
GOLDEN_REGEN=1 make -s -C "$build" check TESTS=tests/run-golden.sh > /dev/null 2>&1 || {
	cat "$build/tests/run-golden.sh.log"
	exit 1
}
# Checked again as a test would, so that what is written also passes.
make -s -C "$build" check TESTS=tests/run-golden.sh > /dev/null 2>&1 || {
	cat "$build/tests/run-golden.sh.log"
	exit 1
}
git status --short tests/golden/expected
echo "regen: $(ls tests/golden/expected | wc -l) expected outputs in tests/golden/expected/"
