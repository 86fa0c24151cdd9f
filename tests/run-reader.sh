#!/bin/sh
# run-reader.sh - the reader survives any damage: every truncation and
# single-byte corruption of a real file is reported, never crashed on.
. "${srcdir:-.}/tests/lib.sh"

profile m "$PROGRAMS/threads" 3000000 > /dev/null
f=$(one_file m/threads-*-t0.thread)
p=$(one_file m/threads-*.process)
for src in "$f" "$p"; do
	check "$(basename "${src:-nothing}"): the intact file is read" \
		sh -c "\"$CULPRIT\" dump '$src' > /dev/null"
	size=$(wc -c < "$src")
	name=$(basename "$src")
	crashes=0 accepted=0 tried=0
	# Every truncation point.  (Hundreds of runs: not under valgrind, which
	# sees the reader on damaged files through run-corpus.sh.)
	i=0
	while [ $i -lt "$size" ]; do
		head -c $i "$src" > cut
		"$CULPRIT_BIN" dump cut > /dev/null 2>&1
		rc=$?
		[ $rc -ge 2 ] && crashes=$((crashes + 1))
		[ $rc = 0 ] && accepted=$((accepted + 1))
		tried=$((tried + 1))
		i=$((i + 7))
	done
	check "$name: $tried truncations, none crashed the reader" [ $tried -gt 0 -a $crashes = 0 ]
	check "$name: no truncation was accepted as whole" [ $accepted = 0 ]
	# A byte changed at many offsets.
	crashes=0 accepted=0 tried=0
	i=0
	while [ $i -lt "$size" ]; do
		cp "$src" bad
		printf '\245' | dd of=bad bs=1 seek=$i conv=notrunc 2> /dev/null
		if ! cmp -s bad "$src"; then
			"$CULPRIT_BIN" dump bad > /dev/null 2>&1
			rc=$?
			[ $rc -ge 2 ] && crashes=$((crashes + 1))
			[ $rc = 0 ] && accepted=$((accepted + 1))
			tried=$((tried + 1))
		fi
		i=$((i + 5))
	done
	check "$name: $tried corrupted copies, none crashed the reader" [ $tried -gt 0 -a $crashes = 0 ]
	check "$name: every corruption was detected" [ $accepted = 0 ]
done

done_testing
