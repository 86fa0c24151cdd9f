#!/bin/sh
# run-full-disk.sh - culprit prof when the disk fills while it writes the
# database: one line naming the problem and the way out, status 1, no
# temporary database left behind (on a real full disk it may be most of
# the disk), the measurements untouched, a database it was to replace
# untouched, and a prof once there is room writes the database.
#
# The disk is "full" by a file-size limit (ulimit -f) with SIGXFSZ
# ignored: write() then fails with EFBIG, as it fails with ENOSPC on a
# full disk, and SQLite says "disk I/O error" for both.
. "${srcdir:-.}/tests/lib.sh"
have sqlite3 || skip_all "the sqlite3 program is not installed"

# 400 short threads: a database of about 900 KB, several times its empty
# schema (about 250 KB), so that half its size falls within the writing,
# after the schema is in.
"$CULPRIT" run -q -o m "$PROGRAMS/churn" 400 > /dev/null
"$CULPRIT" prof -q -o whole.db m 2> /dev/null
size=$(wc -c < whole.db)
note "the whole database: $size bytes"
check "full disk: the database written without a limit is over 600 KB" at_least "$size" 600000

# ulimit -f counts 512-byte blocks in some shells, 1 KB ones in others.
(ulimit -f 2 && trap '' XFSZ && head -c 8192 /dev/zero > probe) 2> /dev/null
block=$(($(wc -c < probe) / 2))
note "ulimit -f counts blocks of $block bytes"

# limited BLOCKS ARGS...: culprit ARGS with files limited to BLOCKS.
limited() {
	local blocks=$1
	shift
	(ulimit -f "$blocks" && trap '' XFSZ && exec "$CULPRIT" "$@") > out.txt 2> err.txt
}

# failed WHAT DESCRIPTION: culprit failed as it should when it cannot
# WHAT ("write", "create") its temporary database m.db.tmp-PID, in
# out.txt, err.txt and $status.
failed() {
	note "$(cat err.txt)"
	check "$2: status 1" [ "$status" = 1 ]
	# Warnings (say, of a module without symbols) may come before it.
	check "$2: one line that is not a warning" \
		[ "$(grep -cv '^culprit: warning: ' err.txt)" = 1 ]
	check "$2: it says the database could not be written, and why" \
		grep -q "^culprit: cannot $1 .*m\.db\.tmp-[0-9]*: .*(File too large)" err.txt
	check "$2: ... and the way out" grep -q "raise the file-size limit (ulimit -f), or write it elsewhere with -o" err.txt
	check "$2: nothing on stdout" [ ! -s out.txt ]
	check "$2: no temporary database is left" [ -z "$(ls | grep '\.db\.tmp-')" ]
}

sums() {
	(cd m && find . -type f -exec cksum {} + | sort)
}
sums > before.txt

limited $((size / 2 / block)) prof -q m
status=$?
failed write "full disk while writing"
check "full disk while writing: no database either" [ ! -e m.db ]
sums > after.txt
check "full disk while writing: the measurement files are untouched" cmp -s before.txt after.txt

# Too small for even the empty schema: the failure comes as the file is
# made.
limited 1 prof -q m
status=$?
failed create "full disk at the start"
check "full disk at the start: no database either" [ ! -e m.db ]

# With room, the same directory gives the same database.
"$CULPRIT" prof -q m > out.txt 2> err.txt
check "with room again: prof succeeds" [ $? = 0 ]
check "with room again: the database is written" [ -s m.db ]
threads=$(sql whole.db 'SELECT count(*) FROM threads')
check "with room again: it holds every thread ($threads)" \
	[ "$(sql m.db 'SELECT count(*) FROM threads')" = "$threads" ]
check "with room again: culprit report reads it" sh -c "\"$CULPRIT\" report m.db > /dev/null"

# Replacing a database (--force) on a full disk: the old one stays whole.
cksum < m.db > db-before.txt
limited $((size / 2 / block)) prof -q --force m
status=$?
failed write "full disk while replacing a database"
cksum < m.db > db-after.txt
check "full disk while replacing a database: the old database is untouched" \
	cmp -s db-before.txt db-after.txt

done_testing
