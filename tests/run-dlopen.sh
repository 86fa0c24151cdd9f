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

done_testing
