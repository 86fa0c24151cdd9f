#!/bin/sh
# run-corpus.sh - the fuzz corpus (tests/fuzz/corpus/), replayed: the fuzz
# target survives every file (no crash, no broken invariant; no memory
# error in a sanitizer build), and `culprit dump` accepts the good-* files
# and rejects every other one with one message that says where.
. "${srcdir:-.}/tests/lib.sh"

corpus=$srcdir/tests/fuzz/corpus
replay=${BUILDDIR:-.}/tests/fuzz/replay
[ -x "$replay" ] || skip_all "tests/fuzz/replay is not built (make check builds it)"

n=$(ls "$corpus" | wc -l)
check "the corpus has its files ($n)" [ "$n" -ge 20 ]
"$replay" "$corpus"/* > replay.out 2> replay.err
rc=$?
check "the fuzz target survives every file of the corpus" \
	sh -c "[ $rc = 0 ] && [ \$(grep -c ': ok\$' replay.out) = $n ] && [ ! -s replay.err ]"
[ "$rc" = 0 ] || sed 's/^/# replay: /' replay.err | head -n 20

for f in "$corpus"/*; do
	name=${f##*/}
	"$CULPRIT" dump "$f" > out.txt 2> err.txt
	st=$?
	case $name in
	good-*)
		check "$name: accepted" sh -c "[ $st = 0 ] && [ -s out.txt ] && [ ! -s err.txt ]"
		;;
	*)
		check "$name: rejected, in one line that names the offset" \
			sh -c "[ $st = 1 ] && [ \$(wc -l < err.txt) = 1 ] && grep -q ': offset [0-9a-fx]*[:,]' err.txt && [ ! -s out.txt ]"
		;;
	esac
	[ -s err.txt ] && note "$name: $(cat err.txt)"
done

done_testing
