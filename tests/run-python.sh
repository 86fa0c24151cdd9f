#!/bin/sh
# run-python.sh - CPython's functions in the logical call path
# (unwind-plugins/python): scripts in tests/programs that know their own
# answer (a leaf split 1:3 between two callers, timed on the script's own
# clock; lines marked "# call: NAME"), threads that contend for the GIL, a
# multiprocessing pool started by fork and by spawn, NumPy under a known
# line, and an interpreter whose layout the plugin does not read.
. "${srcdir:-.}/tests/lib.sh"
have sqlite3 || skip_all "the sqlite3 program is not installed"
PY=${CULPRIT_TEST_PYTHON:-/usr/bin/python3}
[ -x "$PY" ] || PY=$(command -v python3) || skip_all "no python3"
version=$("$PY" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
case $version in 3.11|3.12|3.13) ;; *) skip_all "python3 is $version; the plugin reads 3.11 to 3.13" ;; esac
S="$srcdir/tests/programs"
call_line() {
	grep -n "# call: $2\$" "$S/$1" | cut -d: -f1
}
# work PROCEDURE [METRIC]: the inclusive value of METRIC (work) at the
# outermost frames of PROCEDURE in t.db.
value() {
	sql "$1" "SELECT coalesce(sum(m.inclusive), 0) FROM contexts c JOIN context_metrics m
		ON m.context_id = c.id WHERE c.kind = 'frame' AND c.procedure = '$2'
		AND m.metric = '${3:-work}' AND m.event = 'cputime' AND NOT EXISTS (SELECT 1 FROM
		context_paths p WHERE p.id = c.parent_id AND p.path LIKE '%> $2 >%')"
}
root() {
	sql "$1" "SELECT coalesce(sum(m.inclusive), 0) FROM contexts c JOIN context_metrics m
		ON m.context_id = c.id WHERE c.parent_id IS NULL AND m.metric = '$2'
		AND m.event = 'cputime'"
}

# ---- a leaf split 1:3 ---------------------------------------------------------
"$CULPRIT" run -q -o split "$PY" "$S/py_split.py" 2 > split.out 2> split.err
status=$?
check "split: the script ran under culprit, quietly" \
	sh -c "[ $status = 0 ] && grep -q '^three cpu' split.out && [ ! -s split.err ]"
prof split
one=$(value split.db one)
three=$(value split.db three)
share=$(percent "$one" "$(awk -v a="$one" -v b="$three" 'BEGIN { print a + b }')")
want=$(awk '$1 == "one" { sub("%", "", $3); print $3 }' split.out)
note "split: one has $share% of one and three, the script timed $want%"
check "split: one's share of the work is what the script timed, within 4 points" near "$share" "$want" 4
leafpath=$(sql split.db "SELECT p.path FROM contexts c JOIN context_paths p ON p.id = c.id
	WHERE c.kind = 'frame' AND c.procedure = 'leaf' AND p.path LIKE '%three%'")
note "split: $leafpath"
check "split: leaf is under three's line that calls it, under main, under the module" \
	sh -c "echo '$leafpath' | grep -q '<module> > .*py_split.py:[0-9]* > main > .*py_split.py:[0-9]* > three > .*py_split.py:$(call_line py_split.py three) > leaf\$'"
lines=$(sql split.db "SELECT group_concat(DISTINCT line) FROM contexts WHERE kind = 'statement' AND procedure = 'leaf'")
check "split: leaf's statements are its loop's lines ($lines)" \
	sh -c "[ -n '$lines' ] && for l in \$(echo $lines | tr , ' '); do [ \$l -ge 10 ] && [ \$l -le 12 ] || exit 1; done"
check "split: the frames name their file" \
	[ "$(sql split.db "SELECT count(*) FROM contexts WHERE procedure = 'three' AND file LIKE '%/py_split.py'")" -ge 2 ]
eval_left=$(sql split.db "SELECT count(*) FROM contexts WHERE procedure = '_PyEval_EvalFrameDefault'")
check "split: no evaluation loop frames are left ($eval_left)" [ "$eval_left" = 0 ]
check "split: the thread file names the functions (dump)" \
	sh -c "\"$CULPRIT\" dump split/*.thread | grep -q '^logical .*three in .*py_split.py:19'"

# Turned off: the native frames, as before.
CULPRIT_PYTHON=0 "$CULPRIT" run -q -o off "$PY" "$S/py_split.py" 0.5 > /dev/null
prof off
n3=$(sql off.db "SELECT count(*) FROM contexts WHERE procedure = 'three'")
neval=$(sql off.db "SELECT count(*) FROM contexts WHERE procedure = '_PyEval_EvalFrameDefault'")
check "CULPRIT_PYTHON=0: no Python frames ($n3), the evaluation loop's native ones ($neval)" \
	[ "$n3" = 0 -a "$neval" -gt 0 ]

# ---- threads and the GIL --------------------------------------------------------
"$CULPRIT" run -q -o gil "$PY" "$S/py_gil.py" 1.5
prof gil
work=$(root gil.db work)
gil=$(root gil.db idleness:gil)
r=$(ratio "$gil" "$work")
note "gil: work $work s, idleness:gil $gil s ($r of the work)"
# Two threads of Python: while one runs, the other waits for the GIL.
# Less on a busy machine: a waiter woken to take the GIL is runnable, not
# idle, until a CPU is free for it (0.82 to 0.95 with another process
# busy beside the test; 0.98 to 1.0 on a quiet machine).
check "gil: the GIL's idleness is about the work, one thread waiting while one runs ($r)" \
	at_least "$r" 0.5
check "gil: ... and not more than the work ($r)" below "$r" 1.15
spin_gil=$(value gil.db spin idleness:gil)
check "gil: it is blamed on the Python code that held the GIL (spin: $spin_gil of $gil s)" \
	at_least "$(ratio "$spin_gil" "$gil")" 0.8
spinpath=$(sql gil.db "SELECT p.path FROM contexts c JOIN context_paths p ON p.id = c.id
	WHERE c.kind = 'frame' AND c.procedure = 'spin' LIMIT 1")
note "gil: $spinpath"
check "gil: a thread's Python frames are under the Python line that started it" \
	sh -c "echo '$spinpath' | grep -q '<module> > .*py_gil.py:[0-9]* > Thread.start > .* > worker > .* > spin\$'"
"$CULPRIT" report --summary gil.db > gil.txt
check "report: the summary names the GIL" grep -q "waiting for the Python GIL" gil.txt
# The main thread's Thread.join waits on a Python lock: a join (which the
# free CPU goes to last), not lock contention.
joinwait=$(sql gil.db "SELECT cause || ' ' || round(seconds, 2) FROM waits WHERE kind = 'semaphore'
	ORDER BY seconds DESC LIMIT 1")
check "gil: main's Thread.join is a join wait ($joinwait), and no lock idleness ($(root gil.db idleness:lock) s)" \
	sh -c "[ '${joinwait%% *}' = join ] && [ \"\$(awk -v v='$(root gil.db idleness:lock)' 'BEGIN { print (v < 0.01) }')\" = 1 ]"
# Three threads: two wait for the GIL while one runs, the main thread
# waits to join them.  The diagnosis names the GIL.
"$CULPRIT" run -q -o gil3 "$PY" "$S/py_gil.py" 1 3
prof gil3
"$CULPRIT" report --diagnose gil3.db > diag.txt
note "gil3: $(grep -E '^ *1\. ' diag.txt); idleness by cause: $(sql gil3.db "SELECT group_concat(metric || ' ' || round(total, 3), ', ') FROM metrics WHERE event = 'cputime' AND metric LIKE 'idleness:%' AND total > 0")"
check "report --diagnose: spin is GIL-bound" grep -q '^ 1\. GIL-bound: spin ' diag.txt
# Wall-clock samples see the waiting thread: the timeline marks its waits.
"$CULPRIT" run -q -e REALTIME@2ms -o gilw "$PY" "$S/py_gil.py" 1
prof gilw
waits=$(sql gilw.db "SELECT count(*) FROM trace WHERE state = 'idle:gil'")
check "gil: the trace has the waits for the GIL ($waits samples)" [ "$waits" -gt 50 ]
"$CULPRIT" report --timeline gilw.db > tl.txt
check "report --timeline: g marks them" grep -q '|.*g.*|' tl.txt

# ---- frames that cannot be read ------------------------------------------------------
"$CULPRIT" run -q -o fault "$PY" "$S/py_fault.py" > fault.out
status=$?
check "unreadable frames: the program runs to its end, status 0" \
	[ "$status" = 0 -a "$(tail -n 1 fault.out)" = done ]
check "unreadable frames: the thread's signal mask is as it was" grep -qx 'mask kept' fault.out
main=$(ls fault/*-t0.thread | head -n 1)
faults=$(counter "$main" logical:faults)
samples=$(counter "$main" samples)
note "unreadable frames: $faults faults caught, $samples samples in the main thread"
check "unreadable frames: the faults were caught ($faults)" [ "${faults:-0}" -gt 0 ]
# 0.8 s of spinning at 1000 samples a second: sampling went on after.
check "unreadable frames: the thread was sampled to the end ($samples samples)" \
	[ "${samples:-0}" -gt 600 ]

# ---- a multiprocessing pool --------------------------------------------------------
plain=$("$PY" "$S/py_pool.py" fork)
for method in fork spawn; do
	"$CULPRIT" run -q -o pool-$method "$PY" "$S/py_pool.py" $method > pool-$method.out
	status=$?
	check "pool ($method): status 0 and the output of a plain run" \
		[ "$status" = 0 -a "$(cat pool-$method.out)" = "$plain" ]
	prof pool-$method 2> pool-$method.err
	# The pool's terminate() sends SIGTERM to workers that may be
	# writing their files as they exit.
	check "pool ($method): every process's files are whole" \
		sh -c "! grep -Eq 'damaged|truncated|skipped' pool-$method.err"
	w=$(value pool-$method.db square_sum)
	all=$(root pool-$method.db work)
	np=$(sql pool-$method.db "SELECT count(*) FROM processes")
	note "pool ($method): $np processes, square_sum $w of $all s"
	check "pool ($method): the workers' Python function has most of the work" \
		at_least "$(ratio "$w" "$all")" 0.6
	check "pool ($method): three processes or more" [ "$np" -ge 3 ]
done

# ---- NumPy under a known line ---------------------------------------------------------
if "$PY" -c 'import numpy' 2> /dev/null; then
	# One BLAS thread: the product runs on the thread that asks for it.
	OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 \
		"$CULPRIT" run -q -o np "$PY" "$S/py_numpy.py" 1.5
	prof np
	at=$(call_line py_numpy.py product)
	below_line=$(sql np.db "SELECT coalesce(sum(m.inclusive), 0) FROM contexts c JOIN context_metrics m
		ON m.context_id = c.id WHERE c.kind = 'callsite' AND c.procedure = 'product'
		AND c.line = $at AND m.metric = 'work' AND m.event = 'cputime'")
	all=$(root np.db work)
	note "numpy: $below_line of $all s under py_numpy.py:$at"
	check "numpy: the matrix product's time is under the Python line that asks for it" \
		at_least "$(ratio "$below_line" "$all")" 0.6
	native=$(sql np.db "SELECT count(*) FROM contexts c JOIN context_paths p ON p.id = c.id
		WHERE c.kind = 'frame' AND (c.module LIKE '%numpy%' OR c.module LIKE '%blas%')
		AND p.path LIKE '%py_numpy.py:$at >%'")
	check "numpy: NumPy's native frames are below that line ($native)" [ "$native" -gt 0 ]
else
	skip "numpy: the matrix product under its line" "python3-numpy is not installed"
fi

# ---- a CPython the plugin does not read ----------------------------------------------
"$CULPRIT" run -q -o fake "$PROGRAMS/fake_python" > fake.out 2> fake.err
status=$?
check "unknown layout: the program runs as it would" [ "$status" = 0 -a "$(cat fake.out)" = 42 ]
check "unknown layout: one line says the plugin is off, and why" \
	sh -c "[ \$(wc -l < fake.err) = 1 ] && grep -q 'CPython 3.99: its frame layout is not one this culprit reads' fake.err"
note "$(cat fake.err)"

# ---- the layout against the interpreter's own headers -------------------------------
inc=$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
if [ -f "$inc/internal/pycore_frame.h" ]; then
	${CC:-cc} -I"$inc" -I"$srcdir/unwind-plugins/python" -o py_layout "$S/py_layout.c" 2> layout.err
	check "py_layout.c builds against $inc's headers" [ $? = 0 ]
	./py_layout > layout.txt
	check "layout.h agrees with $inc's headers" [ $? = 0 ]
	note "$(cat layout.txt layout.err)"
else
	skip "layout.h against the installed headers" "no internal headers for $PY (python3-dev)"
fi
done_testing
