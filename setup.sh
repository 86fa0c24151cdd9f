#!/bin/sh
# setup.sh - installs what culprit needs on Debian 12, then builds it in
# build/.  Arguments go to ./configure.  Used by the README's quick start
# (examples/quickstart.sh, tests/check.sh) and by CI.
#
#   BUILD=dir   build somewhere else than build/
#   CC=clang    build with clang
set -eu
cd "$(dirname "$0")"
top=$(pwd)
build=${BUILD:-build}

# Debian packages: compilers and autotools, the libraries culprit uses
# (protobuf-c and zlib: the pprof export), and the programs the tests run
# (libclang-rt-14-dev: clang's libFuzzer, for the fuzz targets in CI;
# strace: the power-loss test follows culprit run's syncs; zstd to
# openssl: the real-program corpus, tests/run-programs.sh; golang-go: go
# tool pprof, which reads the pprof export in tests/run-export.sh;
# python3-dev, python3-numpy: the Python plugin's tests, tests/run-python.sh;
# openmpi-bin, libopenmpi-dev: MPI programs under mpirun, tests/run-mpi.sh).
packages="build-essential autoconf automake pkg-config libunwind-dev libpfm4-dev
libdw-dev libelf-dev libsqlite3-dev libncurses-dev libomp-dev sqlite3 python3 xz-utils
python3-dev python3-numpy openmpi-bin libopenmpi-dev
libprotobuf-c-dev protobuf-c-compiler zlib1g-dev
clang libclang-rt-14-dev tmux strace zstd pigz lbzip2 stress-ng imagemagick openssl
golang-go"
missing=
for p in $packages; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "setup: installing$missing"
	if [ "$(id -u)" = 0 ]; then sudo=; else sudo=sudo; fi
	export DEBIAN_FRONTEND=noninteractive
	$sudo apt-get update -qq
	# shellcheck disable=SC2086
	$sudo apt-get install -y -qq --no-install-recommends $missing > /dev/null
fi

if [ ! -x configure ] || [ ! -f build-aux/tap-driver.sh ] || [ configure.ac -nt configure ] ||
   [ Makefile.am -nt Makefile.in ]; then
	echo "setup: generating the build system"
	./autogen.sh > /dev/null 2>&1 || { ./autogen.sh; exit 1; }
fi
mkdir -p "$build"
cd "$build"
if [ ! -f Makefile ] || [ "$*" != "$(cat .configure-args 2>/dev/null)" ]; then
	echo "setup: configuring in $build/ $*"
	"$top/configure" -q "$@"
	echo "$*" > .configure-args
fi
echo "setup: building"
make -s -j"$(nproc)" > make.log 2>&1 || { cat make.log; exit 1; }
echo "setup: built $build/culprit and $build/collector/libculprit.so"

# The speedscope export's consumer, from the npm registry with the
# machine's npm: speedscope's published file-format schema, and ajv to
# check files against it (tests/run-export.sh; skipped without them).
if command -v npm > /dev/null && [ ! -d consumers/node_modules/speedscope ]; then
	npm install --prefix consumers --no-audit --no-fund --silent speedscope@1.25.0 ajv@8 \
		> consumers.log 2>&1 ||
		echo "setup: npm could not install speedscope (see $build/consumers.log): its export check is skipped"
fi
