#!/bin/sh
# run-golden.sh - culprit prof, report and dump of a fixed measurement
# directory, compared byte for byte with the committed outputs in
# tests/golden/expected/.
#
# The measurements come from tests/golden/fixture.c, whose addresses are
# in the committed ELF files of tests/golden/elf/: nothing depends on the
# machine, the time or the compiler.  Each expected file is a command's
# standard output, then its standard error after a "--- stderr" line and
# its exit status after "--- exit status" when they are not empty and 0;
# the paths of tests/golden/elf/ read @ELF@.  On a difference the diff is
# shown.  To accept new outputs: tests/golden/regen.sh (see tests/README.md).
. "${srcdir:-.}/tests/lib.sh"

golden=$srcdir/tests/golden
expected=$golden/expected
elf=$golden/elf
fixture=${BUILDDIR:-.}/tests/golden/fixture
regen=${GOLDEN_REGEN:-}
# dump prints times in the local zone; the reports' order of equal names
# must not depend on the locale.
TZ=UTC LC_ALL=C
export TZ LC_ALL

[ -x "$fixture" ] || skip_all "tests/golden/fixture is not built (make check builds it)"
mkdir golden got
check "fixture: the measurement directory is written" "$fixture" "$elf/app" "$elf/libomp.so.5" golden
check "fixture: a process file and three thread files" \
	[ "$(ls golden | grep -c '\.process$')/$(ls golden | grep -c '\.thread$')" = 1/3 ]

# normalize: the committed ELF files' directory, wherever the source tree
# is, and the sizes of the sections that hold it (a process file's
# identity and module list) in dump's list of sections.
normalize() {
	awk -v from="$elf" '{ while ((i = index($0, from)) > 0)
		$0 = substr($0, 1, i - 1) "@ELF@" substr($0, i + length(from))
		if ($1 == "sections") { gsub(/IDNT\([0-9]+\)/, "IDNT(@)"); gsub(/MODS\([0-9]+\)/, "MODS(@)") }
		print }'
}

# golden NAME COMMAND...: COMMAND's output is expected/NAME.
golden() {
	local name=$1 st
	shift
	"$@" > out.txt 2> err.txt
	st=$?
	{
		cat out.txt
		if [ -s err.txt ]; then echo "--- stderr"; cat err.txt; fi
		if [ "$st" != 0 ]; then echo "--- exit status $st"; fi
	} | normalize > "got/$name"
	if [ -n "$regen" ]; then
		cp "got/$name" "$expected/$name" && ok "$name: regenerated"
		return
	fi
	if [ ! -f "$expected/$name" ]; then
		not_ok "$name: no expected output (tests/golden/regen.sh makes it)"
	elif diff -u "$expected/$name" "got/$name" > diff.txt; then
		ok "$name is as expected"
	else
		not_ok "$name differs from tests/golden/expected/$name"
		sed 's/^/# /' diff.txt | head -n 80
	fi
}

if [ -n "$regen" ]; then
	rm -f "$expected"/*
	mkdir -p "$expected"
fi

# prof: its warnings (a library that is gone) and the database.  -j 2 on
# any machine; the summary line (-q) would say how long it took.
golden prof.txt "$CULPRIT" prof -q -j 2 golden
check "prof wrote golden.db" [ -s golden.db ]

# report: every view, text and CSV, and the options that change them.
golden report-top-down.txt "$CULPRIT" report golden.db
golden report-top-down-all.txt "$CULPRIT" report --threshold=0 golden.db
golden report-top-down.csv "$CULPRIT" report --threshold=0 --format=csv golden.db
golden report-top-down-depth3.txt "$CULPRIT" report --depth=3 golden.db
golden report-top-down-threshold.txt "$CULPRIT" report --threshold=0.1 golden.db
golden report-callers.txt "$CULPRIT" report --view=callers golden.db
golden report-callers-depth2.txt "$CULPRIT" report --view=callers --depth=2 --threshold=0 golden.db
golden report-callers.csv "$CULPRIT" report --view=callers --threshold=0 --format=csv golden.db
golden report-flat.txt "$CULPRIT" report --view=flat golden.db
golden report-flat.csv "$CULPRIT" report --view=flat --threshold=0 --format=csv golden.db
golden report-summary.txt "$CULPRIT" report --summary golden.db
golden report-summary.csv "$CULPRIT" report --summary --format=csv golden.db
golden report-diagnose.txt "$CULPRIT" report --diagnose golden.db
golden report-diagnose.csv "$CULPRIT" report --diagnose --format=csv golden.db
golden report-realtime.txt "$CULPRIT" report --event=realtime --threshold=0 golden.db
golden report-realtime-summary.txt "$CULPRIT" report --event=realtime --summary golden.db
golden report-idleness.txt "$CULPRIT" report --metric=idleness --threshold=0 golden.db
golden report-idleness-flat.txt "$CULPRIT" report --metric=idleness:barrier --view=flat golden.db
golden report-overhead-callers.txt "$CULPRIT" report --metric=overhead --view=callers golden.db
golden report-samples.txt "$CULPRIT" report --metric=samples golden.db
golden report-bad-metric.txt "$CULPRIT" report --metric=bogus golden.db
golden report-bad-event.txt "$CULPRIT" report --event=cycles golden.db

# dump: each file, and each form.
golden dump-process.txt "$CULPRIT" dump golden/app-4242-0.process
golden dump-t0.txt "$CULPRIT" dump golden/app-4242-0-t0.thread
golden dump-t1.txt "$CULPRIT" dump golden/app-4242-0-t1.thread
golden dump-t2.txt "$CULPRIT" dump golden/app-4242-0-t2.thread
golden dump-t0.tsv "$CULPRIT" dump --tsv golden/app-4242-0-t0.thread
golden dump-t2-flat.txt "$CULPRIT" dump --flat golden/app-4242-0-t2.thread
golden dump-t1-raw.txt "$CULPRIT" dump --raw golden/app-4242-0-t1.thread

# The database itself: schema and every row, in a fixed order, without
# the time it was made; the documented views whose rows are the stored
# tables' values under their names (contexts, context_metrics,
# context_thread_metrics) too.
database() {
	sqlite3 -batch golden.db .schema || return 1
	for t in $(sqlite3 -batch golden.db \
			"select name from sqlite_master where type = 'table' or name in
			 ('contexts', 'context_metrics', 'context_thread_metrics')
			 order by name"); do
		n=$(sqlite3 -batch golden.db "select count(*) from pragma_table_info('$t')")
		order=$(seq -s, 1 "$n")
		echo "-- $t"
		sqlite3 -batch golden.db "select * from $t order by $order" |
			grep -v '^created|'
	done
}
if command -v sqlite3 > /dev/null; then
	golden database.txt database
else
	skip "database.txt" "the sqlite3 program is not installed"
	: > got/database.txt	# not stale: only not checked here
fi

# Every expected file belongs to a command above.
if [ -z "$regen" ]; then
	stale=$(cd "$expected" && for f in *; do [ -e "$WORK/got/$f" ] || echo "$f"; done)
	check "every expected output has its command${stale:+ (not: $stale)}" [ -z "$stale" ]
fi

done_testing
