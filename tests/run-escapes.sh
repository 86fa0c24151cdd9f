#!/bin/sh
# run-escapes.sh - programs that leave the paths culprit interposes while
# it samples: longjmp and C++ exceptions out of sampled frames, vfork,
# threads and processes made with the raw clone system call, exec of a
# set-user-ID program, and a recursion through a 4 GiB stack.  Each must run as it does plainly, and
# what culprit could see must be right.
. "${srcdir:-.}/tests/lib.sh"

# same_as_plain NAME COMMAND...: COMMAND under culprit (into NAME/) gives
# the output and exit status it gives plainly.
same_as_plain() {
	local name=$1
	shift
	"$@" > $name.plain 2>&1
	local plain=$?
	local rc=0
	timeout 300 "$CULPRIT" run -q -o $name "$@" > $name.out 2> $name.err || rc=$?
	check "$name: exit status $rc, as plainly ($plain)" [ "$rc" = "$plain" ]
	check "$name: the same output as plainly" cmp -s $name.plain $name.out
}

# under_dives FILE: samples at bottom whose path holds at least 25 dive
# frames (dive(24) down to dive(0)), and samples at bottom in all (named
# "dive(int)" and "bottom()" in C++).
under_dives() {
	tsv "$1" | awk -F'\t' '
		NR > 1 { dives[$1] = dives[$2] + ($8 ~ /^dive(\(int\))?$/)
			 if ($8 ~ /^bottom(\(\))?$/) { all += $10; if (dives[$1] >= 25) deep += $10 } }
		END { printf "%d %d\n", deep, all }'
}

# ---- longjmp and exceptions past sampled frames -----------------------------
for mode in longjmp throws; do
	if [ $mode = throws ]; then
		same_as_plain $mode "$PROGRAMS/throws"
	else
		same_as_plain $mode "$PROGRAMS/escapes" longjmp
	fi
	f=$(one_file $mode/*-t0.thread)
	set -- $(under_dives "$f")
	all=$(total "$f")
	note "$mode: $1 of $2 samples at bottom under 25 dives; $all samples"
	check "$mode: bottom holds most of the samples (it does nearly all the work)" \
		at_least "$(percent "$2" "$all")" 80
	check "$mode: ... each under its 25 levels of dive" [ "$1" = "$2" ]
	check "$mode: no unwind stopped early" [ "$(counter "$f" unwind:partial)" = 0 ]
	check "$mode: prof reads it" "$CULPRIT" prof -q $mode
done

# ---- vfork and exec, with a second thread sampled -----------------------------
same_as_plain vfork "$PROGRAMS/escapes" vfork
check "vfork: each child that exec'd /bin/true was measured as its own process" \
	[ "$(ls vfork/true-*.process | wc -l)" = 300 ]
check "vfork: the parent's files are whole and its own" \
	sh -c "\"$CULPRIT\" dump vfork/escapes-*-t0.thread | grep -q '^ended .*by exit'"
check "vfork: the thread beside it was sampled" \
	at_least "$(total "$(one_file vfork/escapes-*-t1.thread)")" 1
check "vfork: prof reads all of it" "$CULPRIT" prof -q vfork

# ---- raw clone: a thread and a process culprit was never told of ----------------
# Neither is sampled (culprit starts sampling a thread in pthread_create and
# a process in fork or exec): the program must not notice, and the
# creator's measurements must stay its own.
same_as_plain clone "$PROGRAMS/escapes" clone
check "clone: only the creating thread has a file" [ "$(ls clone/*.thread | wc -l)" = 1 ]
f=$(one_file clone/*-t0.thread)
check "clone: its own work was sampled at raw_thread" at_least "$(inclusive "$f" raw_thread)" 50
check "clone: the raw thread's work is not counted as the creator's" \
	[ "$(inclusive "$f" cloned_work)" = 0 ]
same_as_plain fork "$PROGRAMS/escapes" fork
check "fork: the raw child's exit status reached the parent (7)" \
	grep -q "raw child exited 7" fork.out
check "fork: one process file, the parent's; the child wrote none over it" \
	[ "$(ls fork/*.process | wc -l)" = 1 ]
f=$(one_file fork/*-t0.thread)
check "fork: the parent's file ended by its own exit" \
	sh -c "\"$CULPRIT\" dump '$f' | grep -q '^ended .*by exit'"
check "fork: the child's work is not in the parent's file" [ "$(inclusive "$f" forked_work)" = 0 ]

# ---- exec of a set-user-ID program -------------------------------------------
# The loader drops LD_PRELOAD for it: culprit must say so as it starts it.
# A copy of leaves, set-user-ID to nobody (needs root to make).
cp "$PROGRAMS/leaves" leaves_suid
nosuid=$(findmnt -no OPTIONS -T . 2> /dev/null | grep -c nosuid)
if [ "$(id -u)" = 0 ] && [ "$nosuid" = 0 ] && chown nobody leaves_suid 2> /dev/null &&
	chmod 4755 leaves_suid && [ -u leaves_suid ]; then
	rc=0
	"$CULPRIT" run -q -o suid env ./leaves_suid > suid.out 2> suid.err || rc=$?
	note "suid: $(cat suid.err)"
	check "suid: it ran, status 0" sh -c "[ $rc = 0 ] && grep -q 'leaves done' suid.out"
	check "suid: culprit says it runs unmeasured, in one line" \
		[ "$(grep -c 'leaves_suid is set-user-ID: the system drops LD_PRELOAD for it, so it runs unmeasured' suid.err)" = 1 ]
	check "suid: ... and it did not measure it" [ -z "$(ls suid | grep '^leaves')" ]
	"$CULPRIT" run -q -o plainexec env "$PROGRAMS/leaves" > /dev/null 2> plainexec.err
	check "suid: an ordinary exec is not warned about, and is measured" \
		sh -c "! grep -q 'set-user-ID' plainexec.err && ls plainexec/leaves-*.process > /dev/null"
else
	skip "exec of a set-user-ID program" "not root, or a nosuid file system: cannot make one"
fi

# ---- a recursion through a 4 GiB stack ----------------------------------------
# 990,000 frames of 4 KB; each sample unwinds 65,536 of them (the depth
# limit), about 10 ms.  Before the handler was throttled the program
# never got anywhere: 120 s for what takes 1.5 s on a 1 GiB stack.  Where
# the machine has less than 8 GiB free, 1 GiB.
gib=4
free_kb=$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo)
[ "${free_kb:-0}" -ge 8388608 ] || gib=1
same_as_plain stack "$PROGRAMS/escapes" stack $gib
f=$(one_file stack/*-t1.thread)
note "stack ($gib GiB): $(counter "$f" signals) signals taken, $(counter "$f" throttled) merged into them, handler $(counter "$f" collector:handler_ns) ns"
check "stack: slow samples were throttled" at_least "$(counter "$f" throttled)" 1
check "stack: culprit run's last line says so" grep -q 'signals merged into later samples' stack.err
check "stack: prof reads a tree 65,536 frames deep" "$CULPRIT" prof -q stack
check "stack: the database counts the throttled signals" \
	at_least "$(sql stack.db "SELECT value FROM measurement_quality WHERE item = 'samples:throttled'")" 1
check "stack: the deepest work is there, below the truncation" \
	at_least "$(sql stack.db "SELECT count(*) FROM contexts WHERE procedure = 'deep_bottom'")" 1
check "stack: the outermost frames are kept (main > deep_stack > deep_thread)" \
	[ "$(sql stack.db "SELECT count(*) FROM contexts c JOIN contexts p ON p.id = c.parent_id
		WHERE c.procedure = 'deep_thread' AND p.procedure = 'deep_stack'")" -ge 1 ]

done_testing
