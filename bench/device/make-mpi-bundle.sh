#!/bin/bash
# bench/device/make-mpi-bundle.sh - packs build/ (configured --with-mpi and
# built), Open MPI 4.1's run time (mpirun, orted, their components, help
# files and settings: single node, shared memory), python3 and a prebuilt
# bench/prof_work into build-bundle/mpi-root.tar.gz, about 36 MiB, for
# timing `culprit prof --mpi` on a lent many-core machine that has none of
# our packages.  Run from the repository root, as root, on Debian 12 with
# openmpi-bin.  Then, there:
#
#   build-bundle/in-bundle.sh env CC=prebuilt-cc CULPRIT_BUILD=/prog/build \
#       BENCH_PROCS=16 BENCH_RANKS="1 2 4 8 16" /prog/repo/bench/prof_mpi.sh
#
# (carry build-bundle; there is no compiler inside: `prebuilt-cc` copies
# the prebuilt prof_work wherever `cc -o X` would write.)
set -eu
R=build-bundle/mpi/root
add_mpi() {
	A=/usr/lib/x86_64-linux-gnu
	# 1. merged-usr layout: /lib -> usr/lib (dedupe libc etc.)
	if [ -d "$R/lib" ] && [ ! -L "$R/lib" ]; then
	  mkdir -p "$R/usr/lib"; cp -a "$R/lib/." "$R/usr/lib/"; rm -rf "$R/lib"; ln -s usr/lib "$R/lib"
	fi
	# the tool's /prog copies of the programs are duplicates
	rm -f "$R/prog/mpirun" "$R/prog/orterun" "$R/prog/orted" "$R/prog/python3.11"
	# mpirun as symlink to orterun like Debian, and python3 link
	ln -sf orterun "$R/usr/bin/mpirun"; ln -sf orterun "$R/usr/bin/mpiexec"
	ln -sf python3.11 "$R/usr/bin/python3"
	for f in mpirun mpiexec python3 orted orterun python3.11; do ln -sf /usr/bin/$f "$R/bin/$f"; done
	copytree() { mkdir -p "$R$(dirname "$1")"; cp -a "$1" "$R$(dirname "$1")/"; }
	copytree $A/openmpi/lib
	copytree $A/pmix2
	copytree /usr/share/openmpi
	[ -d /usr/share/pmix ] && copytree /usr/share/pmix
	copytree /etc/openmpi
	# openmpi lib symlinks in $A (libmpi.so.40 etc.) are covered by ldd; pmix:
	# python stdlib, without test suites / idle / tkinter / ensurepip wheels etc.
	mkdir -p "$R/usr/lib/python3.11"
	tar -C /usr/lib/python3.11 --exclude=test --exclude=tests --exclude=idlelib --exclude=tkinter \
	  --exclude=turtledemo --exclude=ensurepip --exclude=lib2to3 --exclude=__pycache__ \
	  --exclude=config-3.11-x86_64-linux-gnu --exclude=pydoc_data --exclude=dist-packages --exclude=site-packages \
	  -cf - . | tar -C "$R/usr/lib/python3.11" -xf -
	mkdir -p "$R/usr/lib/python3.11/lib-dynload"
	cp -a /usr/lib/python3.11/lib-dynload/. "$R/usr/lib/python3.11/lib-dynload/"
	# ldd closure of everything shared-object-like now in the root
	list=$(find "$R/usr/lib/x86_64-linux-gnu/openmpi" "$R/usr/lib/x86_64-linux-gnu/pmix2" \
	        "$R/usr/lib/python3.11/lib-dynload" "$R/usr/local" -type f \( -name '*.so*' -o -perm -u+x \))
	list="$list /usr/bin/orterun /usr/bin/orted /usr/bin/python3.11"
	for it in 1 2 3; do
	  libs=$(for f in $list; do ldd "$f" 2>/dev/null | awk '/=> \//{print $3}'; done | sort -u)
	  new=
	  for l in $libs; do
	    # canonical /usr/lib path inside the merged root
	    t=$l; case $t in /lib/*) t=/usr$t ;; esac
	    if [ ! -e "$R$t" ]; then mkdir -p "$R$(dirname "$t")"; cp -L "$l" "$R$t"; new="$new $l"; echo "added $t"; fi
	  done
	  [ -z "$new" ] && break
	  list=$new
	done
}
B=build-bundle; R=$B/mpi/root
../shared/tools/bundle-chroot.sh build $B/mpi /usr/bin/mpirun /usr/bin/orterun /usr/bin/orted /usr/bin/python3.11
add_mpi >/dev/null
cc -std=c11 -O1 -g -fno-omit-frame-pointer -pthread -o "$R/prog/prof_work" bench/prof_work.c
mkdir -p "$R/prog/repo/bench" "$R/prog/repo/tests" "$R/prog/build/postmortem" "$R/prog/build/collector" "$R/root"
chmod 700 "$R/root"; chmod 1777 "$R/tmp"
cp bench/*.sh bench/*.c "$R/prog/repo/bench/"; cp tests/same_db.py "$R/prog/repo/tests/"
ln -sf /usr/local/bin/culprit "$R/prog/build/culprit"
ln -sf /usr/local/libexec/culprit/culprit-prof-mpi "$R/prog/build/postmortem/culprit-prof-mpi"
ln -sf /usr/local/lib/culprit/libculprit.so "$R/prog/build/collector/libculprit.so"
conf=$R/etc/openmpi/openmpi-mca-params.conf
sed -i 's/^btl = \^uct,openib,ofi/#&/' "$conf"
printf '%s\n' '# chroot bundle: single node, no ssh/rsh, shared memory only' \
    'plm_rsh_agent = /bin/false' 'btl = self,vader' >> "$conf"
cat > "$R/usr/local/bin/prebuilt-cc" <<'CC'
#!/bin/bash
# prebuilt-cc: stands in for a C compiler in this chroot (which has none).
# Ignores the flags and sources; copies the prebuilt $PREBUILT (default
# /prog/prof_work, built outside with bench/common.sh's build_prof_work
# flags) to the -o target.  Use: CC=prebuilt-cc bench/prof_mpi.sh
out=
while [ $# -gt 0 ]; do case $1 in -o) out=$2; shift ;; -o*) out=${1#-o} ;; esac; shift; done
[ -n "$out" ] || { echo "prebuilt-cc: no -o" >&2; exit 1; }
cp "${PREBUILT:-/prog/prof_work}" "$out"
CC
chmod +x "$R/usr/local/bin/prebuilt-cc"
# gzip: the lent machine may have no zstd.
tar -C $B/mpi -cf - root | gzip -6 > $B/mpi-root.tar.gz
gzip -t $B/mpi-root.tar.gz && rm -rf $B/mpi
cp bench/device/in-bundle.sh $B/
ls -l $B/mpi-root.tar.gz
