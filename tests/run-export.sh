#!/bin/sh
# run-export.sh - culprit export in the formats other tools open, checked
# by those tools where Debian or npm has them: folded stacks (summed with
# awk, as flamegraph tools do), speedscope (its published schema, with
# ajv), pprof (go tool pprof); every total against the database's.
. "${srcdir:-.}/tests/lib.sh"
have sqlite3 || skip_all "the sqlite3 program is not installed"

profile_e m CPUTIME@f4000 "$PROGRAMS/leaves" > /dev/null
prof m
work_us=$(sql m.db "SELECT 1e6 * total FROM metrics WHERE event = 'cputime' AND metric = 'work'")
samples=$(sql m.db "SELECT total FROM metrics WHERE event = 'cputime' AND metric = 'samples'")

# ---- folded ----
"$CULPRIT" export --format=folded m.db > m.folded 2> f.err
check "folded: status 0, nothing on stderr" sh -c "[ $? = 0 ] && [ ! -s f.err ]"
check "folded: every line is 'frame;frame value'" \
	sh -c "awk '!/^[^ ;][^;]*(;[^;]+)* [0-9]+$/ { bad++ } END { exit bad > 0 || NR == 0 }' m.folded"
sum=$(awk '{ s += $NF } END { print s }' m.folded)
note "folded: $(wc -l < m.folded) lines, $sum us; the database: $work_us us"
check "folded: the lines add up to the total work in microseconds, to the rounding" near "$sum" "$work_us" 1
check "folded: paths are the report's, inlined frames marked _[i]" \
	grep -q '^main;one_round;leaf_four;work_units_\[i\] [0-9]*$' m.folded
four=$(awk -F'[; ]' '/;leaf_four;/ { s += $NF } END { print s }' m.folded)
flat=$(sql m.db "SELECT 1e6 * inclusive FROM procedure_metrics WHERE procedure = 'leaf_four' AND event = 'cputime' AND metric = 'work'")
check "folded: leaf_four's lines are its inclusive work ($four, $flat)" near "$four" "$flat" 1
"$CULPRIT" export --format=folded --metric=samples -o m.samples m.db
check "folded --metric=samples: the samples, counted" \
	[ "$(awk '{ s += $NF } END { print s }' m.samples)" = "${samples%.0}" ]
OMP=
[ -x "$PROGRAMS/omp_fib-clang" ] && OMP=$PROGRAMS/omp_fib-clang
if [ -n "$OMP" ]; then
	OMP_NUM_THREADS=2 profile_e o CPUTIME@f2000 "$OMP" > /dev/null
	prof o
	"$CULPRIT" export --format=folded --metric=idleness -o o.idle o.db
	idle=$(sql o.db "SELECT 1e6 * total FROM metrics WHERE event = 'cputime' AND metric = 'idleness'")
	check "folded --metric=idleness: the total idleness ($idle us)" \
		near "$(awk '{ s += $NF } END { print s + 0 }' o.idle)" "$idle" 1
	"$CULPRIT" export --format=folded -o o.folded o.db
	check "folded: a task recursion keeps its logical path (main > run > open_region > fib > fib)" \
		grep -q '^main;run;open_region;fib;fib;' o.folded
else
	skip "folded --metric=idleness" "no clang OpenMP program"
	skip "folded: a task recursion keeps its logical path" "no clang OpenMP program"
fi

# ---- speedscope ----
"$CULPRIT" export --format=speedscope -o m.speedscope.json m.db 2> s.err
check "speedscope: status 0, nothing on stderr" sh -c "[ $? = 0 ] && [ ! -s s.err ]"
CONSUMERS=$(cd "$(dirname "$CULPRIT")" && pwd)/consumers/node_modules
SCHEMA=$CONSUMERS/speedscope/dist/release/file-format-schema.json
if command -v node > /dev/null && [ -f "$SCHEMA" ] && [ -d "$CONSUMERS/ajv" ]; then
	NODE_PATH=$CONSUMERS node -e '
		const fs = require("fs"), Ajv = require("ajv");
		const ajv = new Ajv({ allErrors: true, strict: false });
		const ok = ajv.validate(JSON.parse(fs.readFileSync(process.argv[1])),
					JSON.parse(fs.readFileSync(process.argv[2])));
		if (!ok) { console.error(JSON.stringify(ajv.errors).slice(0, 400)); process.exit(1); }' \
		"$SCHEMA" m.speedscope.json > ajv.out 2>&1
	rc=$?
	note "$(cat ajv.out)"
	check "speedscope: the file is valid against speedscope's published schema (ajv)" [ $rc = 0 ]
else
	skip "speedscope: the file is valid against speedscope's published schema" \
		"speedscope's npm package or ajv is not installed (./setup.sh installs them)"
fi
verdict=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
frames = d["shared"]["frames"]
out = []
for p in d["profiles"]:
    ok = len(p["samples"]) == len(p["weights"]) and all(0 <= i < len(frames) for s in p["samples"] for i in s)
    out.append("%s=%.3f:%d" % (p["name"].split(" ", 1)[1], sum(p["weights"]), ok))
print(" ".join(out))' m.speedscope.json)
note "speedscope: $verdict"
check "speedscope: a profile per metric, samples and weights in step" \
	sh -c "echo '$verdict' | grep -q 'work=.*:1' && echo '$verdict' | grep -q 'samples=.*:1' && ! echo '$verdict' | grep -q ':0'"
sw=$(echo "$verdict" | tr ' ' '\n' | sed -n 's/^work=\([0-9.]*\):1$/\1/p')
check "speedscope: the work profile adds up to the total work ($sw us)" near "${sw:-0}" "$work_us" 1

# ---- pprof ----
"$CULPRIT" export --format=pprof -o m.pb.gz m.db 2> p.err
check "pprof: status 0, nothing on stderr, gzip" sh -c "[ $? = 0 ] && [ ! -s p.err ] && gzip -t m.pb.gz"
if command -v go > /dev/null && go tool pprof -h > /dev/null 2>&1; then
	HOME=${HOME:-$WORK} go tool pprof -top -nodecount=5 m.pb.gz > top.txt 2> top.err
	note "$(head -n 12 top.txt)"
	total=$(sed -n 's/.*Total samples = \([0-9.]*\)ms.*/\1/p' top.txt)
	check "go tool pprof: the total is the database's work (${total:-?} ms)" \
		near "${total:-0}" "$(awk -v u="$work_us" 'BEGIN { print u / 1000 }')" 0.02
	first=$(awk '/flat%/ { on = 1; next } on && NF { print $6; exit }' top.txt)
	want=$("$CULPRIT" report --view=flat --format=csv m.db | awk -F, 'NR == 2 { print $1 }')
	check "go tool pprof -top puts the report's hottest procedure first ($first, $want)" \
		[ "$first" = "$want" ]
	HOME=${HOME:-$WORK} go tool pprof -top -sample_index=samples m.pb.gz > ts.txt 2>&1
	check "go tool pprof: the samples type counts the samples ($samples)" \
		grep -Eq "Total samples = ${samples%.0}( |\$)" ts.txt
	HOME=${HOME:-$WORK} go tool pprof -raw m.pb.gz > raw.txt 2>&1
	check "pprof: sample types for every metric, the build id in the mapping" \
		sh -c "grep -Eq 'samples/count work/nanoseconds(\\[dflt\\])? idleness/nanoseconds overhead/nanoseconds useful_work/nanoseconds effort/nanoseconds' raw.txt &&
		       grep -Eq '[0-9a-f]{40}' raw.txt"
else
	skip "go tool pprof reads the profile" "go (Debian golang-go) is not installed"
fi

# ---- output and mistakes ----
"$CULPRIT" export --format=folded -o - m.db > dash.folded
check "-o -: standard output" cmp -s dash.folded m.folded
expect 1 "already exists" "export over an existing file" \
	"$CULPRIT" export --format=folded -o m.samples m.db
check "--force replaces it" sh -c "\"$CULPRIT\" export --format=folded --force -o m.samples m.db && cmp -s m.samples m.folded"
expect 1 "unknown export format 'svg'" "export --format=svg" "$CULPRIT" export --format=svg m.db
expect 1 "no metric 'bogus'" "export --metric=bogus" \
	"$CULPRIT" export --format=folded --metric=bogus m.db
expect 1 "cannot write" "export into a missing directory" \
	"$CULPRIT" export --format=pprof -o no/such/dir/m.pb.gz m.db
check "export: nothing left behind after a refusal" [ ! -e no ]

done_testing
