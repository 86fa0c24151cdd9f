#!/bin/sh
# run-bad-input.sh - every bad input gets one clear line and a non-zero
# exit, before the program starts; damaged measurement files are
# diagnosed, never crashed on.
. "${srcdir:-.}/tests/lib.sh"

P=$PROGRAMS/leaves

# expect STATUS PATTERN DESCRIPTION COMMAND...: fails with STATUS, one line
# on stderr matching PATTERN, and the program never ran.
expect 1 "unknown event 'bogus'" "unknown event" "$CULPRIT" run -e bogus -o x1 "$P"
check "unknown event: no directory was made" [ ! -e x1 ]
if [ -e /sys/bus/event_source/devices/cpu ] || [ -e /sys/bus/event_source/devices/cpu_core ]; then
	note "this machine has a hardware PMU: the no-PMU message is not tested"
else
	expect 1 "no hardware PMU" "hardware event without a PMU" "$CULPRIT" run -e cycles -o x2 "$P"
fi
expect 1 "not a valid rate" "bad rate" "$CULPRIT" run -e CPUTIME@fast -o x3 "$P"
expect 1 "unknown time unit" "bad unit" "$CULPRIT" run -e REALTIME@5parsecs -o x3 "$P"
expect 1 "given twice" "duplicate event" "$CULPRIT" run -e CPUTIME -e cputime@f100 -o x3 "$P"
mkdir exists
expect 1 "already exists" "existing output directory" "$CULPRIT" run -o exists "$P"
expect 1 "cannot create output directory" "uncreatable output directory" "$CULPRIT" run -o no/such/parent/dir "$P"
touch plainfile
expect 1 "cannot create output directory" "output path through a file" "$CULPRIT" run -o plainfile/sub "$P"
expect 127 "command not found" "program not on PATH" "$CULPRIT" run -o x4 no-such-program-xyz
expect 127 "No such file or directory" "program path missing" "$CULPRIT" run -o x4 ./no-such-program
printf '#!/bin/sh\necho hi\n' > noexec.sh
expect 126 "Permission denied" "program not executable" "$CULPRIT" run -o x4 ./noexec.sh
expect 126 "Is a directory" "program is a directory" "$CULPRIT" run -o x4 ./exists
check "missing program: no directory left behind" [ ! -e x4 ]
expect 2 "^culprit run: no program given" "no program" "$CULPRIT" run -o x5
# Usage errors name their command, like getopt's.
expect 2 "^culprit run: -o needs a directory name" "empty -o" "$CULPRIT" run -o "" "$P"
expect 2 "^culprit run: unknown --openmp mode 'gnu'" "unknown --openmp mode" "$CULPRIT" run --openmp=gnu -o x5 "$P"
check "usage errors: no directory was made" [ ! -e x5 ]
"$CULPRIT" run --bogus-option > out.txt 2> err.txt
check "unknown option: usage error" [ $? = 2 ]
"$CULPRIT" frobnicate > out.txt 2> err.txt
check "unknown command: usage error" [ $? = 2 ]
# --help alike in every command: the usage on stdout, status 0, nothing
# more, whatever else the command line holds.
for c in run dump scale prof report view export diff; do
	for h in --help -h; do
		"$CULPRIT" "$c" "$h" no-such.db > out.txt 2> err.txt
		status=$?
		check "$c $h: the usage on stdout, status 0, nothing on stderr" \
			sh -c "[ $status = 0 ] && head -n 1 out.txt | grep -q '^usage: culprit $c ' && [ ! -s err.txt ]"
	done
done

# Damaged measurement files.
profile good "$P" 20 > /dev/null
f=$(one_file good/leaves-*-t0.thread)
p=$(one_file good/leaves-*.process)
check "good files dump cleanly" sh -c "\"$CULPRIT\" dump '$f' > /dev/null && \"$CULPRIT\" dump '$p' > /dev/null"
size=$(wc -c < "$f")
expect 2 "^culprit dump: .*is a process file; --tsv, --flat and --trace are for thread files" \
	"dump --tsv of a process file" "$CULPRIT" dump --tsv "$p"

# dump_fails FILE PATTERN DESCRIPTION
dump_fails() {
	"$CULPRIT" dump "$1" > out.txt 2> err.txt
	local got=$?
	check "$3: dump exits 1" [ "$got" = 1 ]
	check "$3: one line naming the problem ('$2')" sh -c "[ \$(wc -l < err.txt) = 1 ] && grep -q '$2' err.txt"
	note "$(cat err.txt)"
}
head -c $((size / 2)) "$f" > truncated.thread
dump_fails truncated.thread "truncated\|past the end" "truncated file"
head -c 20 "$f" > tiny.thread
dump_fails tiny.thread "shorter than the 32-byte header" "file shorter than its header"
cp "$f" flipped.thread
printf '\377' | dd of=flipped.thread bs=1 seek=$((size - 40)) conv=notrunc 2> /dev/null
dump_fails flipped.thread "checksum mismatch" "corrupted byte"
cp "$f" header.thread
printf 'X' | dd of=header.thread bs=1 seek=12 conv=notrunc 2> /dev/null
dump_fails header.thread "header checksum" "corrupted header"
head -c 4096 /dev/urandom > random.thread
dump_fails random.thread "bad magic" "random bytes"
: > empty.thread
dump_fails empty.thread "shorter than" "empty file"
dump_fails /nonexistent/file.thread "cannot open" "missing file"
printf '\211CULPRT\n\002\000\000\000' > newer.thread
head -c 32 /dev/zero >> newer.thread
dump_fails newer.thread "header checksum\|version" "file from a newer culprit"
check "a directory is not a measurement file: status 1, one line" \
	sh -c "\"$CULPRIT\" dump good > dir.out 2> dir.err; [ \$? = 1 ] && [ \$(wc -l < dir.err) = 1 ] && [ ! -s dir.out ]"

# ---- a statically linked program: no dynamic loader, so no collector ------
# Refused before it runs, unless --allow-static, which runs it for the
# dynamically linked programs it starts (a static make or shell).
cat > launch.c <<'EOF_C'
#include <stdio.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	if (argc > 1) {
		execv(argv[1], argv + 1);
		return 127;
	}
	puts("static launcher ran");
	return 3;
}
EOF_C
if ${CC:-cc} -static -o launch launch.c 2> /dev/null; then
	expect 1 "launch is statically linked: culprit cannot load its collector into it" \
		"run on a static program" "$CULPRIT" run -o st ./launch
	check "run on a static program: it did not run, no directory made" [ ! -e st ]
	rc=0
	"$CULPRIT" run --allow-static -o st2 ./launch "$PROGRAMS/leaves" > st2.out 2> st2.err || rc=$?
	check "run --allow-static: the program runs, its status kept (0: leaves' own)" [ "$rc" = 0 ]
	check "run --allow-static: says before it runs that only what it starts is measured" \
		sh -c "head -n 1 st2.err | grep -q 'statically linked: only the dynamically linked programs it starts'"
	check "run --allow-static: the dynamically linked program it exec'd was measured" \
		sh -c "ls st2/leaves-*.process > /dev/null"
else
	skip "a statically linked program" "no static C library to link one with"
fi

done_testing
