#!/bin/bash
# bench/device/in-bundle.sh - runs a command (as root) inside the Open MPI +
# culprit chroot that make-mpi-bundle.sh packed into mpi-root.tar.gz
# (or .tar.zst, .tar.xz) beside this script (it copies itself there).
#
#   build-bundle/in-bundle.sh CMD [ARGS...]
#   build-bundle/in-bundle.sh bash -c 'mpirun -np 2 /bin/true'
#   build-bundle/in-bundle.sh env CC=prebuilt-cc CULPRIT_BUILD=/prog/build \
#       /prog/repo/bench/prof_mpi.sh
#
# Run from the repo root: the repo's bench/*.sh, bench/*.c and
# tests/same_db.py are copied to /prog/repo/{bench,tests} inside the root
# each time (so edited bench scripts are used).  The root is unpacked into
# $MPIROOT (default /tmp/mpiroot) unless already there (MPIROOT_FRESH=1 to
# redo it); proc, dev (+ a tmpfs on dev/shm) and sys are mounted for the
# command and unmounted afterwards.  Inside: culprit is
# /usr/local/bin/culprit, /prog/build holds culprit, postmortem/ and
# collector/ links for CULPRIT_BUILD, /prog/prof_work is prebuilt and
# `prebuilt-cc` copies it wherever a `cc -o X ...` would have written
# (there is no compiler inside).  Needs tar and gzip on the host.
set -eu
here=$(cd "$(dirname "$0")" && pwd -P)
R=${MPIROOT:-/tmp/mpiroot}
[ $# -ge 1 ] || { sed -n '2,22p' "$0"; exit 2; }
[ "$(id -u)" = 0 ] || { echo "$0: must run as root (chroot, mount)" >&2; exit 1; }

if [ -e "$here/mpi-root.tar.zst" ]; then tb=$here/mpi-root.tar.zst; dec="zstd -dc"
elif [ -e "$here/mpi-root.tar.xz" ]; then tb=$here/mpi-root.tar.xz; dec="xz -dc"
elif [ -e "$here/mpi-root.tar.gz" ]; then tb=$here/mpi-root.tar.gz; dec="gzip -dc"
else echo "$0: no mpi-root.tar.zst or mpi-root.tar.xz in $here" >&2; exit 1; fi

if [ "${MPIROOT_FRESH:-0}" = 1 ] || [ ! -e "$R/.unpacked" ]; then
    if mountpoint -q "$R/proc" 2>/dev/null; then echo "$0: $R/proc is mounted; not unpacking over it" >&2; exit 1; fi
    rm -rf "$R"; mkdir -p "$R"
    echo "unpack-and-run: unpacking $tb into $R" >&2
    $dec "$tb" | tar -C "$R" --strip-components=1 -xf -
    touch "$R/.unpacked"
fi

if [ -f bench/prof_mpi.sh ] && [ -f tests/same_db.py ]; then
    mkdir -p "$R/prog/repo/bench" "$R/prog/repo/tests"
    cp bench/*.sh bench/*.c "$R/prog/repo/bench/"
    cp tests/same_db.py "$R/prog/repo/tests/"
fi

mounted=()
cleanup() {
    local i
    for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount "${mounted[i]}" || umount -l "${mounted[i]}"; done
}
trap cleanup EXIT
mnt() { local dst=${*: -1}; mount "$@"; mounted+=("$dst"); }
mnt -t proc proc "$R/proc"
mnt --bind /dev "$R/dev"
mnt -t tmpfs -o mode=1777 tmpfs "$R/dev/shm"
mnt --bind /sys "$R/sys"

rc=0
chroot "$R" /usr/bin/env -i HOME=/root TERM="${TERM:-dumb}" \
    PATH=/usr/local/bin:/usr/bin:/bin \
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
    OMPI_MCA_rmaps_base_oversubscribe=1 \
    /bin/bash -c 'cd /prog/repo 2>/dev/null || cd /; exec "$@"' unpack-and-run "$@" || rc=$?
exit $rc
