#!/bin/sh
# run-exits.sh - every way to end: the exit status is the program's own,
# and the measurements of every thread are on disk, also when two threads
# crash at the same moment.
. "${srcdir:-.}/tests/lib.sh"

P=$PROGRAMS/exits
# mode, expected status, expected end of the process file
for c in "return 0 by.exit" "exit 5 by.exit,.status.5" "_exit 6 by._exit,.status.6" \
	 "_Exit 8 by._exit,.status.8" "pthread_exit 0 by.exit" "exec 4 by.exec" \
	 "segv 139 by.signal.11" "abort 134 by.signal.6" "term 143 by.signal.15" \
	 "int 130 by.signal.2" "segv2 139 by.signal.11" "abort2 134 by.signal.6" \
	 "closefds 5 by.exit,.status.5"; do
	set -- $c
	mode=$1 want=$2 end=$3
	"$P" "$mode" > plain.txt 2>/dev/null
	plain=$?
	profile "m-$mode" "$P" "$mode" > out.txt 2>err.txt
	got=$?
	check "$mode: exit status $got is the program's own ($plain)" [ "$got" = "$plain" ]
	check "$mode: status is $want, as a shell reports it" [ "$got" = "$want" ]
	check "$mode: standard output is unchanged" cmp -s plain.txt out.txt
	p=$(one_file "m-$mode"/exits-*-0.process)
	check "$mode: the process file exists" [ -n "$p" ]
	[ -n "$p" ] && check "$mode: the process file says it ended $end" \
		sh -c "\"$CULPRIT\" dump '$p' | grep -Eq 'ended .* ${end}'"
	check "$mode: both threads have files" [ "$(ls "m-$mode"/exits-*-0-t*.thread | wc -l)" = 2 ]
	f=$(one_file "m-$mode"/exits-*-0-t0.thread)
	check "$mode: the main thread's work is recorded" at_least "$(exclusive "$f" main_work)" 5
	for t in "m-$mode"/*.thread; do
		"$CULPRIT" dump "$t" > /dev/null 2>&1 || not_ok "$mode: $t is damaged"
	done
done

# A crash is the first thing the profile of one says.
"$CULPRIT" prof -q m-segv > segv-prof.out 2> segv-prof.err
check "segv: prof says, in one line, that a signal killed the process" \
	sh -c "[ \$(wc -l < segv-prof.err) = 1 ] && grep -q 'killed by signal 11 (SIGSEGV)' segv-prof.err"
"$CULPRIT" report --summary m-segv.db > segv-summary.txt
check "segv: report --summary names the process and the signal" \
	grep -Eq '^  pid [0-9]+: killed by signal 11 \(SIGSEGV\), .*exits segv' segv-summary.txt
"$CULPRIT" prof -q m-exit > exit-prof.out 2> exit-prof.err
"$CULPRIT" report --summary m-exit.db > exit-summary.txt
check "exit: neither says anything of how the process ended" \
	sh -c "! grep -q 'killed' exit-prof.err && ! grep -q 'did not end' exit-summary.txt"

# Two threads crashing together: whichever handler runs second must wait
# for the first to finish writing, every time (before: 0-byte files, 10
# runs out of 10).
for mode in abort2 segv2; do
	whole=0
	for i in 1 2 3 4 5; do
		rm -rf "r-$mode"
		profile "r-$mode" "$P" "$mode" > /dev/null 2>&1
		ok=1
		for t in "r-$mode"/*.thread "r-$mode"/*.process; do
			[ -s "$t" ] && "$CULPRIT" dump "$t" > /dev/null 2>&1 || ok=0
		done
		[ "$(ls "r-$mode"/*.thread 2>/dev/null | wc -l)" = 2 ] || ok=0
		whole=$((whole + ok))
	done
	check "$mode: 5 runs out of 5 leave every file whole ($whole)" [ "$whole" = 5 ]
done

# start_killed NAME: `exits killed` (which works until it is killed) under
# culprit run into NAME/, in the background ($runner), once it has written
# its pid into NAME.pid.  Its standard error goes to NAME.err.
start_killed() {
	"$CULPRIT" run -o "$1" "$P" killed > "$1.pid" 2> "$1.err" &
	runner=$!
	local i=0
	while [ ! -s "$1.pid" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
}

# SIGKILL: nothing can run at the end, so the files are the snapshots the
# threads rewrite about once a second while the program runs.
start_killed killed
sleep 2.5
kill -9 "$(cat killed.pid)"
wait $runner
check "killed: culprit run exits as the program did (137)" [ $? = 137 ]
check "killed: its last line warns that the process did not end normally" \
	sh -c "tail -n 1 killed.err | grep -q 'warning: measurements of 1 process.*did not end normally'"
check "killed: the files are whole snapshots" \
	sh -c "for f in killed/*.thread killed/*.process; do \"$CULPRIT\" dump \"\$f\" | grep -q '^snapshot .*still running' || exit 1; done"
check "killed: no half-written snapshot is left" [ -z "$(ls killed | grep '\.part$')" ]
"$CULPRIT" prof -o killed.db killed 2> killed-prof.err
check "killed: prof reads the snapshots" [ $? = 0 ]
check "killed: ... and says in one line that the process did not end normally" \
	[ "$(grep -c 'did not end normally' killed-prof.err)" = 1 ]
# Killed 2.5 s after it started: every file is a snapshot from at least
# 1 s after the start, i.e. at most 1.5 s before the kill.  (How many
# samples that holds depends on the CPU time the threads got: under load,
# less, and fewer samples per CPU millisecond as timer signals merge.)
oldest=$(for f in killed/*.thread; do "$CULPRIT" dump "$f"; done |
	sed -n 's/^snapshot .*(\([0-9.]*\) s), still running$/\1/p' | sort -n | head -n 1)
note "killed: the oldest thread snapshot is from ${oldest:-?} s after its thread started"
check "killed: the snapshots are from at most 1.5 s before the kill" at_least "${oldest:-0}" 1.0
# ... and with them the trace: the samples over time up to the snapshot.
traced=$(for f in killed/*.thread; do "$CULPRIT" dump "$f"; done |
	sed -n 's/^trace .* over \([0-9.]*\) s in .*/\1/p' | sort -n | head -n 1)
check "killed: each thread's trace covers its run up to its snapshot (${traced:-none} s)" \
	at_least "${traced:-0}" 0.9
samples=$(sql killed.db "SELECT sum(value) FROM thread_counters WHERE name = 'samples'")
cpu_ms=$(sql killed.db "SELECT 1000 * total FROM metrics WHERE event = 'cputime' AND metric = 'work'")
note "killed: $samples samples kept, for $cpu_ms ms of CPU time"
check "killed: ... and hold their samples" at_least "$samples" 100
CULPRIT_SNAPSHOT_MS=0 start_killed nosnap
sleep 1.5
kill -9 "$(cat nosnap.pid)"
wait $runner
check "CULPRIT_SNAPSHOT_MS=0: no snapshots" [ -z "$(ls nosnap 2>/dev/null | grep '\.thread$')" ]

# Power loss: only what reached the disk is kept.  culprit run syncs each
# file the program renames into the directory (a snapshot), then the
# directory.  strace follows both: every rename of a measurement file by
# the program is followed by the driver's fdatasync (or a syncfs) and then
# its fsync of the directory, within 1 s of the driver's own time: the
# time it spent inside sync calls meanwhile (-T), waiting for a slow disk
# to take earlier files, is the disk's, not the driver's delay (typically
# 0.1 s in all; 0.95 s and 1.15 s once each in CI, under ASan, with other
# tests writing).  The program itself never syncs.
if have strace && strace -o /dev/null true 2> /dev/null; then
	strace -f -ttt -T -o synced.st -e trace=execve,rename,renameat,renameat2,fdatasync,fsync,syncfs \
		-e signal=none "$CULPRIT_BIN" run -o synced "$P" killed > synced.pid 2> synced.err &
	runner=$!
	sleep 3.3
	kill -9 "$(cat synced.pid)"
	wait $runner
	verdict=$(awk '
		/execve\(/ && !driver { driver = $1 }	# culprit run itself
		# The driver inside a sync call, [from, to): a line ends with the
		# call'"'"'s duration; a resumed one is printed as the call ends.
		$1 == driver && /(fdatasync|fsync|syncfs)/ && match($0, /<[0-9.]+>$/) {
			t = substr($0, RSTART + 1, RLENGTH - 2) + 0
			from = /resumed>/ ? $2 - t : $2
			if (!/unfinished/) { busy_from[++nb] = from; busy_to[nb] = from + t }
		}
		/rename.*\.(thread|process)"/ && $1 != driver { pending[++n] = $2; renames++ }
		/(fdatasync|syncfs)\(/ && $1 == driver { for (i in pending) if (!(i in data)) data[i] = $2 }
		/fsync\([0-9]+[,)< ]/ && $1 == driver {
			for (i in pending) if (i in data && !(i in dir)) dir[i] = $2 }
		/(fdatasync|fsync|syncfs)\(/ && $1 != driver { program++ }
		END {
			late = 0; worst = 0; wall = 0
			for (i in pending) {
				d = (i in dir) ? dir[i] - pending[i] : 99
				if (d > wall) wall = d
				for (k = 1; k <= nb && d < 99; k++) {
					a = busy_from[k] > pending[i] ? busy_from[k] : pending[i]
					b = busy_to[k] < dir[i] ? busy_to[k] : dir[i]
					if (b > a) d -= b - a
				}
				if (d > 1.0) late++
				if (d > worst) worst = d
			}
			printf "%d %d %.3f %d %.3f\n", renames, late, worst, program, wall
		}' synced.st)
	set -- $verdict
	note "power loss: $1 renames of measurement files, $2 not on disk within 1 s of the driver's own time, the slowest $3 s ($5 s on the wall clock); $4 syncs by the program"
	check "power loss: the program renamed snapshots in" at_least "${1:-0}" 6
	check "power loss: culprit run synced every one within 1 s of its own time (the slowest $3 s)" [ "${2:-1}" = 0 ]
	check "power loss: the program itself never synced" [ "${4:-1}" = 0 ]
	# A user out of inotify instances: the file system every 0.5 s.
	strace -f -ttt -o blind.st -e trace=execve,inotify_init1,syncfs -e signal=none \
		-e inject=inotify_init1:error=EMFILE "$CULPRIT_BIN" run -o blind "$P" killed \
		> blind.pid 2> blind.err &
	runner=$!
	sleep 2.3
	kill -9 "$(cat blind.pid)"
	wait $runner
	rounds=$(grep -c 'syncfs(' blind.st)
	check "power loss: without inotify, the file system is synced every 0.5 s ($rounds times in 2.3 s)" \
		at_least "$rounds" 3
else
	skip "power loss: culprit run syncs the snapshots" "strace cannot trace here"
fi

# The measurement directory removed while the program runs: the program
# is not disturbed, and culprit run says in one line what was lost.
start_killed gone
rm -rf gone
sleep 1.5
kill -TERM "$(cat gone.pid)"
wait $runner
check "directory removed: the program ends as it would (143)" [ $? = 143 ]
check "directory removed: culprit run's last line says the measurements are lost" \
	sh -c "tail -n 1 gone.err | grep -q 'warning: the measurement directory gone cannot be read (No such file or directory): the run.s measurements are lost'"
check "directory removed: the collector said once what it could not write" \
	[ "$(grep -c 'cannot write' gone.err)" = 1 ]

# ---- a full disk ------------------------------------------------------------
# A 256 KiB file system (tmpfs, which needs root).  `escapes fill` runs a
# thread that works and ends (its file is written), then fills the file
# system and exits: its main thread's file cannot be written, and its
# process file, which the others cannot be read without, goes into the
# space the collector set aside for it as the program started.
mkdir -p full
if mount -t tmpfs -o size=256k,mode=0700 tmpfs full 2> /dev/null; then
	rc=0
	"$CULPRIT" run -q -o full/m "$PROGRAMS/escapes" fill full > full.out 2> full.err || rc=$?
	note "full disk: $(tr '\n' ' ' < full.err)"
	check "full disk: the program's status is its own (0, it is $rc)" [ "$rc" = 0 ]
	check "full disk: ... and so is its output" grep -q 'escapes fill: the disk is full' full.out
	check "full disk: culprit names the file it could not write, and why, once" \
		[ "$(grep -c '^culprit: cannot write .*full/m/escapes-.*-t0.thread: No space left on device' full.err)" = 1 ]
	check "full disk: the process file went into the space set aside for it" \
		grep -q '^culprit: the disk is full: .*full/m/escapes-.*\.process was written into the space set aside for it' full.err
	check "full disk: culprit run's last line warns of the file not written" \
		sh -c "tail -n 1 full.err | grep -q 'warning: measurements of .*files damaged'"
	check "full disk: no spare file is left behind" [ -z "$(ls -A full/m | grep spare)" ]
	"$CULPRIT" prof -q -o full.db full/m > full-prof.out 2> full-prof.err
	check "full disk: prof reads the worker's file, with that process file" \
		[ "$(sql full.db "SELECT count(*) FROM threads")" = 1 ]
	check "full disk: the database counts the main thread's file as missing" \
		[ "$(sql full.db "SELECT value FROM measurement_quality WHERE item = 'threads:missing'")" = 1.0 ]
	check "full disk: ... and the worker's work is all there (at fill_worker)" \
		at_least "$(sql full.db "SELECT round(100 * sum(m.inclusive) / (SELECT total FROM metrics
			WHERE event = 'cputime' AND metric = 'work'))
			FROM context_metrics m JOIN contexts c ON c.id = m.context_id
			WHERE c.procedure = 'fill_worker' AND m.event = 'cputime' AND m.metric = 'work'")" 95
	umount full
else
	skip "a full disk" "cannot mount a small tmpfs here (not root?)"
fi

# A process killed with SIGKILL leaves its hidden spare; culprit run
# removes it.
start_killed spare
check "spare: the program sets space aside as it starts" \
	sh -c "ls -A spare | grep -q '^\.exits-.*\.process\.spare$'"
kill -9 "$(cat spare.pid)"
wait $runner
check "spare: culprit run removed it after a SIGKILL" [ -z "$(ls -A spare | grep spare)" ]

done_testing
