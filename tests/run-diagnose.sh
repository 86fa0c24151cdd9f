#!/bin/sh
# run-diagnose.sh - diagnoses that name user code.  Waste inside libomp
# and libc is diagnosed at the program's frame that pays for it, with the
# runtime calls that hold it on its line; serial code outside any parallel
# construct is a serial phase, with advice of its own.  Each program is
# built by clang and by gcc (run on libomp); the results must be the same.
. "${srcdir:-.}/tests/lib.sh"
have sqlite3 || skip_all "the sqlite3 program is not installed"

compilers=
[ -x "$PROGRAMS/omp_tiny_tasks-clang" ] && compilers="$compilers clang"
[ -x "$PROGRAMS/omp_tiny_tasks-gcc" ] && compilers="$compilers gcc"
[ -n "$compilers" ] || skip_all "no compiler with OpenMP support was found by configure"

export OMP_NUM_THREADS=2 KMP_BLOCKTIME=0

# listed DB: the listed diagnoses, in rank order, one per line:
# rank|diagnosis|procedure|module|scope|runtime.
listed() {
	sql "$1" "SELECT d.rank, d.diagnosis, c.procedure, c.module, d.scope, d.runtime
		FROM diagnoses d JOIN contexts c ON c.id = d.context_id
		WHERE d.event = 'cputime' AND d.rank IS NOT NULL ORDER BY d.rank"
}

# only_program DB PROGRAM: every diagnosis, listed or not, is at a context
# of PROGRAM's own module, and none names an unnamed address.
only_program() {
	[ "$(sql "$1" "SELECT count(*) FROM diagnoses d JOIN contexts c ON c.id = d.context_id
		WHERE c.module IS NULL OR c.module NOT LIKE '%/$2'
		   OR c.procedure LIKE '%+0x%'")" = 0 ] &&
		[ "$(sql "$1" "SELECT count(*) FROM diagnoses WHERE rank IS NOT NULL")" -gt 0 ]
}

# no_runtime_names REPORT: `culprit report --diagnose` lists a first
# diagnosis, and no line names a procedure of libomp or libc as the
# diagnosed one.
no_runtime_names() {
	has_not "$1" '^ *1\. [a-z -]+: ' \
		'^ *[0-9]+\. [a-z -]+: (__kmp|__kmpc|GOMP_|libomp|__sched|__printf|__vfprintf|__libc|__fprintf|_IO_)'
}

for cc in $compilers; do
	# ---- the waste inside libomp: tasks far too small -------------------------
	profile_e fine-$cc CPUTIME@f2000 "$PROGRAMS/omp_tiny_tasks-$cc" fine > fine-$cc.out
	check "$cc fine tasks: the program ran" grep -q "omp_tiny_tasks fine done" fine-$cc.out
	prof fine-$cc
	db=fine-$cc.db
	listed $db > fine-$cc.list
	note "$cc fine tasks: $(tr '\n' ' ' < fine-$cc.list)"
	check "$cc fine tasks: every diagnosis is at the program's own code, none in libomp or libc" \
		only_program $db omp_tiny_tasks-$cc
	check "$cc fine tasks: the first is too fine-grained" \
		[ "$(head -n 1 fine-$cc.list | cut -d'|' -f2)" = "too fine-grained" ]
	check "$cc fine tasks: its line names the runtime calls that hold its waste, in libomp" \
		sh -c "head -n 1 fine-$cc.list | cut -d'|' -f6 | grep -q '^libomp: '"
	check "$cc fine tasks: ... which hold nearly all of it" \
		at_least "$(sql $db "SELECT runtime_percent FROM diagnoses WHERE rank = 1")" 90
	"$CULPRIT" report --diagnose $db > fine-$cc.txt
	check "$cc fine tasks: report --diagnose names no runtime procedure" no_runtime_names fine-$cc.txt
	check "$cc fine tasks: ... and says where the waste is" \
		grep -q '^    in runtime calls: libomp: ' fine-$cc.txt

	# ---- runtime calls that are a waste in code that is not -------------------
	profile_e mixed-$cc CPUTIME@f2000 "$PROGRAMS/omp_tiny_tasks-$cc" mixed 300 > mixed-$cc.out
	check "$cc mixed: the program ran" grep -q "omp_tiny_tasks mixed done" mixed-$cc.out
	# What task creation costs varies tenfold between machines and loads
	# (CI measured 20.5% once, 1.8% another day): the runtime calls are
	# diagnosed from 0.5% of all effort, not the default 2%, so that the
	# check is of where the diagnosis points, not of this machine's libomp.
	prof --diagnose-share=0.5 mixed-$cc
	db=mixed-$cc.db
	first=$(listed $db | head -n 1)
	note "$cc mixed: $first"
	ovh=$(sql $db "SELECT percent FROM metrics WHERE event = 'cputime' AND metric = 'overhead'")
	check "$cc mixed: the overhead is under the threshold, 20% (it is $ovh%)" below "$ovh" 20
	check "$cc mixed: mixed_round is too fine-grained, for the runtime calls it makes" \
		[ "$(echo "$first" | cut -d'|' -f2,3,5)" = "too fine-grained|mixed_round|runtime" ]
	check "$cc mixed: ... which are task creation in libomp" \
		sh -c "echo '$first' | cut -d'|' -f6 | grep -Eq '^libomp: (__kmpc_omp_task|__kmpc_omp_task_alloc|GOMP_task) '"
	check "$cc mixed: every diagnosis is at the program's own code" \
		only_program $db omp_tiny_tasks-$cc
	"$CULPRIT" report --diagnose $db > mixed-$cc.txt
	check "$cc mixed: report --diagnose says the numbers are of its runtime calls" \
		grep -q '^ 1\. too fine-grained: mixed_round, its runtime calls' mixed-$cc.txt

	# ---- a task recursion ----------------------------------------------------
	profile_e fib-$cc CPUTIME@f2000 "$PROGRAMS/omp_fib-$cc" 28 2 > fib-$cc.out
	prof fib-$cc
	first=$(listed fib-$cc.db | head -n 1)
	note "$cc fib: $first"
	check "$cc fib: fib is too fine-grained, once for the whole recursion" \
		sh -c "[ \"\$(echo '$first' | cut -d'|' -f2,3)\" = 'too fine-grained|fib' ] &&
			[ \$(sqlite3 fib-$cc.db 'SELECT count(*) FROM diagnoses WHERE rank IS NOT NULL') = 1 ]"
	check "$cc fib: its waste is mostly in libomp's taskwait" \
		sh -c "echo '$first' | cut -d'|' -f6 | grep -Eq '^libomp: (__kmpc_omp_taskwait|GOMP_taskwait) '"

	# ---- a serial phase between parallel loops ---------------------------------
	# (Whether main is listed too depends on how evenly the loops ran.)
	profile_e ph-$cc CPUTIME@f2000 "$PROGRAMS/omp_phases-$cc" > ph-$cc.out
	prof ph-$cc
	db=ph-$cc.db
	note "$cc phases: $(listed $db | tr '\n' ' ')"
	check "$cc phases: serial_phase is listed as a serial phase" \
		[ "$(listed $db | cut -d'|' -f2,3 | grep -c '^serial phase|serial_phase$')" = 1 ]
	check "$cc phases: ... with the serial advice, not a finer grain" \
		[ "$(sql $db "SELECT d.advice FROM diagnoses d JOIN contexts c ON c.id = d.context_id
			WHERE c.procedure = 'serial_phase' AND c.kind = 'frame'")" = \
			"parallelize it, or overlap it with parallel work: the other workers idle while it runs" ]
	"$CULPRIT" report --diagnose $db > ph-$cc.txt
	check "$cc phases: report --diagnose gives that advice" \
		sh -c "grep -A 4 '^ *[0-9]*\. serial phase: serial_phase ' ph-$cc.txt |
			grep -q -- '-> parallelize it, or overlap it with parallel work'"

	# ---- a serial phase in libc: writing the results out ----------------------
	profile_e out-$cc CPUTIME@f2000 "$PROGRAMS/omp_output-$cc" > out-$cc.out
	check "$cc output: the program ran" grep -q "omp_output done" out-$cc.out
	prof out-$cc
	db=out-$cc.db
	line=$(listed $db | grep '|write_output|')
	note "$cc output: $(listed $db | tr '\n' ' ')"
	check "$cc output: write_output is listed as a serial phase" \
		[ "$(echo "$line" | cut -d'|' -f2)" = "serial phase" ]
	check "$cc output: its waste is in libc's fprintf" \
		sh -c "echo '$line' | cut -d'|' -f6 | grep -Eq '^libc: (__)?fprintf '"
	check "$cc output: every diagnosis is at the program's own code, none in libc" \
		only_program $db omp_output-$cc
	"$CULPRIT" report --diagnose $db > out-$cc.txt
	check "$cc output: report --diagnose names no libc procedure" no_runtime_names out-$cc.txt

	# ---- imbalance in a parallel loop is not a serial phase --------------------
	profile_e im-$cc CPUTIME@f2000 "$PROGRAMS/omp_imbalance-$cc" > im-$cc.out
	prof im-$cc
	note "$cc imbalance: $(listed im-$cc.db | tr '\n' ' ')"
	check "$cc imbalance: the heavy iterations need more parallelism, no serial phase" \
		sh -c "[ \"\$(sqlite3 im-$cc.db \"SELECT DISTINCT diagnosis FROM diagnoses WHERE rank IS NOT NULL\")\" = 'needs more parallelism' ]"
done

# ---- serial phases: inlined into main, and in a library without debug
# information (omp_serial.c) --------------------------------------------------
S="$srcdir/tests/programs/omp_serial.c"
warmup=$(grep -n 'call:warm-up' "$S" | cut -d: -f1)
timed=$(grep -n 'call:timed' "$S" | cut -d: -f1)
for cc in $compilers; do
	[ -x "$PROGRAMS/omp_serial-$cc" ] || continue
	profile_e se-$cc CPUTIME@f2000 "$PROGRAMS/omp_serial-$cc" > se-$cc.out
	check "$cc serial: the program ran" grep -q "omp_serial done" se-$cc.out
	prof se-$cc
	listed se-$cc.db > se-$cc.list
	note "$cc serial: $(tr '\n' ' ' < se-$cc.list)"
	check "$cc serial: the function inlined into main is diagnosed, twice, as a serial phase" \
		[ "$(grep -c '|serial phase|setup_inlined|' se-$cc.list)" = 2 ]
	check "$cc serial: the library's entry point is, not its internal code" \
		sh -c "grep -q '|serial phase|lib_entry|' se-$cc.list && ! grep -q 'lib_inner' se-$cc.list"
	check "$cc serial: main is not diagnosed: the frames below it hold its problem" \
		sh -c "! grep -q '|main|' se-$cc.list"
	"$CULPRIT" report --diagnose se-$cc.db > se-$cc.txt
	check "$cc serial: the two paths alike are printed with main's lines ($warmup, $timed)" \
		sh -c "grep -q '^    main:$warmup > setup_inlined\$' se-$cc.txt &&
		       grep -q '^    main:$timed > setup_inlined\$' se-$cc.txt"
done

# The scope and runtime columns, in the CSV.
"$CULPRIT" report --diagnose --format=csv mixed-${cc}.db > mixed.csv
check "report --diagnose --format=csv: the scope and the runtime calls are columns" \
	sh -c "head -n 1 mixed.csv | grep -q ',advice,scope,runtime_percent,runtime\$' &&
		sed -n 2p mixed.csv | grep -Eq ',runtime,(99\.9|100\.0)[0-9]*,\"?libomp: '"

done_testing
