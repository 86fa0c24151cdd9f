#!/bin/sh
# run-security.sh - what a profiled program or a hostile file can make
# culprit do: names reach the terminal only as harmless text, output is
# private and never written through a planted symlink, and a damaged or
# malicious database gets one line and status 1, never a crash or hang.
. "${srcdir:-.}/tests/lib.sh"

esc=$(printf '\033')
bel=$(printf '\007')
c1=$(printf '\302\233')
# raw FILE: whether FILE holds a terminal control sequence start.
raw() {
	grep -q "$esc\|$bel\|$c1" "$1"
}

# ---- names from the program ----------------------------------------------------
prog="hostile${esc}[31mprog"
cp "$PROGRAMS/hostile_names" "./$prog"
"$CULPRIT" run -o m "./$prog" > run.out 2> run.err
check "hostile names: the program runs and is measured" [ $? = 0 ]
check "hostile names: culprit run's own lines are harmless" sh -c "! grep '^culprit' run.err | grep -q \"$esc\""
"$CULPRIT" prof -o m.db m > prof.out 2> prof.err
check "hostile names: prof's lines are harmless" sh -c "! raw() { grep -q \"$esc\\|$bel\\|$c1\" \"\$1\"; }; ! raw prof.out && ! raw prof.err"
check "hostile names: the database keeps the names as they are" \
	[ "$(sql m.db "SELECT count(*) FROM threads WHERE instr(name, char(27)) > 0")" -ge 1 ]
n=0 bad=
for args in "" "--view=callers" "--view=flat" "--summary" "--diagnose" "--waits" \
	    "--folded" "--format=csv" "--summary --format=csv" "--view=flat --format=csv" \
	    "--parallelism" "--parallelism --format=csv" "--timeline" "--timeline --format=csv"; do
	# shellcheck disable=SC2086
	"$CULPRIT" report $args m.db > r.out 2>&1
	raw r.out && bad="$bad [$args]"
	n=$((n + 1))
done
check "hostile names: none of $n report outputs carries a control sequence${bad:+ ($bad)}" [ -z "$bad" ]
bad=
for f in m/*.thread m/*.process; do
	for form in "" --flat --tsv --raw --trace; do
		# shellcheck disable=SC2086
		"$CULPRIT" dump $form "$f" > d.out 2>&1
		raw d.out && bad="$bad [$form $(basename "$f" | tr -d "$esc")]"
	done
done
check "hostile names: no dump output carries a control sequence${bad:+ ($bad)}" [ -z "$bad" ]
bad=
for args in "" "--inclusive" "--format=csv"; do
	# shellcheck disable=SC2086
	"$CULPRIT" diff --limit=0 $args m.db m.db > df.out 2>&1
	raw df.out && bad="$bad [$args]"
done
check "hostile names: no diff output carries a control sequence${bad:+ ($bad)}" \
	sh -c "[ -z '$bad' ] && grep -q 'hostile' df.out"
"$CULPRIT" export --format=perfetto -o - m.db > x.json 2>&1
check "hostile names: the perfetto export carries no control sequence" sh -c "! raw() { grep -q \"$esc\\|$bel\\|$c1\" \"\$1\"; }; ! raw x.json"
check "hostile names: ... and is JSON that keeps the names, escaped" \
	python3 -c "import json, sys; d = json.load(open('x.json'))
sys.exit(not any('\x1b' in e.get('args', {}).get('name', '') for e in d['traceEvents']))"
check "hostile names: a thread name is shown with its controls replaced" \
	sh -c "\"$CULPRIT\" report --summary m.db | grep -q 'm?\\[2J?x'"

# ---- private output, no planted symlinks -------------------------------------------
check "output: the measurement directory is its owner's alone (0700)" \
	[ "$(stat -c %a m)" = 700 ]
modes=$(stat -c %a m/* | sort -u | tr '\n' ' ')
check "output: its files too (0600: $modes)" [ "$modes" = "600 " ]
echo "secret" > victim
ln -s victim planted
"$CULPRIT" run -q -o planted "$PROGRAMS/leaves" 1 > /dev/null 2> planted.err
check "output: run -o onto a symlink is refused" [ $? != 0 ]
check "output: ... and writes nothing through it" [ "$(cat victim)" = secret ]
ln -s victim planted.db
"$CULPRIT" prof -q --force -o planted.db m 2> /dev/null
check "prof --force onto a symlink replaces the link, not its target" \
	sh -c "[ \"\$(cat victim)\" = secret ] && [ -f planted.db ] && [ ! -L planted.db ]"

# ---- damaged and malicious databases ------------------------------------------------
prof -o good.db m
mk() {
	cp good.db "$1.db"
	sqlite3 "$1.db" "$2"
}
mk loop "UPDATE stored_contexts SET parent_id = 3 WHERE id = 2"
mk self "UPDATE stored_contexts SET parent_id = id"
mk types "UPDATE stored_contexts SET parent_id = 'abc', depth = x'00ff', line = 'x';
	  UPDATE stored_values SET inclusive = 'zz', exclusive = x'01'"
mk huge "UPDATE stored_values SET inclusive = 1e308, exclusive = -1e308;
	 UPDATE stored_contexts SET depth = 9223372036854775807, line = -5"
mk badids "UPDATE stored_contexts SET procedure_id = 99999, kind_id = -1 WHERE id > 1;
	   UPDATE stored_values SET metric_id = 9999 WHERE context_id = 2"
mk nonames "DELETE FROM stored_names"
mk notable "DROP TABLE stored_values"
mk noview "DROP VIEW contexts"
mk nometrics "DELETE FROM metrics"
mk trace "UPDATE trace SET context_id = 999999 WHERE rowid % 3 = 0;
	  UPDATE trace SET state = 'bogus', time = 'x' WHERE rowid % 3 = 1;
	  UPDATE trace SET n_working = -3, value = 1e308 WHERE rowid % 3 = 2"
mk notrace "DROP TABLE trace"
for db in loop self types huge badids nonames notable noview nometrics trace notrace; do
	crashed= lines=
	for args in "" "--view=callers --depth=3" "--view=flat" "--summary" "--diagnose" \
		    "--waits" "--folded" "--format=csv" "--parallelism" "--timeline" "--scaling" \
		    "--tasks" export:perfetto export:folded export:speedscope export:pprof; do
		if [ "${args%%:*}" = export ]; then
			timeout 20 "$CULPRIT" export --format="${args#*:}" --force -o x.out "$db.db" \
				> r.out 2> r.err
		else
			# shellcheck disable=SC2086
			timeout 20 "$CULPRIT" report $args "$db.db" > r.out 2> r.err
		fi
		rc=$?
		[ $rc -ge 2 ] && crashed="$crashed [$args: $rc]"
		[ $rc = 1 ] && [ "$(wc -l < r.err)" != 1 ] && lines="$lines [$args]"
	done
	check "malicious database $db: report never crashes or hangs${crashed:+ ($crashed)}" [ -z "$crashed" ]
	check "malicious database $db: each refusal is one line${lines:+ ($lines)}" [ -z "$lines" ]
done
timeout 20 "$CULPRIT" report notable.db 2> r.err
check "a database without a table says it is damaged and how to remake it" \
	grep -q "is damaged: it has no stored_values; make it again" r.err

done_testing
