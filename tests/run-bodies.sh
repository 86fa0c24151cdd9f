#!/bin/sh
# run-bodies.sh - code the compiler outlined from OpenMP constructs is the
# exclusive work of the procedure that wrote it, on its own lines, and
# calls made in a construct's body hang under their own lines: parallel,
# worksharing loops, tasks in a single, master, sections (omp_bodies.c),
# constructs in C++ lambdas (omp_lambda.cc), a GCC -flto build whose
# kernel is inlined across files (omp_lto_*.c); each by gcc and clang.
# The programs time their parts with each thread's CPU clock.  And on
# each database the invariant: every view and export adds up to the
# total (check_invariant.py).
. "${srcdir:-.}/tests/lib.sh"
have sqlite3 || skip_all "the sqlite3 program is not installed"
have python3 || skip_all "python3 is not installed"

compilers=
[ -x "$PROGRAMS/omp_bodies-clang" ] && compilers="$compilers clang"
[ -x "$PROGRAMS/omp_bodies-gcc" ] && compilers="$compilers gcc"
[ -n "$compilers" ] || skip_all "no compiler with OpenMP support was found by configure"

export OMP_NUM_THREADS=2 KMP_BLOCKTIME=0
S="$srcdir/tests/programs"

# pmx DB PROCEDURE: the procedure's exclusive work.
pmx() {
	_v=$(sql "$1" "SELECT sum(exclusive) FROM procedure_metrics
		WHERE event = 'cputime' AND procedure = '$2' AND metric = 'work'")
	echo "${_v:-0}"
}

# line FILE MARK: the line of FILE that holds MARK.
line() {
	grep -n -F -- "$2" "$1" | head -n 1 | cut -d: -f1
}

# invariant WHAT DB: check_invariant.py's findings, a check each, and
# that it ran to its end.
invariant() {
	python3 "$srcdir/tests/check_invariant.py" "$CULPRIT" "$2" > inv.out 2>&1
	if ! grep -q '^END$' inv.out; then
		check "$1: the invariant checker ran to its end" false
		sed 's/^/# /' inv.out
		return
	fi
	grep -E '^(PASS|FAIL)' inv.out > inv.lines
	while read -r verdict what; do
		check "$1 invariant: $what" [ "$verdict" = PASS ]
	done < inv.lines
}

# A sample late by a period counts for the next piece of code: allow 10%,
# or 5 ms, of each part's own time.
for cc in $compilers; do
	profile_e b-$cc CPUTIME@f2000 "$PROGRAMS/omp_bodies-$cc" > b-$cc.out 2> b-$cc.err
	check "$cc bodies: the program ran" grep -q "omp_bodies done" b-$cc.out
	prof b-$cc 2> bp-$cc.err
	db=b-$cc.db
	for construct in in_parallel in_for in_tasks in_master in_sections; do
		own=$(awk -v c=$construct '$1 == "body" && $2 == c { print $3 }' b-$cc.out)
		callee=${construct#in_}_callee
		[ $construct = in_tasks ] && callee=task_callee
		call=$(awk -v c=$construct '$1 == "body" && $2 == c { print $5 }' b-$cc.out)
		got=$(pmx $db $construct)
		note "$cc $construct: exclusive $got s, its body's own lines took $own s; $callee: $(pm $db $callee work) s of $call s"
		check "$cc $construct: the body's own work is the procedure's exclusive work" \
			within "$got" "$own" 0.10 0.005
		check "$cc $construct: $callee's work is under it" \
			within "$(pm $db $callee work)" "$call" 0.10 0.005
		want=$(line "$S/omp_bodies.c" "call:$callee")
		check "$cc $construct: $callee hangs from its call's line ($want), in $construct" \
			[ "$(sql $db "SELECT group_concat(DISTINCT s.procedure || ':' || s.line)
				FROM contexts f JOIN contexts s ON s.id = f.parent_id
				WHERE f.kind = 'frame' AND f.procedure = '$callee'")" = "$construct:$want" ]
	done
	# The task's call: under the task's line, in the single's body, in
	# the region's, in in_tasks.
	task=$(line "$S/omp_bodies.c" "#pragma omp task firstprivate")
	check "$cc tasks: task_callee's call site is under the line of the task construct ($task)" \
		[ "$(sql $db "SELECT group_concat(DISTINCT t.kind || ':' || t.procedure || ':' || t.line)
			FROM contexts f JOIN contexts s ON s.id = f.parent_id
			JOIN contexts t ON t.id = s.parent_id
			WHERE f.kind = 'frame' AND f.procedure = 'task_callee'")" = "callsite:in_tasks:$task" ]
	check "$cc bodies: no outlined function is a context of its own" \
		[ "$(sql $db "SELECT count(*) FROM contexts WHERE procedure LIKE '%omp_outlined%'
			OR procedure LIKE '%omp_task_entry%' OR procedure GLOB '*._omp_fn.[0-9]*'")" = 0 ]
	check "$cc bodies: culprit prof says nothing (its check of the frames' sums included)" \
		[ ! -s bp-$cc.err ]
	invariant "$cc bodies" $db

	# ---- C++ lambdas ----
	if [ -x "$PROGRAMS/omp_lambda-$cc" ]; then
		profile_e l-$cc CPUTIME@f2000 "$PROGRAMS/omp_lambda-$cc" > l-$cc.out 2>&1
		check "$cc lambdas: the program ran" grep -q "omp_lambda done" l-$cc.out
		prof l-$cc
		db=l-$cc.db
		for part in region_lambda task_lambda called_lambda; do
			own=$(awk -v p=$part '$1 == "lambda" && $2 == p { print $3 }' l-$cc.out)
			# The lambda is a procedure of its own; its name says where.
			decl=$(line "$S/omp_lambda.cc" "auto $part =")
			got=$(sql $db "SELECT sum(exclusive) FROM procedure_metrics
				WHERE event = 'cputime' AND metric = 'work'
				AND procedure IN (SELECT procedure FROM contexts WHERE kind IN ('frame', 'inlined')
					AND file LIKE '%omp_lambda.cc' AND line = $decl)")
			note "$cc $part (line $decl): exclusive ${got:-none} s, its own lines took $own s"
			check "$cc lambdas: $part's work is the lambda's exclusive work" \
				within "${got:-0}" "$own" 0.10 0.005
		done
		check "$cc lambdas: each lambda is a procedure of its own" \
			[ "$(sql $db "SELECT count(DISTINCT procedure) FROM contexts
				WHERE kind IN ('frame', 'inlined') AND file LIKE '%omp_lambda.cc'
				AND line IN ($(line "$S/omp_lambda.cc" "auto region_lambda ="),
					$(line "$S/omp_lambda.cc" "auto task_lambda ="),
					$(line "$S/omp_lambda.cc" "auto called_lambda ="))")" = 3 ]
		invariant "$cc lambdas" $db
	else
		skip "$cc lambdas" "no C++ compiler with OpenMP support was found by configure"
	fi
done

# ---- GCC's link-time optimization ----
if [ -x "$PROGRAMS/omp_lto-gcc" ]; then
	profile_e lto CPUTIME@f2000 "$PROGRAMS/omp_lto-gcc" > lto.out 2>&1
	check "lto: the program ran" grep -q "omp_lto done" lto.out
	prof lto
	for site in region main; do
		at=$(line "$S/omp_lto_main.c" "call:$site")
		check "lto: kernel (omp_lto_kernel.c) is inlined at the call on line $at" \
			[ "$(sql lto.db "SELECT count(*) FROM contexts k JOIN contexts s ON s.id = k.parent_id
				WHERE k.kind = 'inlined' AND k.procedure = 'kernel'
				AND k.file LIKE '%omp_lto_kernel.c' AND s.kind = 'callsite'
				AND s.file LIKE '%omp_lto_main.c' AND s.line = $at")" -ge 1 ]
	done
	kernel=$(sql lto.db "SELECT exclusive FROM procedure_metrics WHERE event = 'cputime'
		AND metric = 'work' AND procedure = 'kernel'")
	total=$(sql lto.db "SELECT total FROM metrics WHERE event = 'cputime' AND metric = 'work'")
	note "lto: kernel's exclusive work $kernel s of $total s"
	check "lto: nearly all the work is kernel's, on its own lines" \
		at_least "$(ratio "${kernel:-0}" "$total")" 0.9
	check "lto: kernel's samples are on its lines" \
		at_least "$(ratio "$(sql lto.db "SELECT sum(m.exclusive) FROM contexts c
			JOIN context_metrics m ON m.context_id = c.id AND m.event = 'cputime'
			AND m.metric = 'work' WHERE c.kind = 'statement' AND c.procedure = 'kernel'
			AND c.file LIKE '%omp_lto_kernel.c'")" "$total")" 0.9
	invariant "lto" lto.db
else
	skip "lto" "no gcc with OpenMP support was found by configure"
fi

done_testing
