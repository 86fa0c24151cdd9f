#!/bin/sh
# run-view.sh - culprit view, driven in tmux as a person would: keys are
# sent, the pane is captured, and the checks read what is on the screen.
. "${srcdir:-.}/tests/lib.sh"
have sqlite3 || skip_all "the sqlite3 program is not installed"

command -v tmux > /dev/null || skip_all "tmux is not installed"

# A server of our own, so that nothing of the user's is touched.
TMUX_CMD="tmux -L culprit-test-$$ -f /dev/null"
trap '$TMUX_CMD kill-server 2> /dev/null; rm -rf "$WORK"' EXIT
unset TMUX

# start NAME COLS ROWS COMMAND: runs COMMAND in a new session, then keeps
# the pane open to read what it left behind.
start() {
	$TMUX_CMD new-session -d -s "$1" -x "$2" -y "$3" \
		"TERM=screen; export TERM; $4; echo EXIT=\$?; sleep 600"
}
screen() {
	$TMUX_CMD capture-pane -t "$1" -p
}
keys() {
	s=$1
	shift
	$TMUX_CMD send-keys -t "$s" "$@"
}
# wait_for SESSION TEXT [-e]: until TEXT (a grep -E pattern) is on the
# screen, for at most 10 s; with -e, on the screen with its attributes as
# escape sequences.
wait_for() {
	i=0
	while [ $i -lt 100 ]; do
		$TMUX_CMD capture-pane -t "$1" -p ${3:-} | grep -Eq -- "$2" && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}
esc=$(printf '\033')

profile_e c CPUTIME@f2000 "$PROGRAMS/callers" 400 > /dev/null
prof c

# ---- open, the hot path, details --------------------------------------------
start a 100 30 "'$CULPRIT' view c.db"
check "view: opens with the title, the views and the program root" \
	wait_for a "culprit c\.db.* 1 calling context  2 callers  3 flat .*\? help"
check "view: the first screen has the program root, expanded" wait_for a "- <program root>"
check "view: it opens on the hot path, at main, where the work splits" \
	wait_for a "^$esc\[(0;)?7m.*main" -e
screen a > hot.txt
hv=$(awk '/\+ heavy_caller/ { sub(/%.*/, "", $1); s += $1 } END { print s }' hot.txt)
note "heavy_caller's inclusive work: $hv% of effort (two call sites)"
check "view: main's children: heavy_caller has 3/4 of the work (75% within 8)" near "${hv:-0}" 75 8
keys a j H
check "view: H on heavy_caller follows it down to kernel" \
	sh -c "$(cat <<EOF
i=0; while [ \$i -lt 50 ]; do
	$TMUX_CMD capture-pane -t a -p > hot2.txt
	grep -q 'hot path: [0-9]* levels* down' hot2.txt && grep -q -- '- heavy_caller' hot2.txt &&
	grep -q -- '- kernel' hot2.txt && exit 0
	sleep 0.1; i=\$((i + 1)); done; exit 1
EOF
)"
keys a d
check "view: d opens the details: the path, where, why, per-thread values" \
	sh -c "$(cat <<EOF
i=0; while [ \$i -lt 50 ]; do
	$TMUX_CMD capture-pane -t a -p > det.txt
	grep -q '^ details' det.txt && grep -q '^ path  <program root> > main' det.txt &&
	grep -q '^ where ' det.txt && grep -q '^ why ' det.txt && grep -q 'per thread: mean' det.txt && exit 0
	sleep 0.1; i=\$((i + 1)); done; exit 1
EOF
)"
check "view: the details show a bar per thread" wait_for a "#+ +[0-9.]+"

# ---- callers ----------------------------------------------------------------
keys a d 2
check "view: 2 switches to the callers view" wait_for a "procedure, and who called it"
keys a / k e r n e l Enter
check "view: / finds kernel in the callers view" wait_for a "\"kernel\" found"
keys a Enter
check "view: Enter expands kernel's callers with their shares" \
	wait_for a "(7[0-9]|8[0-2])\.[0-9]% from heavy_caller"
check "view: ... and the light caller's" wait_for a "(1[8-9]|2[0-9]|3[0-2])\.[0-9]% from light_caller"

# ---- search in the calling-context view, and the source -----------------------
keys a 1 / l i g h t _ c a l l e r Enter
check "view: / in the calling-context view reveals the match" wait_for a "match 1 of [0-9]+ for \"light_caller\""
screen a > found.txt
check "view: ... expanded down to light_caller" grep -q "light_caller" found.txt
keys a s
check "view: s shows the source around the selected procedure" \
	wait_for a "double light_caller\(long n\)"
check "view: ... with the value of its lines beside them" wait_for a "[0-9]\.[0-9]%  +[0-9]+[> ] "

# ---- the flat view, columns, sorting, the filter -------------------------------
keys a s 3 / w o r k _ u n i t s Enter Enter
check "view: 3 shows the flat view; a procedure expands to its lines" \
	wait_for a "line work\.h:[0-9]+"
keys a 1 %
check "view: % shows values instead of percentages" wait_for a "cells show values"
keys a c j Space Enter
check "view: c chooses columns: work, exclusive, added" wait_for a "work E +idle I"
keys a %
keys a ">"
check "view: > sorts by the next column" wait_for a "sorted by work \(exclusive\)"
check "view: ... marked in the headings" wait_for a "\*work E"
keys a "<" f 5 0 Enter
check "view: f hides rows below a share of effort" wait_for a "hiding rows below 50% of effort"
screen a > filtered.txt
check "view: ... so light_caller (25%) is hidden" \
	has_not filtered.txt "hiding rows below 50% of effort" "light_caller"
keys a f 0 Enter

# ---- resize, help, quit -------------------------------------------------------
$TMUX_CMD resize-window -t a -x 80 -y 24
# Until the viewer redraws, the pane holds the 100-column title cut short.
check "view: resized to 80x24, it redraws its title to fit" \
	wait_for a "^ culprit c\.db.{0,61}\? help\$"
keys a s
check "view: in 80x24 the title still lists the views and help" wait_for a "1 calling context  2 callers  3 flat  \? help"
screen a > small.txt
check "view: nothing is drawn past 80 columns" fits small.txt 80 "1 calling context  2 callers"
check "view: ... and 24 rows" [ "$(wc -l < small.txt)" -le 24 ]
keys a "?"
check "view: ? lists every key" wait_for a "culprit view: keys"
keys a x q
check "view: q quits with status 0" wait_for a "^EXIT=0$"
screen a > after.txt
check "view: the terminal is restored (no viewer left on the screen)" \
	has_not after.txt "^EXIT=0$" "calling context"

# ---- mouse -----------------------------------------------------------------------
start m 100 30 "'$CULPRIT' view c.db"
wait_for m "<program root>"
# An X10 mouse report: a press and a release of button 1 on the fifth row
# (y 4, x 40; 33 added to each): main's first child, heavy_caller, while
# the view opened with main selected.
$TMUX_CMD send-keys -t m -H 1b 5b 4d 20 49 25 1b 5b 4d 23 49 25
# A click is reported once no second one came within the viewer's mouse
# interval (250 ms): the row shows selected (reverse video) after that.
check "view: a click selects the row" wait_for m "^$esc\[(0;)?7m.*heavy_caller" -e
$TMUX_CMD send-keys -t m -H 1b 5b 4d 20 49 25 1b 5b 4d 23 49 25
check "view: clicking a selected row expands it" wait_for m "- heavy_caller"
keys m q

# ---- a deep recursion: the tree shifts, parent and child never share a column -------
"$CULPRIT" run -q -o deep "$PROGRAMS/recurse" 60 100000000 > /dev/null
prof deep
start dp 100 30 "'$CULPRIT' view deep.db"
check "view: a deep recursion opens on its hot path, down to the leaf" wait_for dp "- deep_leaf"
screen dp > deep.txt
check "view: ... the rows left of the window show their depth" grep -Eq "^ .* - <[0-9]+ descend" deep.txt
check "view: ... and in the window each level is two columns right of its parent" \
	awk '/ - descend|- deep_leaf/ { c = index($0, "- "); if (p && c != p + 2) bad = 1; p = c; n++ }
	     END { exit !(n >= 5 && !bad) }' deep.txt
keys dp q

# ---- colour, and names from the program ------------------------------------------
cp c.db evil.db
sqlite3 evil.db "UPDATE stored_names SET name = 'evil' || char(27) || '[2J' || char(7) || 'name' WHERE name = 'main'"
start e 100 30 "'$CULPRIT' view evil.db"
check "view: a name with control characters is shown safely" wait_for e "[-+] evil\?\[2J\?name"
keys e q
wait_for e "^EXIT=0$"
# A damaged database whose parents loop: a context found by search below
# its own descendant.  Going up its path must end.
cp c.db loop.db
hot_kernel="(SELECT c.id FROM contexts c JOIN context_metrics m ON m.context_id = c.id
  WHERE c.procedure = 'kernel' AND c.kind = 'frame' AND m.metric = 'work'
  ORDER BY m.inclusive DESC LIMIT 1)"
sqlite3 loop.db "UPDATE stored_contexts SET parent_id = (WITH RECURSIVE d(id) AS (
    SELECT $hot_kernel UNION ALL SELECT c.id FROM stored_contexts c JOIN d ON c.parent_id = d.id)
  SELECT max(id) FROM d) WHERE id = $hot_kernel"
start lp 100 30 "'$CULPRIT' view loop.db"
wait_for lp "<program root>"
keys lp / k e r n e l Enter d
keys lp q
check "view: a database whose parents loop: search and details end, and so does the viewer" \
	wait_for lp "^EXIT=0$"
cp c.db utf8.db
sqlite3 utf8.db "UPDATE stored_names SET name = 'caf' || char(233) || '_' || char(155) || 'x' WHERE name = 'main'"
$TMUX_CMD -u new-session -d -s u8 -x 100 -y 30 "TERM=screen LANG=C.UTF-8 '$CULPRIT' view utf8.db; echo EXIT=\$?; sleep 600"
check "view: in a UTF-8 locale, UTF-8 names show as they are, C1 controls as ?" \
	wait_for u8 "[-+] café_\?x"
keys u8 q
cp c.db moved.db
sqlite3 moved.db "UPDATE stored_names SET name = '/no/such/dir/callers.c' WHERE name LIKE '%callers.c'"
start mv 100 30 "'$CULPRIT' view moved.db"
wait_for mv "<program root>"
keys mv / k e r n e l Enter s
check "view: a source file that cannot be read is named, with why" \
	wait_for mv "cannot show /no/such/dir/callers.c: No such file or directory"
keys mv q
# A diagnosis, as culprit prof writes them (the test programs' own are
# timing-dependent; what is checked here is how the viewer shows one).
cp c.db diag.db
sqlite3 diag.db "INSERT INTO diagnoses (context_id, event, diagnosis, advice, rank, effort,
	effort_percent, idleness_percent, overhead_percent, waste_percent, scope, runtime_percent,
	runtime) SELECT id, 'cputime', 'needs more parallelism',
	'finer grain: more, smaller tasks or chunks, so idle workers find work', 1, 1.0, 50.0,
	50.0, 0.0, 25.0, 'inclusive', 40.0, 'libc: printf 40%' FROM contexts
	WHERE procedure = 'light_caller' AND kind = 'frame'"
start col 100 30 "'$CULPRIT' view diag.db"
wait_for col "<program root>"
keys col / l i g h t _ c a l l e r Enter
check "view: a diagnosed context is marked" wait_for col "\+!light_caller"
$TMUX_CMD capture-pane -t col -e -p > colour.txt
check "view: ... in red" sh -c "grep -q \"\$(printf '\\033')\\[31m!\" colour.txt"
keys col d
check "view: the details give its diagnosis" wait_for col "why   needs more parallelism \(#1\)"
check "view: ... and the runtime calls that hold its waste" \
	wait_for col "in runtime calls: libc: printf 40%"
keys col q
# The C library's start-up is folded into main: the details name it.
start fo 100 30 "'$CULPRIT' view c.db"
wait_for fo "<program root>"
keys fo / m a i n Enter d
check "view: the details name the frames folded into main, the C library's start-up" \
	wait_for fo "folds _start > __libc_start"
keys fo q
# Waits counted at light_caller's call sites, as a pthreads program's.
sqlite3 diag.db "INSERT INTO waits (thread_id, kind, cause, object, module, procedure, file,
	line, address, count, seconds, max_seconds) SELECT t.id, 'mutex', 'lock', 4096, c.module,
	c.procedure, c.file, c.line, 0, 8, 0.163, 0.031 FROM contexts c, threads t
	WHERE c.procedure = 'light_caller' AND c.kind = 'frame' LIMIT 1"
start wt 100 30 "'$CULPRIT' view diag.db"
wait_for wt "<program root>"
keys wt / l i g h t _ c a l l e r Enter d
check "view: the details list the waits called from the context, with count, time and longest" \
	wait_for wt "waits mutex 8x 163 ms \(longest 31 ms\)"
keys wt q
start nocol 100 30 "NO_COLOR=1 '$CULPRIT' view diag.db"
wait_for nocol "<program root>"
keys nocol / l i g h t _ c a l l e r Enter
check "view: NO_COLOR: the diagnosed context is still marked" wait_for nocol "\+!light_caller"
$TMUX_CMD capture-pane -t nocol -e -p > nocolour.txt
check "view: NO_COLOR turns colour off" has_not nocolour.txt "\\+!light_caller" "$esc\\[3[0-7]m"
keys nocol q

# ---- bad input: one line, status 1, the terminal untouched ------------------------
start bad 100 10 "'$CULPRIT' view no-such.db"
check "view: a missing database: one line, status 1" \
	sh -c "$(cat <<EOF
i=0; while [ \$i -lt 100 ] && ! $TMUX_CMD capture-pane -t bad -p | grep -q '^EXIT='; do sleep 0.1; i=\$((i + 1)); done
$TMUX_CMD capture-pane -t bad -p | grep -v '^\$' > bad.txt
[ \$(wc -l < bad.txt) = 2 ] && grep -q 'no-such.db: no such file' bad.txt && grep -q '^EXIT=1\$' bad.txt
EOF
)"
sqlite3 plain.db "CREATE TABLE t (x)"
"$CULPRIT" view plain.db > plain.out 2> plain.err < /dev/null
check "view: an SQLite file that is not culprit's: one line, status 1" \
	sh -c "[ $? = 1 ] && [ \$(wc -l < plain.err) = 1 ] && grep -q 'not one made by culprit prof' plain.err"
cp c.db newer.db
sqlite3 newer.db "PRAGMA user_version = 99"
"$CULPRIT" view newer.db > newer.out 2> newer.err < /dev/null
check "view: a database from a newer culprit: one line, status 1" \
	sh -c "[ $? = 1 ] && [ \$(wc -l < newer.err) = 1 ] && grep -q 'upgrade culprit' newer.err"
"$CULPRIT" view c.db > notty.out 2> notty.err < /dev/null
check "view: without a terminal: one line saying to use culprit report" \
	sh -c "[ $? = 1 ] && [ \$(wc -l < notty.err) = 1 ] && grep -q 'needs a terminal' notty.err && [ ! -s notty.out ]"

# ---- the timeline pane (t) -------------------------------------------------------------
# Known phases (a serial 300 ms, a parallel 400 ms, an imbalanced 200 ms;
# the program prints when each began and ended), on two threads, at 80x24.
profile_e tl REALTIME@f1000 "$PROGRAMS/phases" 2 300 400 200 > tl.out
prof tl
origin=$(sql tl.db "SELECT value FROM culprit_info WHERE key = 'trace_origin'")
duration=$(sql tl.db "SELECT value FROM culprit_info WHERE key = 'trace_duration'")
# phase_at NAME FIELD: a phase's start (2) or end (3), as a share of the run.
phase_at() {
	awk -v p="$1" -v f="$2" -v o="$origin" -v d="$duration" \
		'$1 == "phase" && $2 == p { printf "%.4f\n", ($f - o) / d }' tl.out
}
# cells LINE: the cells of a thread's row (after the 13 columns of label).
cells() {
	printf '%s\n' "$1" | cut -c14-
}
start tl 80 24 "'$CULPRIT' view tl.db"
wait_for tl "calling context"
keys tl t
check "timeline: t opens the pane, at 80x24" wait_for tl " timeline  # work  [+] overhead  m culprit  idle: s serial"
# The title can come before the rows (the trace is read after the pane
# opens; slow under the sanitizers): until both threads' rows are there.
i=0
while [ $i -lt 100 ] && [ "$(screen tl | grep -cE '^[0-9]+ ')" -lt 2 ]; do
	sleep 0.1
	i=$((i + 1))
done
screen tl > tl.screen
main_row=$(grep -E '^[0-9]+ ' tl.screen | sed -n 1p)
worker_row=$(grep -E '^[0-9]+ ' tl.screen | sed -n 2p)
check "timeline: a row per thread" [ -n "$worker_row" ] && [ "$(grep -cE '^[0-9]+ ' tl.screen)" = 2 ]
w=$(cells "$worker_row" | awk '{ print length($0) }')
# The worker idles through the serial phase, works, and idles at the end
# of the imbalanced one: where its work starts and ends, as shares.
first=$(cells "$worker_row" | awk -v w="$w" '{ printf "%.4f", (index($0, "#") - 1) / w }')
last=$(cells "$worker_row" | awk -v w="$w" '{ n = 0; for (i = 1; i <= length($0); i++)
	if (substr($0, i, 1) == "#") n = i; printf "%.4f", n / w }')
note "timeline: worker works from $first to $last of the run; parallel phase from $(phase_at parallel 3) (serial end) "
check "timeline: the worker's work starts when the serial phase ends, within 10% of the run" \
	near "$first" "$(phase_at serial 4)" 0.1
check "timeline: ... and ends within the imbalanced phase, idle after it" \
	awk -v l="$last" -v a="$(phase_at imbalanced 3)" -v b="$(phase_at imbalanced 4)" \
		'BEGIN { exit !(l > a && l < b - 0.03) }'
check "timeline: the main thread works throughout" \
	[ "$(cells "$main_row" | tr -d '# ' | wc -c)" -le 3 ]
# The selected context's samples in reverse: serial_work's are the serial phase.
keys tl / serial_work Enter
wait_for tl "serial_work"
sleep 0.3
$TMUX_CMD capture-pane -t tl -p -e > tl.esc
rev=$(python3 -c '
import re, sys
for line in open(sys.argv[1]).read().split("\n"):
    plain = re.sub(r"\x1b\[[0-9;]*m", "", line)
    if not re.match(r"^[0-9]+ ", plain): continue
    on, col, cols = False, 0, []
    i = 0
    while i < len(line):
        m = re.match(r"\x1b\[([0-9;]*)m", line[i:])
        if m:
            for c in (m.group(1) or "0").split(";"):
                if c in ("0", "27"): on = False
                if c == "7": on = True
            i += m.end(); continue
        if on and col >= 13 and line[i] != " ": cols.append(col - 13)
        col += 1; i += 1
    w = len(plain) - 13
    print("%.4f %.4f %d" % ((min(cols) if cols else -1) / w, (max(cols) + 1 if cols else -1) / w, len(cols)))
    break' tl.esc)
note "timeline: serial_work's samples in reverse: from, to, cells: $rev"
check "timeline: the selected serial_work highlights the serial phase, within 10%" \
	sh -c "set -- $rev; [ \$3 -gt 3 ] && awk -v a=\$1 -v b=\$2 -v e=$(phase_at serial 4) \
		'BEGIN { exit !(a < 0.1 && b > e - 0.1 && b < e + 0.1) }'"
# A range in the middle of the parallel phase: the views show only it.
keys tl Escape 2> /dev/null
from=$(phase_at parallel 3) to=$(phase_at parallel 4)
n1=$(awk -v a="$from" -v b="$to" -v w="$w" 'BEGIN { printf "%d", (a + (b - a) * 0.15) * w }')
n2=$(awk -v a="$from" -v b="$to" -v w="$w" 'BEGIN { printf "%d", (b - a) * 0.7 * w }')
i=0; while [ $i -lt "$n1" ]; do keys tl .; i=$((i + 1)); done
keys tl '['
i=0; while [ $i -lt "$n2" ]; do keys tl .; i=$((i + 1)); done
keys tl ']'
check "timeline: [ and ] choose a range; the title says it" wait_for tl "realtime [0-9.]+-[0-9.]+s"
keys tl g
check "timeline: in the range the calling context shows the parallel phase" \
	wait_for tl "parallel_work"
check "timeline: ... and neither the serial nor the imbalanced one" \
	sh -c "! $TMUX_CMD capture-pane -t tl -p | grep -Eq 'serial_work|imbalanced_work'"
keys tl 3
check "timeline: the flat view too" wait_for tl "parallel_work"
check "timeline: ... without serial_work" sh -c "! $TMUX_CMD capture-pane -t tl -p | grep -q serial_work"
keys tl x 1
check "timeline: x shows the whole run again" wait_for tl "serial_work"
# The whole run as a range gives the whole run's figures (the trace's
# samples against the stored tree).
whole=$(screen tl | grep -m1 '<program root>')
i=0; while [ $i -lt 90 ]; do keys tl ,; i=$((i + 1)); done
keys tl '['
i=0; while [ $i -lt 90 ]; do keys tl .; i=$((i + 1)); done
keys tl ']'
wait_for tl "realtime 0.00-"
ranged=$(screen tl | grep -m1 '<program root>')
note "timeline: whole run '$whole'; as a range '$ranged'"
check "timeline: the whole run as a range has the whole run's values" [ "$whole" = "$ranged" ]
# The mouse: a press in a thread's row at column 30, a release at column
# 50 (X10 reports, 33 added to each 0-based coordinate), chooses the range
# between the two cells' middles.
keys tl x
y=$(($(screen tl | grep -nE '^[0-9]+ ' | head -n 1 | cut -d: -f1) - 1))
$TMUX_CMD send-keys -t tl -H 1b 5b 4d 20 "$(printf %x $((33 + 30)))" "$(printf %x $((33 + y)))"
sleep 0.4
$TMUX_CMD send-keys -t tl -H 1b 5b 4d 23 "$(printf %x $((33 + 50)))" "$(printf %x $((33 + y)))"
wait_for tl "realtime [0-9.]+-[0-9.]+s"
got=$(screen tl | sed -n 's/.*realtime \([0-9.]*\)-\([0-9.]*\)s.*/\1 \2/p' | head -n 1)
want=$(awk -v d="$duration" 'BEGIN { printf "%.2f %.2f", (30 - 13 + 0.5) / 67 * d, (50 - 13 + 0.5) / 67 * d }')
note "timeline: the mouse chose $got s, the cells' middles are $want s"
check "timeline: a mouse drag chooses the range between the press and the release" \
	sh -c "set -- $got $want; awk -v a=\$1 -v b=\$2 -v c=\$3 -v d=\$4 \
		'BEGIN { exit !(a - c < 0.02 && c - a < 0.02 && b - d < 0.02 && d - b < 0.02) }'"
# The wheel over the timeline zooms in around the pointer: half the window.
$TMUX_CMD send-keys -t tl -H 1b 5b 4d 60 "$(printf %x $((33 + 30)))" "$(printf %x $((33 + y)))"
check "timeline: the wheel zooms in where it points" wait_for tl "^0\.[0-9]+-0\.[0-9]+ s of "
keys tl q
check "timeline: quits cleanly" wait_for tl "^EXIT=0$"
# Overhead by type: an OpenMP task recursion creates and schedules tasks.
profile_e fibt CPUTIME@f2000 "$PROGRAMS/omp_fib-clang" 27 2 > /dev/null 2>&1
prof fibt 2> /dev/null
start fibt 80 24 "'$CULPRIT' view fibt.db"
wait_for fibt "calling context"
keys fibt t p p
check "timeline: overhead cells name their type (T task creation, S scheduling)" \
	wait_for fibt "^[0-9]+ omp_f[^ ]* +[^ ].*[TS]"
keys fibt q
wait_for fibt "^EXIT=0$"
# A damaged trace: a run's length that is not a number, samples at no
# time, a thread numbered 2^40.  The pane draws what it can.
cp tl.db bad.db
sql bad.db "UPDATE culprit_info SET value = '1e999' WHERE key = 'trace_duration';
	UPDATE trace SET time = 'x' || time WHERE thread_id = 1 AND time < 0.1;
	UPDATE threads SET id = 1099511627776 WHERE id = 2" > /dev/null 2>&1
start dmg 80 24 "'$CULPRIT' view bad.db"
wait_for dmg "calling context"
keys dmg t z z Z . , '[' . ']' x q
check "timeline: a damaged trace is drawn without a crash" wait_for dmg "^EXIT=0$"
# A run without a trace: the pane says so, and how to get one.
"$CULPRIT" run -q --no-trace -o nt "$PROGRAMS/phases" 2 50 50 50 > /dev/null
prof nt
start nt 80 24 "'$CULPRIT' view nt.db"
wait_for nt "calling context"
keys nt t
check "timeline: a run without a trace says so in the pane" wait_for nt "recorded no trace"
keys nt z
check "timeline: ... and its keys say so too, without failing" wait_for nt "^the run recorded no trace"
keys nt q
wait_for nt "^EXIT=0$"

# ---- a large database ---------------------------------------------------------------
"$srcdir/bench/gen_db.sh" c.db big.db 1000000 > /dev/null
check "view: a generated database with a million contexts" \
	[ "$(sql big.db 'SELECT count(*) FROM contexts')" = 1000000 ]
start big 100 30 "'$CULPRIT' view --timing big.db 2> big.timing"
check "view: it opens on the million-context database" wait_for big "\+ proc_2"
keys big H
check "view: and follows its hot path" wait_for big "hot path: [0-9]+ levels? down"
keys big q
wait_for big "^EXIT=0$"
note "$(cat big.timing)"
check "view: it says how long its first screen took" grep -q "first screen in [0-9.]* ms (1000000 contexts)" big.timing
# The callers of a procedure come from its frames alone (dbr_callers),
# not from the whole tree: the same groups either way.
start bigc 100 30 "'$CULPRIT' view --timing --view=callers big.db 2> bigc.timing"
wait_for bigc "\+ proc_2 "
keys bigc j Enter
check "view: a procedure's callers on the million-context database" wait_for bigc "% from proc_"
keys bigc q
wait_for bigc "^EXIT=0$"
note "$(cat bigc.timing)"
check "view: --timing names the slowest expansion" grep -q "slowest expansion [0-9.]* ms" bigc.timing

# ---- runs as columns --------------------------------------------------------
# Two runs of leaves, the second three times as long: one database, two
# experiments (a and b), a column each.
"$CULPRIT" run -q --label=a -o xa "$PROGRAMS/leaves" 40 > /dev/null
"$CULPRIT" run -q --label=b -o xb "$PROGRAMS/leaves" 120 > /dev/null
"$CULPRIT" prof -q -o xab.db xa xb
start xp 140 30 "'$CULPRIT' view xab.db"
wait_for xp "- <program root>"
keys xp X
check "view X: a column per run, headed by its label" wait_for xp " a I +b I +/p +calling context"
screen xp > xp1.txt
lf=$(awk '/\+ leaf_four/ { for (i = 1; i <= NF; i++) if ($i == "leaf_four") { print $(i - 4), $(i - 3); exit } }' xp1.txt)
note "view X: leaf_four in runs a and b: $lf"
check "view X: leaf_four's run b is three times run a's (within 25%)" \
	sh -c "echo '$lf' | awk '{ r = \$2 / \$1; exit !(r > 2.25 && r < 3.75) }'"
keys xp X
check "view X again: each run's change from the first" wait_for xp " a I +\+b I +/p"
keys xp X
check "view X a third time: the columns go" sh -c "sleep 0.3; ! $TMUX_CMD capture-pane -t xp -p | grep -q '/p'"
keys xp q
wait_for xp "^EXIT=0$"
start xq 120 30 "'$CULPRIT' view c.db"
wait_for xq "- <program root>"
keys xq X
check "view X on one run: the status line says how to make several" wait_for xq "one run in this database: culprit scale"
keys xq q

# ---- task types in the detail pane ---------------------------------------------
if [ -x "$PROGRAMS/omp_fib-clang" ]; then
	OMP_NUM_THREADS=2 "$CULPRIT" run -q -o tk "$PROGRAMS/omp_fib-clang" > /dev/null
	"$CULPRIT" prof -q tk 2> /dev/null
	start tk 150 40 "'$CULPRIT' view tk.db"
	wait_for tk "- <program root>"
	keys tk / f i b Enter
	keys tk d
	check "view d: a procedure's tasks, by the line that creates them, with a size histogram" \
		wait_for tk "tasks +line [0-9]+: [0-9]+, mean [0-9.]+[nu]?s \\[[^]]+\\], wait"
	keys tk q
else
	skip "view d: a procedure's tasks" "no clang OpenMP program"
fi

done_testing
