#!/bin/sh
# run-mpi.sh - MPI programs under `mpirun culprit run` (Open MPI from
# Debian, --oversubscribe on a small machine): the ranks share one
# directory and one experiment; the MPI plugin counts their waits in MPI;
# report --by-rank shows the imbalance and the slow rank's frame, against
# tests/programs/mpi_imbalance.c, which times its own work and waits; a
# hybrid MPI + OpenMP program; a rank that crashes.
. "${srcdir:-.}/tests/lib.sh"
have sqlite3 || skip_all "the sqlite3 program is not installed"
have mpirun mpicc || skip_all "no mpirun and mpicc (Debian: openmpi-bin, libopenmpi-dev)"
# Open MPI refuses to run as root unless told it may (CI runs as root).
OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM OMPI_MCA_rmaps_base_oversubscribe
S="$srcdir/tests/programs"
# A run that hangs (a deadlock in a rank) fails the checks that need it,
# not the whole suite: each mpirun has 5 minutes (the slowest, under
# ASan on 2 CPUs, takes seconds).
mpirun_path=$(command -v mpirun)
mpirun() {
	timeout -k 10 300 "$mpirun_path" "$@"
	rc_=$?
	[ $rc_ = 124 ] && note "mpirun $* ran over 5 minutes and was stopped"
	return $rc_
}
mpicc -O1 -g -fno-omit-frame-pointer -o imbalance "$S/mpi_imbalance.c" 2> cc.err ||
	skip_all "mpicc cannot build an MPI program: $(head -n 1 cc.err)"
mpirun -np 1 ./imbalance 1000 > /dev/null 2> mpi.err ||
	skip_all "mpirun cannot start a rank here: $(head -n 1 mpi.err)"
MPIRUN="mpirun -np 3"

# ---- three ranks, one of them with four times the work ---------------------
# CPU time for the work, wall-clock time for the waits (a rank that waits
# yields its CPU now and then, the more so on a busy machine).
$MPIRUN "$CULPRIT" run -q -e CPUTIME -e REALTIME@2ms -o m ./imbalance 100000000 > m.out 2> m.err
status=$?
check "the launch ends as it would, status 0, a line from each rank" \
	[ "$status" = 0 -a "$(grep -c '^rank [0-2] work' m.out)" = 3 ]
# With -q culprit says nothing, but what a rank's measurement lost when
# it matters (5% of its samples): on a busy machine a rank's MPI_Init,
# long in libc code called from components it has just dlopen'd (which the
# sample handler may not add to its module map while it interrupts libc:
# collector/loadmap.c), can leave that many unwound only partly.  Then
# each such line must say what the database counts.
m_quiet=yes
[ -s m.err ] && m_quiet=$(cat m.err)
note "culprit run's stderr: $m_quiet"
check "one directory: each rank's files start with its rank" \
	sh -c "ls m/r0-*.process m/r1-*.process m/r2-*.process > /dev/null"
check "the directory is marked as the launch's, and has one run file" \
	sh -c "ls -a m | grep -q '^\.mpi-launch-' && [ \$(ls m/run-*.info | wc -l) = 1 ]"
prof m 2> m-prof.err
# Each line: "culprit: warning: MPI rank R: measurements of ...; N samples
# unwound only partly", N the rank's unwind:partial counters in the database.
untrue=$(grep -v '^culprit: warning: MPI rank [0-2]: measurements of .* samples unwound only partly' m.err | head -n 1)
while read -r line; do
	[ -n "$line" ] || continue
	r=$(echo "$line" | sed -n 's/^culprit: warning: MPI rank \([0-2]\):.*/\1/p')
	n=$(echo "$line" | sed -n 's/.* \([0-9][0-9]*\) samples unwound only partly.*/\1/p')
	db=$(sql m.db "SELECT sum(c.value) FROM thread_counters c JOIN threads t ON t.id = c.thread_id
		JOIN processes p ON p.id = t.process_id WHERE c.name = 'unwind:partial' AND p.mpi_rank = $r")
	[ "$n" = "$db" ] || untrue="$untrue rank $r says $n, the database $db"
done < m.err
check "culprit says nothing on stderr (-q), but what a rank lost, as the database counts it" \
	[ -z "$untrue" ]
check "one experiment of three ranks" \
	[ "$(sql m.db "SELECT count(*) FROM experiments")/$(sql m.db "SELECT group_concat(mpi_rank) FROM (SELECT mpi_rank FROM processes ORDER BY mpi_rank)")" = "1/0,1,2" ]
"$CULPRIT" report --by-rank --format=csv m.db > ranks.csv
"$CULPRIT" report --by-rank --event=realtime --format=csv m.db > ranks-wall.csv
work0=$(awk -F, '$1 == "rank" && $2 == 0 { print $6 }' ranks.csv)
work1=$(awk -F, '$1 == "rank" && $2 == 1 { print $6 }' ranks.csv)
wait0=$(awk -F, '$1 == "rank" && $2 == 0 { print $7 }' ranks-wall.csv)
wait1=$(awk -F, '$1 == "rank" && $2 == 1 { print $7 }' ranks-wall.csv)
want_wait=$(awk '$2 == 1 { print $6 }' m.out)
# The work regions the program timed are heavy() on rank 0 and light().
heavy=$(awk -F, '$1 == "frame" && $9 == "heavy" { print $14 }' ranks.csv)
light=$(awk -F, '$1 == "frame" && $9 == "light" { print $14 }' ranks.csv)
r=$(ratio "$heavy" "$light")
want=$(awk '$2 == 0 { a = $8 } $2 == 1 { b = $8 } END { printf "%.3f", a / b }' m.out)
note "rank 0 worked $work0 s, rank 1 $work1 s; heavy $heavy s against light's $light s ($r times; the program timed $want); MPI waits $wait0 and $wait1 s (rank 1 timed $want_wait s)"
check "by rank: heavy's work on rank 0 against light's is what the program timed on its CPU clock, within 15%" \
	within "$r" "$want" 0.15 0
check "by rank: rank 1 waited in MPI as long as it timed its wait, within 25%; rank 0 hardly" \
	sh -c "awk -v a=$wait1 -v b=$wait0 -v w=$want_wait 'BEGIN { d = a - w; if (d < 0) d = -d; exit !(d <= 0.25 * w + 0.02 && a > 10 * b) }'"
top=$(awk -F, '$1 == "frame" { print $9 "," $16; exit }' ranks.csv)
check "by rank: the most imbalanced frame is heavy, slowest on rank 0 ($top)" [ "$top" = "heavy,0" ]
# The ranks' MPI waiting, shared out over the frames by their imbalance:
# most of it is for heavy(), which only rank 0 runs.
blame=$(awk -F, '$1 == "rank" { w += $7 } $1 == "frame" && $18 > m { m = $18; f = $9 }
	$1 == "frame" && $9 == "heavy" { h = $18 } END { printf "%s %.3f %.3f", f, h, w }' ranks-wall.csv)
note "MPI waiting blamed: most on ${blame%% *}; heavy and all waiting, s: ${blame#* }"
check "by rank: the MPI waiting is blamed most on heavy, over 60% of it" \
	sh -c "echo '$blame' | awk '{ exit !(\$1 == \"heavy\" && \$2 > 0.6 * \$3) }'"
# The summary says what the ranks waited in MPI: it is no idleness of a
# process's own, and it was missing there (LULESH on 8 ranks: "useful work
# 93.4%" while the ranks waited 18 to 47% in MPI).
"$CULPRIT" report --summary --event=realtime m.db > sum.txt
"$CULPRIT" report --summary --event=realtime --format=csv m.db > sum.csv
sum_wait=$(awk -F, '$2 == "" && $3 == "mpi" { print $6 }' sum.csv)
all_wait=$(awk '$1 == "rank" { s += $6 } END { print s }' m.out)
check "summary: an MPI line, the ranks' MPI waits in all ($sum_wait s) what the program timed ($all_wait s), within 25%" \
	sh -c "grep -q '^MPI: 3 ranks; their threads waited' sum.txt && awk -v a='$sum_wait' -v w='$all_wait' 'BEGIN { d = a - w; if (d < 0) d = -d; exit !(d <= 0.25 * w + 0.02) }'"
"$CULPRIT" report --by-rank --format=json m.db > ranks.json
python3 "$srcdir/tests/check_json.py" report ranks.json ranks.csv > ranks.check 2>&1
check "report --by-rank --format=json: the CSV's rows, as objects ($(cat ranks.check))" \
	sh -c "grep -q '^ok [1-9]' ranks.check"
"$CULPRIT" report --by-rank m.db > ranks.txt
call=$(grep -n '? heavy(' "$S/mpi_imbalance.c" | head -n 1 | cut -d: -f1)
check "by rank (text): a row per rank, and the frame with the line it was called from ($call)" \
	sh -c "grep -Eq '^ +2  ' ranks.txt && grep -q 'heavy  <- mpi_imbalance.c:$call\$' ranks.txt"
"$CULPRIT" report --waits m.db > waits.txt
check "report --waits: the barrier's line, as MPI waits" \
	grep -Eq '^mpi +mpi .*main \(mpi_imbalance\.c:[0-9]+\)' waits.txt
"$CULPRIT" run -q -o plain ./imbalance 1000 > /dev/null 2>&1
prof plain 2> /dev/null
expect 1 "holds no MPI ranks" "by rank, on a run that was not MPI" \
	"$CULPRIT" report --by-rank plain.db

# ---- the viewer's detail pane ----------------------------------------------------
if have tmux; then
	T="tmux -L culprit-mpi-$$ -f /dev/null"
	$T new-session -d -s v -x 110 -y 32 "TERM=screen; export TERM; \"$CULPRIT\" view m.db; sleep 600"
	sleep 1
	$T send-keys -t v / && sleep 0.3 && $T send-keys -t v heavy Enter && sleep 0.5
	$T send-keys -t v d
	i=0
	while [ $i -lt 50 ] && ! $T capture-pane -t v -p | grep -q 'over 3 MPI ranks'; do
		sleep 0.1
		i=$((i + 1))
	done
	$T capture-pane -t v -p > view.txt
	$T kill-server 2> /dev/null
	check "view: the detail pane shows heavy over the ranks, slowest rank 0" \
		grep -Eq 'ranks +over 3 MPI ranks: mean .* slowest rank 0' view.txt
else
	skip "view: the detail pane over ranks" "tmux is not installed"
fi

# ---- a directory that is not this launch's -------------------------------------
mkdir other
touch -d '-5 min' other	# an old directory is refused at once
$MPIRUN "$CULPRIT" run -q -o other ./imbalance 1000 > other.out 2> other.err
status=$?
check "another run's directory: the launch fails" [ "$status" != 0 ]
# (mpirun ends the other ranks when the first fails: one line or more.)
check "... a rank says so in one line, and no rank ran the program" \
	sh -c "grep -q \"already exists and is not this MPI launch's\" other.err && ! grep -q '^rank' other.out"

# ---- a rank that crashes ----------------------------------------------------------
$MPIRUN "$CULPRIT" run -q -o crash ./imbalance 20000000 crash > /dev/null 2> crash.err
prof crash 2> crash.prof
check "a crashed rank: every rank's files read back" \
	sh -c "! grep -Eq 'damaged|truncated|skipped' crash.prof"
ranks=$(sql crash.db "SELECT count(DISTINCT mpi_rank) FROM processes")
reason=$(sql crash.db "SELECT group_concat(end_reason) FROM processes WHERE mpi_rank = 1")
note "a crashed rank: $ranks ranks in the database; rank 1 ended by $reason"
check "a crashed rank: the three ranks are there" [ "$ranks" = 3 ]
check "a crashed rank: rank 1's end says the signal" sh -c "echo '$reason' | grep -q signal"

# ---- culprit prof --mpi ------------------------------------------------------------
# The ranks merge shares of the processes and rank 0 writes: the database
# must be serial prof's, row for row (same_db.py: reals to 1e-9, the sums
# being added in another order).  Four ranks for three processes leaves
# one rank with no share.  Open MPI keeps memory until the process ends,
# which LeakSanitizer would report in the sanitizer build.
if [ -x "$(dirname "$CULPRIT")/postmortem/culprit-prof-mpi" ]; then
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
	export ASAN_OPTIONS
	# What serial prof says of this measurement (-q: its warnings, if
	# any, as on a loaded machine); --mpi must say the same, once.
	"$CULPRIT" prof -q -o ms.db m > ms.out 2>&1
	if have python3; then
		for n in 1 2 3 4; do
			mpirun -np $n "$CULPRIT" prof --mpi -q -o m$n.db m > m$n.out 2>&1
			status=$?
			check "prof --mpi on $n rank(s): status 0, says what serial prof says, once" \
				sh -c "[ $status = 0 ] && cmp -s ms.out m$n.out"
			check "prof --mpi on $n rank(s): the database is serial prof's" \
				python3 "$srcdir/tests/same_db.py" m.db m$n.db
		done
		mpirun -np 2 "$CULPRIT" prof --mpi -q -o crash2.db crash > /dev/null 2>&1
		check "prof --mpi, a crashed rank's measurement: serial prof's database" \
			python3 "$srcdir/tests/same_db.py" crash.db crash2.db
		# A damaged thread file: rank 0 reads every file and leaves it
		# out of the plan; the others never read it.
		cp -r m bad
		f=$(ls bad/r1-*.thread | head -n 1)
		head -c 300 "$f" > "$f.cut" && mv "$f.cut" "$f"
		"$CULPRIT" prof -q -o bad.db bad > bad.out 2>&1
		mpirun -np 3 "$CULPRIT" prof --mpi -q -o bad3.db bad > bad3.out 2>&1
		check "prof --mpi, a damaged thread file: skipped with serial prof's one warning" \
			sh -c "grep -q 'skipped' bad.out && cmp -s bad.out bad3.out"
		check "prof --mpi, a damaged thread file: serial prof's database" \
			python3 "$srcdir/tests/same_db.py" bad.db bad3.db
	else
		skip "prof --mpi against serial prof" "python3 is not installed"
	fi
	# Another host's overhead rules would classify otherwise: refused.
	mkdir -p xdg/culprit
	echo 'procedure leaf_* custom' > xdg/culprit/mine.rules
	mpirun -np 2 sh -c "[ \$OMPI_COMM_WORLD_RANK = 1 ] && export XDG_CONFIG_HOME=$PWD/xdg; \
		exec '$CULPRIT' prof --mpi -o rules.db m" > rules.out 2> rules.err
	status=$?
	check "prof --mpi, a rank with other overhead rules: fails, rank 0 says so once, no database" \
		sh -c "[ $status != 0 ] && [ \$(grep -c 'overhead rules are not rank 0' rules.err) = 1 ] && [ ! -e rules.db ]"
	mpirun -np 2 "$CULPRIT" prof --mpi -o m2.db m > exists.out 2> exists.err
	status=$?
	check "prof --mpi, an existing output: fails, one line from rank 0 alone" \
		[ "$status" != 0 -a "$(grep -c 'already exists' exists.err)" = 1 ]
	mpirun -np 2 "$CULPRIT" prof --mpi --force m > summary.out 2> summary.err
	check "prof --mpi: the summary line says how many ranks" \
		grep -q 'wrote m.db: 3 processes.*, 2 ranks)' summary.err
else
	expect 1 "not built into" "prof --mpi without MPI built in" "$CULPRIT" prof --mpi m
	skip "prof --mpi against serial prof" "this culprit was configured --without-mpi"
fi

# ---- MPI and OpenMP ---------------------------------------------------------------
if mpicc -fopenmp -O1 -g -fno-omit-frame-pointer -o hybrid "$S/mpi_hybrid.c" 2> /dev/null; then
	# Unbound: mpirun binds each of two ranks to one core, where a thread
	# waiting for its rank's other thread loses no CPU (doc/idleness.md).
	OMP_NUM_THREADS=2 mpirun -np 2 --bind-to none -x OMP_NUM_THREADS "$CULPRIT" run -q -o h ./hybrid > h.out
	status=$?
	check "hybrid: status 0, each rank's line" [ "$status" = 0 -a "$(grep -c '^rank' h.out)" = 2 ]
	prof h
	threads=$(sql h.db "SELECT min(n) FROM (SELECT count(*) AS n FROM threads t JOIN processes p ON p.id = t.process_id GROUP BY p.mpi_rank)")
	check "hybrid: each rank has its OpenMP threads ($threads or more)" [ "${threads:-0}" -ge 2 ]
	idle=$(sql h.db "SELECT round(sum(m.inclusive), 3) FROM contexts c JOIN context_metrics m ON m.context_id = c.id WHERE c.parent_id IS NULL AND m.metric = 'idleness:barrier'")
	note "hybrid: idleness at the loop's barrier $idle s"
	check "hybrid: the loop's imbalance is idleness at its barrier" at_least "${idle:-0}" 0.01
	if [ -x "$(dirname "$CULPRIT")/postmortem/culprit-prof-mpi" ] && have python3; then
		mpirun -np 2 "$CULPRIT" prof --mpi -q -o h2.db h > /dev/null 2>&1
		check "hybrid: prof --mpi gives serial prof's database (OpenMP's threads refer to their creators')" \
			python3 "$srcdir/tests/same_db.py" h.db h2.db
	fi
else
	skip "hybrid MPI + OpenMP" "mpicc -fopenmp builds nothing here"
fi
done_testing
