#!/bin/sh
# run-hindex.sh - the tools' hash index (tools-lib/hindex.h): ids added
# are found through collisions of every kind, keys never added are not,
# the index grows at half full and keeps every id, and a reservation
# holds.  tests/programs/hindex_check.c makes the checks; each of its
# lines becomes one here.
. "${srcdir:-.}/tests/lib.sh"

prog=$PROGRAMS/hindex_check
[ -x "$prog" ] || skip_all "tests/programs/hindex_check is not built (make check builds it)"

# configure --enable-valgrind: under memcheck too, its log judged with
# the tools'.
if [ -n "${CULPRIT_VALGRIND:-}" ]; then
	$CULPRIT_VALGRIND --log-file="$WORK/.valgrind/hindex.%p.log" "$prog" > out.txt 2> err.txt
else
	"$prog" > out.txt 2> err.txt
fi
rc=$?
while IFS= read -r line; do
	case $line in
	PASS:*) ok "${line#PASS: }" ;;
	*) not_ok "${line#FAIL: }" ;;
	esac
done < out.txt
check "hindex_check exits 0, says nothing on standard error, checks something" \
	sh -c "[ $rc = 0 ] && [ ! -s err.txt ] && [ -s out.txt ]"
sed 's/^/# /' err.txt | head -n 20
done_testing
