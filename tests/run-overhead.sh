#!/bin/sh
# run-overhead.sh - overhead from tags and rules, effort percentages,
# diagnoses and the factor summary, end to end through the database.
. "${srcdir:-.}/tests/lib.sh"
have sqlite3 || skip_all "the sqlite3 program is not installed"

# total DB METRIC: the cputime metric's total.
mtotal() {
	v=$(sql "$1" "SELECT total FROM metrics WHERE event = 'cputime' AND metric = '$2'")
	echo "${v:-0}"
}

# ---- a #line tag ------------------------------------------------------------
profile_e tg CPUTIME@f2000 "$PROGRAMS/tagged" > tg.out
check "tag: the program ran" grep -q "tagged done" tg.out
prof tg
work=$(mtotal tg.db work)
ovh=$(mtotal tg.db overhead)
book=$(mtotal tg.db overhead:bookkeeping)
note "tagged: work $work s, overhead $ovh s, overhead:bookkeeping $book s"
# Its own (exclusive) work: a rare sample whose leaf is elsewhere (a
# signal return, an unwinder's odd address) can count in its inclusive
# work without being tagged code, and one sample in 1500 is 0.001.
pmx() {
	sql "$1" "SELECT exclusive FROM procedure_metrics WHERE event = 'cputime' AND
		procedure = '$2' AND metric = '$3'"
}
check "tag: the tagged function's own work is overhead:bookkeeping, all of it" \
	near "$(ratio "$(pmx tg.db runtime_bookkeeping overhead:bookkeeping)" \
		"$(pmx tg.db runtime_bookkeeping work)")" 1 0.001
check "tag: ... and nowhere else: overhead is overhead:bookkeeping" near "$ovh" "$book" 0.000001
check "tag: the untagged function has work" at_least "$(pm tg.db user_work work)" 0.01
check "tag: ... and no overhead" [ "$(pm tg.db user_work overhead)" = 0 ]
check "tag: half the work was tagged, within 0.08" near "$(ratio "$book" "$work")" 0.5 0.08
check "tag: useful_work = work - overhead" near "$(mtotal tg.db useful_work)" \
	"$(awk -v a="$work" -v b="$ovh" 'BEGIN { print a - b }')" 0.000001
check "tag: contexts say the tag classified them" \
	sh -c "sqlite3 tg.db \"SELECT DISTINCT procedure || '|' || overhead || '|' || overhead_by FROM contexts WHERE overhead IS NOT NULL\" | grep -q '^runtime_bookkeeping|bookkeeping|tag .*culprit:overhead/bookkeeping\$'"
check "tag: only the tagged function's contexts are overhead" \
	[ "$(sql tg.db "SELECT count(*) FROM contexts WHERE overhead IS NOT NULL AND procedure <> 'runtime_bookkeeping'")" = 0 ]
check "tag: the procedure_overhead view names it" \
	sh -c "sqlite3 tg.db \"SELECT procedure, overhead FROM procedure_overhead\" | grep -q '^runtime_bookkeeping|bookkeeping\$'"

# ---- rules ------------------------------------------------------------------
printf '# mine\nprocedure user_work   mine\n' > mine.rules
prof -o rules.db --overhead-rules=mine.rules tg
check "rules: a user rule makes user_work overhead:mine" \
	near "$(ratio "$(pm rules.db user_work overhead:mine)" "$(pm rules.db user_work work)")" 1 0.001
check "rules: contexts name the rule file and line" \
	sh -c "sqlite3 rules.db \"SELECT DISTINCT overhead_by FROM contexts WHERE procedure = 'user_work' AND overhead IS NOT NULL\" | grep -q '^rule mine.rules:2: procedure user_work mine\$'"
check "rules: the rules are in the database, in order" \
	sh -c "[ \"\$(sqlite3 rules.db 'SELECT field, pattern, type, origin FROM overhead_rules WHERE rank = 1')\" = 'procedure|user_work|mine|mine.rules:2' ]"
mkdir -p xdg/culprit
printf 'procedure user_work from-xdg\n' > xdg/culprit/a.rules
XDG_CONFIG_HOME=$WORK/xdg prof -o xdg.db tg
check "rules: \$XDG_CONFIG_HOME/culprit/*.rules are read" \
	near "$(pm xdg.db user_work overhead:from-xdg)" "$(pm xdg.db user_work work)" 0.000001
XDG_CONFIG_HOME=$WORK/xdg prof -o both.db --overhead-rules=mine.rules tg
check "rules: --overhead-rules comes before the user's directory" \
	near "$(pm both.db user_work overhead:mine)" "$(pm both.db user_work work)" 0.000001
"$CULPRIT" prof --show-rules --overhead-rules=mine.rules > shown.txt
check "rules: --show-rules lists the user's rules first, then the built-in ones" \
	sh -c "head -n 1 shown.txt | grep -q 'user_work.*mine.rules:2' && grep -q '__kmpc_omp_task_alloc .*task-creation.*built-in' shown.txt"

# Bad rules: one line naming the file and line, status 1, nothing written.
bad_rules() {
	printf "$1" > bad.rules
	"$CULPRIT" prof -o bad.db --overhead-rules=bad.rules tg > bad.out 2> bad.err
	echo $?
}
check "rules: a line without a type is refused with its line number" \
	sh -c "[ $(bad_rules '# ok\nprocedure foo bar\nmodule *libfoo.so\n') = 1 ] && [ \$(wc -l < bad.err) = 1 ] && grep -q 'bad.rules:3: expected FIELD PATTERN TYPE, found 2 words' bad.err && [ ! -e bad.db ]"
check "rules: an unknown field is named" \
	sh -c "[ $(bad_rules 'procedur foo bar\n') = 1 ] && grep -q 'bad.rules:1: unknown field.*\"procedur\"' bad.err"
check "rules: a bad type is named" \
	sh -c "[ $(bad_rules 'entry foo Task_Creation\n') = 1 ] && grep -q 'bad.rules:1: bad overhead type.*\"Task_Creation\"' bad.err"
check "rules: ^ outside module rules is refused" \
	sh -c "[ $(bad_rules 'procedure foo ^\n') = 1 ] && grep -q 'bad.rules:1: \^' bad.err"
check "rules: a missing rules file is named" \
	sh -c "\"$CULPRIT\" prof -o bad.db --overhead-rules=no-such.rules tg 2> bad.err; [ \$? = 1 ] && grep -q 'cannot read the rules file no-such.rules' bad.err"
check "rules: a bad --diagnose-idleness value: one line, usage status" \
	sh -c "\"$CULPRIT\" prof -o bad.db --diagnose-idleness=150 tg 2> bad.err; [ \$? = 2 ] && [ \$(wc -l < bad.err) = 1 ]"

# ---- OpenMP task recursions: fine and coarse grain ---------------------------
if [ -x "$PROGRAMS/omp_fib-clang" ]; then
	export OMP_NUM_THREADS=2 KMP_BLOCKTIME=0
	profile_e fine CPUTIME@f2000 "$PROGRAMS/omp_fib-clang" 30 2 > fine.out
	check "fine: the program ran" grep -q "fib(30) = 832040" fine.out
	prof fine
	f_ovh=$(sql fine.db "SELECT percent FROM metrics WHERE event = 'cputime' AND metric = 'overhead'")
	f_idle=$(sql fine.db "SELECT percent FROM metrics WHERE event = 'cputime' AND metric = 'idleness'")
	note "fine-grained tasks: overhead $f_ovh% and idleness $f_idle% of effort"
	note "$(sql fine.db "SELECT group_concat(metric || ' ' || round(percent, 1) || '%', ', ') FROM metrics WHERE event = 'cputime' AND metric LIKE 'overhead:%' AND total > 0")"
	check "fine: overhead is most of the effort (at least 50%)" at_least "$f_ovh" 50
	check "fine: task creation and scheduling are both overhead" \
		sh -c "[ \"\$(sqlite3 fine.db \"SELECT count(*) FROM metrics WHERE metric IN ('overhead:task-creation', 'overhead:scheduling') AND total > 0\")\" = 2 ]"
	top=$(sql fine.db "SELECT d.diagnosis || '|' || c.procedure FROM diagnoses d JOIN contexts c ON c.id = d.context_id WHERE d.event = 'cputime' AND d.rank = 1")
	note "fine: first diagnosis: $top"
	check "fine: the first diagnosis: fib is too fine-grained" [ "$top" = "too fine-grained|fib" ]
	check "fine: one diagnosis for the whole recursion" \
		[ "$(sql fine.db "SELECT count(*) FROM diagnoses WHERE rank IS NOT NULL")" = 1 ]
	"$CULPRIT" report --diagnose fine.db > fine-diag.txt
	check "fine: report --diagnose says so, with the advice" \
		sh -c "grep -q '^ 1\. too fine-grained: fib' fine-diag.txt && grep -q -- '-> coarser grain' fine-diag.txt"

	profile_e coarse CPUTIME@f2000 "$PROGRAMS/omp_fib-clang" 41 20 > coarse.out
	check "coarse: the program ran" grep -q "fib(41) = 165580141" coarse.out
	prof coarse
	c_ovh=$(sql coarse.db "SELECT percent FROM metrics WHERE event = 'cputime' AND metric = 'overhead'")
	note "coarse-grained tasks: overhead $c_ovh% of effort"
	check "coarse: overhead is small (under 10% of effort)" below "$c_ovh" 10
	check "coarse: nothing too fine-grained" \
		[ "$(sql coarse.db "SELECT count(*) FROM diagnoses WHERE diagnosis = 'too fine-grained' AND rank IS NOT NULL")" = 0 ]
	prof -o plain.db --no-default-rules fine
	check "--no-default-rules: no overhead at all" [ "$(mtotal plain.db overhead)" = 0.0 ]
	printf 'module */libomp.so* -\n' > notomp.rules
	prof -o notomp.db --overhead-rules=notomp.rules fine
	check "rules: '-' makes the runtime's code useful work (a rule before the built-in ones)" \
		below "$(mtotal notomp.db overhead)" "$(awk -v t="$(mtotal fine.db overhead)" 'BEGIN { print t / 20 }')"

	# ---- the serial phase ---------------------------------------------------
	profile_e ph CPUTIME@f2000 "$PROGRAMS/omp_phases-clang" > ph.out
	prof ph
	d=$(sql ph.db "SELECT d.diagnosis || '|' || d.rank FROM diagnoses d JOIN contexts c ON c.id = d.context_id WHERE c.procedure = 'serial_phase' AND c.kind = 'frame' AND d.event = 'cputime'")
	note "serial_phase: $d; $(sql ph.db "SELECT round(idleness_percent, 1), round(effort_percent, 1) FROM diagnoses d JOIN contexts c ON c.id = d.context_id WHERE c.procedure = 'serial_phase' AND c.kind = 'frame'")"
	check "serial phase: serial_phase is a serial phase, first on the list" \
		[ "$d" = "serial phase|1" ]
	check "serial phase: the balanced loop is not diagnosed" \
		[ "$(sql ph.db "SELECT count(*) FROM diagnoses d JOIN contexts c ON c.id = d.context_id WHERE c.procedure = 'balanced_phase'")" = 0 ]
	prof -o strict.db --diagnose-idleness=60 ph
	check "--diagnose-idleness=60: a 50%-idle function is not diagnosed" \
		[ "$(sql strict.db "SELECT count(*) FROM diagnoses WHERE diagnosis IN ('needs more parallelism', 'serial phase')")" = 0 ]
	check "the thresholds are in culprit_info" \
		[ "$(sql strict.db "SELECT value FROM culprit_info WHERE key = 'diagnose_idleness_percent'")" = 60 ]

	# ---- the factor summary -------------------------------------------------
	sum=$(sql ph.db "SELECT sum(percent) FROM effort_summary WHERE event = 'cputime'")
	check "summary: the parts add up to 100% of effort" near "$sum" 100 0.01
	vsum=$(sql ph.db "SELECT sum(value) FROM effort_summary WHERE event = 'cputime'")
	check "summary: ... and their values to the total effort" near "$vsum" "$(mtotal ph.db effort)" 0.000001
	for m in useful_work idleness:serial idleness:barrier; do
		root=$(sql ph.db "SELECT coalesce(sum(inclusive), 0) FROM context_metrics WHERE context_id = 1 AND event = 'cputime' AND metric = '$m'")
		part=$(sql ph.db "SELECT value FROM effort_summary WHERE event = 'cputime' AND metric = '$m'")
		check "summary: $m matches the root context's inclusive value" near "$part" "$root" 0.000001
	done
	serial=$(sql ph.db "SELECT percent FROM effort_summary WHERE metric = 'idleness:serial'")
	note "serial phase: serialization is $serial% of effort"
	check "summary: serialization is a quarter of the effort (1 of 2 workers idle half the time), within 4 points" \
		near "$serial" 25 4
	bad=$(sql ph.db "SELECT count(*) FROM (SELECT thread_id, sum(percent) s FROM thread_effort_summary WHERE event = 'cputime' GROUP BY thread_id HAVING abs(s - 100) > 0.01)")
	check "summary: each thread's parts add up to 100% of its effort" [ "$bad" = 0 ]
	"$CULPRIT" report --summary ph.db > summary.txt
	check "report --summary: serialization and a total of 100%" \
		sh -c "grep -q '^idleness  *serialization' summary.txt && grep -Eq '^total .* 100\.0\$' summary.txt"
	check "report --summary: a row per thread" \
		[ "$(awk '/^per thread/ { on = 1; next } on && NF > 3 && $1 ~ /^[0-9]+$/' summary.txt | wc -l)" = 2 ]
	"$CULPRIT" report --summary --format=csv ph.db > summary.csv
	check "report --summary --format=csv: whole-run effort rows sum to 100%" \
		near "$(awk -F, 'NR > 1 && $1 == "" && $3 != "quality" { s += $7 } END { print s }' summary.csv)" 100 0.01
fi

# Percentages of effort, in the database and the report.
pct=$(sql tg.db "SELECT inclusive_percent FROM context_metrics WHERE context_id = 1 AND event = 'cputime' AND metric = 'overhead'")
check "percent: context_metrics has inclusive percentages of effort" near "$pct" \
	"$(awk -v a="$(mtotal tg.db overhead)" -v b="$(mtotal tg.db effort)" 'BEGIN { print 100 * a / b }')" 0.0001
"$CULPRIT" report --metric=overhead --view=flat tg.db > ovh.txt
check "percent: report shows overhead as a percentage of effort" \
	sh -c "grep -q '% of the effort (work + idleness)' ovh.txt && grep -Eq ' (4[2-9]|5[0-8])\.[0-9] .*runtime_bookkeeping' ovh.txt"

# A database that lost its diagnoses and a view (edited, or damaged): one
# line, status 1.
cp tg.db old.db
sqlite3 old.db "DROP TABLE diagnoses; DROP VIEW effort_summary"
for what in diagnose summary; do
	check "report --$what on a database without it: one line that says to remake it" \
		sh -c "\"$CULPRIT\" report --$what old.db > old.out 2> old.err; [ \$? = 1 ] && [ \$(wc -l < old.err) = 1 ] && grep -q 'damaged: it has no .*culprit prof --force' old.err && [ ! -s old.out ]"
done

done_testing
