#!/bin/sh
# run-runtime-api.sh - a custom runtime declares its workers and tasks
# through include/culprit/culprit.h: idleness is blamed as declared, tasks
# sit under the code that spawned them, and without culprit the stub
# library does nothing.  Then the API as a user gets it: installed, found
# by pkg-config, and the example built with it.
. "${srcdir:-.}/tests/lib.sh"
have sqlite3 || skip_all "the sqlite3 program is not installed"

"$PROGRAMS/api_pool" 1000 > plain.out
check "api: without culprit the program runs on the stub library" grep -q "api_pool done" plain.out

profile_e m CPUTIME@f2000 "$PROGRAMS/api_pool" > out.txt
check "api: under culprit the program runs" grep -q "api_pool done" out.txt
prof m
db=m.db
total=$(sql $db "SELECT total FROM metrics WHERE event = 'cputime' AND metric = 'work'")
for phase in balanced_phase serial_phase lock_phase nested_phase; do
	eval "${phase}_work=$(pm $db $phase work)"
	eval "${phase}_idle=$(pm $db $phase idleness)"
	note "$phase: work $(pm $db $phase work) s, idleness $(pm $db $phase idleness) s"
	# Each phase is a quarter of the work: its tasks are placed under it.
	check "api: $phase's tasks are under it: a quarter of all work, within 0.04" \
		near "$(ratio "$(pm $db $phase work)" "$total")" 0.25 0.04
done
check "api: the task of serial_phase is charged the waiting worker: idleness = work, within 15%" \
	near "$(ratio "$serial_phase_idle" "$serial_phase_work")" 1 0.15
check "api: declared CULPRIT_WAIT_SERIAL: all of it idleness:serial" \
	at_least "$(ratio "$(pm $db serial_phase idleness:serial)" "$serial_phase_idle")" 0.95
check "api: the task of lock_phase likewise, within 15%" \
	near "$(ratio "$lock_phase_idle" "$lock_phase_work")" 1 0.15
check "api: declared CULPRIT_WAIT_LOCK: all of it idleness:lock" \
	at_least "$(ratio "$(pm $db lock_phase idleness:lock)" "$lock_phase_idle")" 0.95
# Two tasks at once: idleness only where the program's tasks, timing
# themselves, saw one worker wait for the other.
truth=$(awk '/^balanced idle/ { print $3 }' out.txt)
note "balanced_phase: the program's workers waited $truth s"
# A CPU-time event sees no samples while the working thread is off its
# CPU, so on a busy machine culprit's share runs a little under the
# wall-clock wait: 15%, or 2% of the tasks' work.
check "api: two tasks at once: idleness is what the tasks' own clocks say, within 15% or 2% of their work" \
	within "$balanced_phase_idle" "$truth" 0.15 "$(awk -v w="$balanced_phase_work" 'BEGIN { print 0.02 * w }')"
check "api: a task's task is under the task that spawned it" \
	at_least "$(ratio "$(pm $db spawner work)" "$nested_phase_work")" 0.98
check "api: the workers' own frames are not on the tasks' paths" \
	below "$(ratio "$(pm $db pool_worker work)" "$total")" 0.01
check "api: all work has its path from main" \
	at_least "$(ratio "$(pm $db main work)" "$total")" 0.99

# As users get it: installed, through pkg-config.
: "${BUILDDIR:?run the tests through make check}"
if ! have pkg-config cc; then
	skip "api: installed, the example builds through pkg-config" "pkg-config or cc is not installed"
elif (cd "$BUILDDIR" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
	make -s install DESTDIR="$WORK/inst" > "$WORK/install.log" 2>&1); then
	ok "api: make install"
	pc=$(find inst -name culprit.pc | head -n 1)
	check "api: installs culprit.pc" [ -n "$pc" ]
	export PKG_CONFIG_PATH="$WORK/${pc%/*}"
	libdir=$WORK/inst$(pkg-config --variable=libdir culprit)
	incdir=$WORK/inst$(pkg-config --variable=includedir culprit)
	export PKG_CONFIG_SYSROOT_DIR="$WORK/inst"	# for --cflags and --libs
	check "api: installs the header, the stub library and its development link" \
		test -f "$incdir/culprit/culprit.h" -a -f "$libdir/libculprit-api.so.0" \
		-a -L "$libdir/libculprit-api.so"
	flags=$(pkg-config --cflags --libs culprit)
	note "pkg-config --cflags --libs culprit: $flags"
	# shellcheck disable=SC2086
	if cc -O1 -g -o pool "$srcdir/examples/runtime/pool.c" $flags -pthread 2> cc.err; then
		ok "api: the example builds with pkg-config's flags"
		check "api: the example runs on the installed stub library" \
			sh -c "LD_LIBRARY_PATH='$libdir' ./pool 1000 | grep -q 'pool done'"
	else
		not_ok "api: the example builds with pkg-config's flags: $(grep error cc.err | head -n 1)"
	fi
else
	not_ok "api: make install: $(tail -n 1 "$WORK/install.log")"
fi

done_testing
