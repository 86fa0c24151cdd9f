#!/bin/sh
# run-prof.sh - culprit prof end to end: run, prof, then ask the database
# what a person would ask it.
. "${srcdir:-.}/tests/lib.sh"
have sqlite3 || skip_all "the sqlite3 program is not installed"

# Leaf functions with 1/7, 2/7 and 4/7 of the work, at 4 kHz: some 4000
# samples keep sampling noise well under the 3 points checked.  The truth
# is the program's own CPU clock: on shared cores the same work does not
# always take the same time.
# Fifty longer rounds (the same work as the default 250): a sample taken
# late counts for the leaf that runs next, and on CI's loaded machine, at
# 750 leaf switches a second, that moved 3 points from leaf_four to the
# short leaves twice in four passes (leaf_four 53.5% against 56.8%).
profile_e m CPUTIME@f4000 "$PROGRAMS/leaves" 50 1750000 > leaves.out
prof m
check "prof: leaves: the database was written" [ -s m.db ]
check "prof: schema version is 12" [ "$(sql m.db 'PRAGMA user_version')" = 12 ]
total=$(sql m.db "select total from metrics where event='cputime' and metric='work'")
note "total CPU time $total s"
leaves=$(sql m.db "select sum(inclusive) from procedure_metrics
	where procedure like 'leaf_%' and event = 'cputime' and metric = 'work'")
for fn in leaf_one leaf_two leaf_four; do
	want=$(leaf_share leaves.out $fn cpu)
	got=$(sql m.db "select 100.0 * inclusive / $leaves from procedure_metrics
		where procedure = '$fn' and event = 'cputime' and metric = 'work'")
	note "$fn: $got% (the program measured $want%)"
	check "prof: $fn has the share of the leaves' work that it measured, within 3 points" near "$got" "$want" 3
done
main=$(sql m.db "select inclusive from procedure_metrics where procedure = 'main' and metric = 'work'")
check "prof: main's inclusive work is the total" nearly_all "$main" "$total"
root=$(sql m.db "select inclusive from context_metrics where context_id = 1 and metric = 'work'")
check "prof: the root's inclusive work is the total" near "$root" "$total" 0.000001
# All work is at a statement but for frames without line information (the
# vDSO and the C library's clock_gettime, which the program times itself
# with), where it stays at the frame.
stmts=$(sql m.db "select sum(m.exclusive) from contexts c join context_metrics m on m.context_id = c.id
	where c.kind = 'statement' and m.metric = 'work'")
noline=$(sql m.db "select coalesce(sum(m.exclusive), 0) from contexts c join context_metrics m on m.context_id = c.id
	where c.kind = 'frame' and coalesce(c.file, '') = '' and m.metric = 'work'")
note "statements: $stmts s; frames without line information: $noline s"
check "prof: statements' exclusive work and that of frames without lines add up to the total" \
	near "$(awk -v a="$stmts" -v b="$noline" 'BEGIN { print a + b }')" "$total" 0.001
check "prof: ... and those frames hold under 2% of it" below "$noline" "$(awk -v t="$total" 'BEGIN { print t / 50 }')"
check "prof: the inlined work_units() is a frame of its own" \
	[ "$(sql m.db "select count(*) from contexts where kind = 'inlined' and procedure = 'work_units'")" -ge 3 ]
check "prof: an inlined frame hangs below the call site it was inlined at" \
	[ "$(sql m.db "select count(*) from contexts i join contexts s on s.id = i.parent_id
		where i.kind = 'inlined' and s.kind = 'callsite' and s.procedure like 'leaf_%'")" -ge 3 ]
check "prof: statements carry the sampled line" \
	[ "$(sql m.db "select count(*) from contexts where kind = 'statement' and file like '%work.h' and line > 0")" -ge 1 ]
check "prof: file names are absolute" \
	[ "$(sql m.db "select count(*) from contexts where file like '%leaves.c' and file not like '/%'")" = 0 ]
check "prof: the sample count is kept as a metric" \
	[ "$(sql m.db "select total from metrics where metric = 'samples'")" = "$(total m/leaves-*-t0.thread | sed 's/$/.0/')" ]
check "prof: no partial unwinds in a clean run" \
	[ "$(sql m.db "select count(*) from contexts where procedure = '<partial unwind>'")" = 0 ]
check "prof: context ids put parents before children" \
	[ "$(sql m.db "select count(*) from contexts where parent_id >= id")" = 0 ]

# A procedure's callers and their shares.
profile_e c CPUTIME@f4000 "$PROGRAMS/callers" > /dev/null
prof c
for caller in light_caller:25 heavy_caller:75; do
	fn=${caller%%:*}
	want=${caller#*:}
	got=$(sql c.db "select 100.0 * p.inclusive / k.inclusive from procedure_callers p
		join procedure_metrics k on k.procedure = p.procedure and k.metric = p.metric
		where p.procedure = 'kernel' and p.caller = '$fn' and p.metric = 'work'")
	note "kernel called from $fn: $got% (expected $want%)"
	check "prof: $fn's share of kernel() is $want%, within 3 points" near "$got" "$want" 3
done
check "prof: the recursive-CTE query from doc/schema.md finds both callers" \
	[ "$(sql c.db "with recursive up(id, parent_id, kind, procedure) as (
		select id, parent_id, kind, procedure from contexts where kind = 'frame' and procedure = 'kernel'
		union all
		select c.id, c.parent_id, c.kind, c.procedure from contexts c join up on c.id = up.parent_id
		where up.kind <> 'frame' or up.procedure = 'kernel')
		select count(distinct procedure) from up where kind = 'frame' and procedure <> 'kernel'")" = 2 ]

# C++: names demangled.
profile x "$PROGRAMS/cxx" > /dev/null
prof x
check "prof: C++ member of a class template is demangled" \
	[ "$(sql x.db "select count(*) from contexts where procedure = 'geometry::Grid<long>::relax(int) const'")" -ge 1 ]
check "prof: C++ overloads stay apart" \
	[ "$(sql x.db "select count(distinct procedure) from contexts where procedure like 'geometry::solve(%'")" = 2 ]

# Threads: one tree, per-thread values and statistics.
profile t "$PROGRAMS/threads" > /dev/null
prof t
n=$(sql t.db "select count(*) from threads")
check "prof: threads: every thread is in the database" [ "$n" = 6 ]
check "prof: threads: per-thread totals add up to the total" \
	near "$(sql t.db "select sum(value) from thread_metrics where metric = 'work'")" \
	     "$(sql t.db "select total from metrics where metric = 'work'")" 0.000001
w3=$(sql t.db "select c.id from contexts c where c.kind = 'frame' and c.procedure = 'worker_three'")
check "prof: threads: worker_three's maximum over threads is its own value" \
	[ "$(sql t.db "select inclusive_max = inclusive from context_metrics where context_id = $w3 and metric = 'work'")" = 1 ]
check "prof: threads: its mean is its value over the $n threads" \
	[ "$(sql t.db "select abs(inclusive_mean * $n - inclusive) < 1e-9 from context_metrics where context_id = $w3 and metric = 'work'")" = 1 ]
check "prof: threads: its minimum is 0 (other threads never ran it)" \
	[ "$(sql t.db "select inclusive_min from context_metrics where context_id = $w3 and metric = 'work'")" = 0.0 ]
check "prof: threads: per-thread rows for the root, one per thread that worked" \
	[ "$(sql t.db "select count(*) from context_thread_metrics where context_id = 1 and metric = 'work'")" -ge 4 ]
check "prof: threads: a thread's rows add up to its total" \
	[ "$(sql t.db "select abs(m.inclusive - t.value) < 1e-9 from context_thread_metrics m join thread_metrics t
		on t.thread_id = m.thread_id and t.metric = m.metric where m.context_id = 1 and m.metric = 'work' limit 1")" = 1 ]

# The stored values: nothing zero, nothing twice (schema 6).
check "prof: structure: no stored value is zero" \
	[ "$(sql t.db "select count(*) from context_values where inclusive = 0 and exclusive = 0")" = 0 ]
check "prof: structure: per-thread rows only where several threads reached the context" \
	[ "$(sql t.db "select count(*) from (select context_id from context_thread_values
		group by context_id having count(distinct thread_id) < 2)")" = 0 ]
check "prof: structure: ... never repeating the one thread of a context" \
	[ "$(sql t.db "select count(*) from context_thread_values v join contexts c on c.id = v.context_id
		where c.thread_id is not null")" = 0 ]
# effort and useful_work are computed by the views, not stored (schema 9).
check "prof: structure: effort and useful_work are not stored, but computed" \
	[ "$(sql t.db "select count(*) from stored_values v join metrics m on m.id = v.metric_id
		where m.metric in ('effort', 'useful_work')")" = 0 ] && \
	[ "$(sql t.db "select count(*) from metrics where metric = 'effort' and derived_from =
		(select id from metrics where metric = 'work')")" = 1 ]
check "prof: structure: ... and the views still give no zero rows" \
	[ "$(sql t.db "select count(*) from context_thread_values where inclusive = 0 and exclusive = 0")" = 0 ]
check "prof: structure: effort is work + idleness, useful_work work - overhead, everywhere" \
	[ "$(derived_wrong t.db context_metrics)" = 0 ]
check "prof: structure: ... and for every thread" [ "$(derived_wrong t.db context_thread_metrics)" = 0 ]
check "prof: structure: the per-thread view adds up to the context values everywhere" \
	[ "$(sql t.db "select count(*) from context_metrics m where abs(m.inclusive - (select sum(inclusive)
		from context_thread_metrics t where t.context_id = m.context_id and t.event = m.event
		and t.metric = m.metric)) > 1e-9 * (1 + m.inclusive)")" = 0 ]
# A database of an older schema: one schema is read, and every reader says,
# in one line, how to make the database again from its measurements.
cp t.db v11.db
sql v11.db "PRAGMA user_version = 11" > /dev/null
dir=$(sql t.db "SELECT value FROM culprit_info WHERE key = 'measurements'")
for cmd in "report" "report --view=flat" "export --format=folded -o /dev/null" "diff t.db"; do
	# shellcheck disable=SC2086
	"$CULPRIT" $cmd v11.db > old.out 2> old.err
	rc=$?
	check "prof: '$cmd' on a schema 11 database: status 1, one line naming the schema and the command that remakes it" \
		sh -c "[ $rc = 1 ] && [ \$(wc -l < old.err) = 1 ] && [ ! -s old.out ] && grep -qF 'older culprit (schema 11; this culprit reads schema 12)' old.err && grep -qF 'culprit prof --force -o v11.db $dir' old.err"
done

# A deep tree, contexts of one thread: the bytes it takes per context.
profile deep "$PROGRAMS/recurse" 3000 100000000 > /dev/null
prof deep
bytes=$(sql deep.db "select page_count * page_size from pragma_page_count, pragma_page_size")
nctx=$(sql deep.db "select count(*) from contexts")
note "deep tree: $nctx contexts in $bytes bytes, $(awk -v b="$bytes" -v n="$nctx" 'BEGIN { printf "%.0f", b / n }') per context"
check "prof: structure: a 3000-deep recursion takes under 150 bytes per context (608 before schema 6, 254 before 9)" \
	below "$(awk -v b="$bytes" -v n="$nctx" 'BEGIN { print b / n }')" 150

# Processes: fork and exec merge into one database.
profile f "$PROGRAMS/procs" fork > /dev/null
prof f
check "prof: fork: both processes are in the database" [ "$(sql f.db "select count(*) from processes")" = 2 ]
check "prof: fork: the child's work is in the merged tree" \
	at_least "$(sql f.db "select inclusive from procedure_metrics where procedure = 'child_work' and metric = 'samples'")" 5

# Shared libraries, loaded and unloaded, and partial unwinds.
profile d "$PROGRAMS/dl" "$PROGRAMS" > /dev/null
prof d
check "prof: a function of an unloaded library is named, with its module" \
	[ "$(sql d.db "select count(*) from contexts where procedure = 'plugin_a_work' and module like '%/libplugin_a.so'")" -ge 1 ]
profile b "$PROGRAMS/unwind" badrbp > /dev/null
prof b
check "prof: partial unwinds stay under their own root" \
	[ "$(sql b.db "select count(*) from contexts c join contexts r on r.id = c.parent_id
		where r.procedure = '<partial unwind>' and c.procedure = 'bad_rbp_spin'")" = 1 ]
check "prof: and are not merged into the complete paths" \
	[ "$(sql b.db "select count(*) from contexts where procedure = '<partial unwind>' and parent_id = 1")" = 1 ]

# Debug information in a separate file, found through .gnu_debuglink; and
# code without any symbols, named module+offset rather than dropped.
if have objcopy strip; then
	cp "$PROGRAMS/leaves" split
	objcopy --only-keep-debug split split.debug
	strip --strip-all split
	objcopy --add-gnu-debuglink=split.debug split
	profile s ./split 40 > /dev/null
	prof s
	check "prof: debug information found through .gnu_debuglink names functions" \
		[ "$(sql s.db "select count(*) from contexts where procedure = 'leaf_four'")" -ge 1 ]
	check "prof: ... and source lines" \
		[ "$(sql s.db "select count(*) from contexts where kind = 'statement' and file like '%work.h'")" -ge 1 ]
	cp "$PROGRAMS/leaves" bare
	strip --strip-all bare
	profile n ./bare 40 > /dev/null
	prof n
	check "prof: code without symbols is named module+offset" \
		[ "$(sql n.db "select count(*) from contexts where procedure like 'bare+0x%'")" -ge 1 ]
	check "prof: ... and its samples are kept" \
		at_least "$(sql n.db "select sum(exclusive) from procedure_metrics where procedure like 'bare+0x%' and metric = 'samples'")" 50
else
	skip "prof: debug information found through .gnu_debuglink" "objcopy or strip is not installed"
	skip "prof: code without symbols is named module+offset" "objcopy or strip is not installed"
fi

# The vdso, which exists only in memory, is named from its saved copy.
profile v "$PROGRAMS/vdso" > /dev/null
prof v
check "prof: time in the vdso is named, in module [vdso]" \
	[ "$(sql v.db "select count(*) from contexts where module = '[vdso]' and procedure like '%clock_gettime%'")" -ge 1 ]

# Several directories at once; -j1 gives the same database.
prof -o both.db m c
check "prof: two directories make one database" [ "$(sql both.db "select count(*) from processes")" = 2 ]
prof -j 1 -o serial.db m
check "prof: -j1 and all cores give the same tree and values" \
	[ "$(sql serial.db "select group_concat(id || kind || coalesce(procedure,'') || coalesce(line,''), ',') from contexts")" = \
	  "$(sql m.db "select group_concat(id || kind || coalesce(procedure,'') || coalesce(line,''), ',') from contexts")" ]

# The progress line.
CULPRIT_PROGRESS=1 "$CULPRIT" prof -o progress.db t 2> err.txt
check "prof: progress lines report the phases" grep -Eq "culprit: +[0-9.]+ s merging: thread" err.txt
check "prof: and a summary line says what was written" grep -q "wrote progress.db: 1 process, 6 threads" err.txt

done_testing
