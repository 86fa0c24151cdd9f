#!/bin/bash
# tests/fuzz/make_corpus.sh - regenerates the seed corpus in tests/fuzz/corpus/
# from tiny real runs, plus damaged variants of them.  Not run by the build;
# the corpus is committed.  Needs a build tree ($CULPRIT_BUILD, default
# REPO/build) and python3.
#
#   good-*      files the reader must accept: real measurement files (thread
#               and process, several shapes: a plain tree, a worker thread,
#               two events, a NOTE section from a full tree, a
#               truncated-unwind marker, a trace), a process file with a
#               NOTE, a WAIT section, and an unknown section in a newer
#               minor version (skipped)
#   cut-*       truncated: inside the header, inside a section, before END
#   crc-*       one payload byte flipped (checksum mismatch)
#   fixed-*     a field damaged and the checksums recomputed, so the damage
#               reaches the section decoders
#   frame-*     framing damage: garbage after END, unknown section, bad END,
#               a section twice
# Every file but good-* must be rejected with one message: tests/run-corpus.sh
# replays the corpus in make check.
set -eu

here=$(cd "$(dirname "$0")" && pwd -P)
repo=$(cd "$here/../.." && pwd -P)
build=${CULPRIT_BUILD:-$repo/build}
culprit=$build/culprit
progs=$build/tests/programs
out=$here/corpus

[ -x "$culprit" ] || { echo "$0: no culprit in $build (set CULPRIT_BUILD)" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/fuzz-corpus.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

"$culprit" run -q -o "$tmp/leaves" "$progs/leaves" 5 > /dev/null
"$culprit" run -q -o "$tmp/threads" "$progs/threads" > /dev/null
CULPRIT_MAX_NODES=16 "$culprit" run -q -e CPUTIME@f2000 -e REALTIME@f500 \
	-o "$tmp/full" "$progs/recurse" 20 20000000 > /dev/null
CULPRIT_MAX_DEPTH=8 "$culprit" run -q -o "$tmp/deep" "$progs/recurse" 20 20000000 > /dev/null
"$culprit" run -q -e REALTIME@f1000 -o "$tmp/phases" "$progs/phases" 2 20 20 20 > /dev/null

rm -rf "$out"
mkdir -p "$out"
cp "$tmp"/leaves/*-t0.thread "$out/good-leaves.thread"
cp "$tmp"/leaves/*[0-9].process "$out/good-leaves.process"
cp "$(ls "$tmp"/threads/*-t1.thread)" "$out/good-worker.thread"
cp "$tmp"/full/*-t0.thread "$out/good-note.thread"
cp "$tmp"/full/*[0-9].process "$out/good-2events.process"
cp "$tmp"/deep/*-t0.thread "$out/good-truncated.thread"
cp "$tmp"/phases/*-t1.thread "$out/good-trace.thread"

python3 - "$out" <<'EOF'
import os, struct, sys

out = sys.argv[1]

# CRC-32C (Castagnoli), reflected, as common/crc32c.c.
T = []
for i in range(256):
    c = i
    for _ in range(8):
        c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
    T.append(c)

def crc32c(b):
    c = 0xFFFFFFFF
    for x in b:
        c = T[(c ^ x) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF

def sections(d):
    """(offset, tag, length) of each section."""
    off, res = 32, []
    while off + 16 <= len(d):
        tag, crc, ln = struct.unpack_from('<4sIQ', d, off)
        res.append((off, tag, ln))
        if tag == b'END.':
            break
        off += 16 + ln + (-ln % 8)
    return res

def fix(d):
    """Recomputes the header and every section checksum."""
    d = bytearray(d)
    d[28:32] = struct.pack('<I', crc32c(d[:28]))
    for off, tag, ln in sections(d):
        d[off + 4:off + 8] = struct.pack('<I', crc32c(d[off + 16:off + 16 + ln]))
    return bytes(d)

def sec(d, name):
    for off, tag, ln in sections(d):
        if tag == name:
            return off + 16, ln
    raise KeyError(name)

def put(name, d):
    with open(os.path.join(out, name), 'wb') as f:
        f.write(d)

def rd(name):
    with open(os.path.join(out, name), 'rb') as f:
        return f.read()

th, pr = rd('good-leaves.thread'), rd('good-leaves.process')

# Truncations.
put('cut-header.thread', th[:20])
put('cut-mid.thread', th[:len(th) // 2])
put('cut-mid.process', pr[:len(pr) * 2 // 3])
end_off = [o for o, t, l in sections(th) if t == b'END.'][0]
put('cut-noend.thread', th[:end_off])

# A flipped payload byte: checksum mismatch.
p, n = sec(th, b'NODE')
d = bytearray(th); d[p + n // 2] ^= 0xFF
put('crc-node.thread', bytes(d))

# Decoder-level damage with correct checksums.
d = bytearray(th); struct.pack_into('<I', d, p + 4 + 24 * 3, 7)   # node 3's parent = 7
put('fixed-parent.thread', fix(d))
d = bytearray(th); struct.pack_into('<I', d, p, 0x7FFFFFFF)        # huge node count
put('fixed-nodecount.thread', fix(d))
p, n = sec(th, b'MTRC')
d = bytearray(th); struct.pack_into('<I', d, p + 4, 0xFFFF)        # value for node 65535
put('fixed-valuenode.thread', fix(d))
d = bytearray(th); struct.pack_into('<d', d, p + 4 + 8, float('nan'))
put('fixed-nan.thread', fix(d))
p, n = sec(th, b'THRD')
d = bytearray(th); struct.pack_into('<I', d, p + 56, 0x1000)       # name length
put('fixed-strlen.thread', fix(d))
p, n = sec(pr, b'MODS')
d = bytearray(pr); struct.pack_into('<I', d, p + 4 + 4, 0x80)      # module flags
put('fixed-modflags.process', fix(d))
p, n = sec(pr, b'EVNT')
d = bytearray(pr); struct.pack_into('<I', d, p, 1000)              # event count
put('fixed-evcount.process', fix(d))
put('fixed-kind.thread', fix(th[:12] + bytes([1]) + th[13:]))    # kind: thread -> process

# A damaged trace: a head with an unknown bit, and one record more than
# its bytes hold.
tr = rd('good-trace.thread')
p, n = sec(tr, b'TRAC')
d = bytearray(tr); d[p + 32] |= 0x80
put('fixed-tracehead.thread', fix(d))
d = bytearray(tr); struct.pack_into('<Q', d, p + 8, struct.unpack_from('<Q', d, p + 8)[0] + 1)
put('fixed-tracecount.thread', fix(d))

# Framing damage.
put('frame-garbage.thread', th + b'\0' * 8)
d = bytearray(th); d[end_off + 16] += 1                            # END counts one more
put('frame-endcount.thread', fix(d))

def add_section(d, tag, payload):
    # inserts a section before END and counts it there
    d = bytearray(d)
    e = [o for o, t, l in sections(d) if t == b'END.'][0]
    raw = tag + struct.pack('<IQ', 0, len(payload)) + payload + b'\0' * (-len(payload) % 8)
    d[e + 16:e + 20] = struct.pack('<I', struct.unpack_from('<I', d, e + 16)[0] + 1)
    return fix(bytes(d[:e]) + raw + bytes(d[e:]))

put('frame-unknown.thread', add_section(th, b'ZZZZ', b'abc'))
d = bytearray(th); struct.pack_into('<H', d, 10, 9)                # minor 9: skipped
put('good-unknown-minor9.thread', add_section(d, b'ZZZZ', b'abc'))
# WAIT: one site (kind, cause column (5: idleness:lock), module, reserved,
# site, object, count, total, max); a site waited 0 times, longer once than
# in all, or counted in a column that is not there, is damage.
wait = lambda count, total, mx: struct.pack('<IIIIQQQQQ', 1, 5, 0, 0, 0x401000, 0x5000,
                                            count, total, mx)
put('good-wait.thread', add_section(th, b'WAIT', struct.pack('<I', 1) + wait(3, 900, 500)))
put('fixed-wait-count.thread', add_section(th, b'WAIT', struct.pack('<I', 1) + wait(0, 900, 500)))
put('fixed-wait-max.thread', add_section(th, b'WAIT', struct.pack('<I', 1) + wait(3, 900, 901)))
put('fixed-wait-column.thread', add_section(th, b'WAIT', struct.pack('<I', 1) +
    struct.pack('<IIIIQQQQQ', 1, 999, 0, 0, 0x401000, 0x5000, 3, 900, 500)))
note0 = struct.pack('<I', 0)
put('frame-twice.thread', add_section(add_section(th, b'NOTE', note0), b'NOTE', note0))
put('good-process-note.process', add_section(pr, b'NOTE', struct.pack('<II', 1, 5) + b'hello'))
EOF

ls -l "$out"
du -sh "$out"
