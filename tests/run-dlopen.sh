#!/bin/sh
# run-dlopen.sh - code in libraries that were unloaded stays nameable.
. "${srcdir:-.}/tests/lib.sh"

profile m "$PROGRAMS/dl" "$PROGRAMS" > out.txt
check "dl: program ran normally" grep -q "dl done" out.txt
f=$(one_file m/dl-*-t0.thread)
p=$(one_file m/dl-*.process)
a=$(exclusive "$f" plugin_a_work)
b=$(exclusive "$f" plugin_b_work)
note "plugin_a_work $a samples, plugin_b_work $b samples"
check "dl: samples in the first library are named after it was unloaded" at_least "$a" 50
check "dl: samples in the second library are named" at_least "$b" 50
for lib in libplugin_a.so libplugin_b.so; do
	check "dl: the load map records $lib with its build-id" \
		sh -c "\"$CULPRIT\" dump '$p' | grep -A1 '/$lib' | grep -q 'build-id [0-9a-f]\{40\}'"
	check "dl: the load map records when $lib was unloaded" \
		sh -c "\"$CULPRIT\" dump '$p' | grep -A1 '/$lib' | grep -q unloaded"
done
check "dl: no sampled frame is outside every module" [ "$(counter "$f" frames:unknown_module)" = 0 ]

# 20,000 dlopen/dlclose pairs at 5 kHz: samples land while the loader
# takes and releases its list lock.  A handler that called glibc's
# dl_iterate_phdr there (through libunwind) waited for itself forever.
rc=0
timeout 60 "$CULPRIT" run -q -e CPUTIME@f5000 -o churn "$PROGRAMS/dl" "$PROGRAMS" 20000 \
	> churn.txt 2>&1 || rc=$?
check "dl churn: 20,000 dlopen/dlclose under sampling end, status 0 (it is $rc; 124: hung)" \
	[ "$rc" = 0 ]
check "dl churn: the program ran normally" grep -q "dl done" churn.txt
f=$(one_file churn/dl-*-t0.thread)
samples=$(counter "$f" samples)
unknown=$(counter "$f" frames:unknown_module)
note "dl churn: $samples samples, $unknown frames in no module"
check "dl churn: fewer than 1 frame in 100 samples is outside every module" \
	[ "$((unknown * 100))" -lt "$samples" ]

# Two threads holding the loader's two locks while one is sampled
# (tests/programs/loader_locks.c): the lock wrapper's first slow call,
# inside a dl_iterate_phdr callback, must not look anything up (dlsym
# takes the loader's lock); if it did, the thread in the constructor and
# its sample handler's unwind would wait for each other forever.
rc=0
timeout -k 5 60 "$CULPRIT" run -q -e CPUTIME@f2000 -o locks "$PROGRAMS/loader_locks" "$PROGRAMS" \
	> locks.txt 2>&1 || rc=$?
check "loader locks: a constructor sampled while another thread iterates the modules ends, status 0 (it is $rc; 124 or 137: hung)" \
	[ "$rc" = 0 ]
check "loader locks: the program ran normally" grep -q "loader locks done" locks.txt
# A thread sampled inside dl_iterate_phdr callbacks while new threads make
# their first unwinds: libunwind holds its cache's lock across its own
# dl_iterate_phdr, so the handler must not unwind there (hung 3 of 3
# before; the samples there keep the frame they interrupted).
rc=0
timeout -k 5 60 "$CULPRIT" run -q -e CPUTIME@f2000 -o iter "$PROGRAMS/loader_locks" iterate \
	> iter.txt 2>&1 || rc=$?
check "loader locks: a thread sampled inside dl_iterate_phdr beside threads starting ends, status 0 (it is $rc; 124 or 137: hung)" \
	sh -c "[ $rc = 0 ] && grep -q 'loader locks done' iter.txt"

done_testing
