#!/bin/sh
# run-processes.sh - fork, exec, posix_spawn and system(): every process
# image gets its own files and only its own samples.
. "${srcdir:-.}/tests/lib.sh"

P=$PROGRAMS/procs

profile m "$P" fork > out.txt
check "fork: parent saw the child's status" grep -q "child exited with 7" out.txt
check "fork: two process files" [ "$(ls m/*.process | wc -l)" = 2 ]
parent=$(ls m/*.thread | head -n 1)
for f in m/*.thread; do
	if [ "$(exclusive "$f" child_work)" -gt 0 ]; then child=$f; else parent=$f; fi
done
check "fork: the child has a thread file with its work" [ -n "${child:-}" ]
check "fork: the child's file has none of the parent's samples" [ "$(exclusive "${child:-/dev/null}" parent_before)" = 0 ]
check "fork: the parent's file has its work before and after the fork" \
	sh -c "[ $(exclusive "$parent" parent_before) -gt 0 ] && [ $(exclusive "$parent" parent_after) -gt 0 ]"
check "fork: the parent's file has none of the child's work" [ "$(exclusive "$parent" child_work)" = 0 ]

profile e "$P" exec > out.txt
check "exec: the final image ran" grep -q "exec-final" out.txt
check "exec: three generations (failed exec, then exec)" [ "$(ls e/*.process | wc -l)" = 3 ]
g0=$(one_file e/procs-*-0.process)
g1=$(one_file e/procs-*-1.process)
g2=$(one_file e/procs-*-2.process)
check "exec: generation 0 ended by exec" sh -c "\"$CULPRIT\" dump '$g0' | grep -q 'by exec'"
check "exec: generation 1 ended by exec" sh -c "\"$CULPRIT\" dump '$g1' | grep -q 'by exec'"
check "exec: generation 2 ended by exit" sh -c "\"$CULPRIT\" dump '$g2' | grep -q 'by exit'"
check "exec: work before the exec is in generation 0" at_least "$(exclusive "$(one_file e/procs-*-0-t0.thread)" before_exec)" 5
check "exec: work after the failed exec is in generation 1" at_least "$(exclusive "$(one_file e/procs-*-1-t0.thread)" after_failed_exec)" 5
check "exec: work of the new image is in generation 2" at_least "$(exclusive "$(one_file e/procs-*-2-t0.thread)" after_exec)" 5

profile n "$P" noenv > out.txt
check "exec with an empty environment: the new image still loads culprit" grep -q "LD_PRELOAD is set" out.txt
check "exec with an empty environment: it is measured" [ -n "$(one_file n/procs-*-1-t0.thread)" ]

profile s "$P" spawn > out.txt
check "posix_spawn: the child ran" grep -q "spawned child exited with 0" out.txt
check "posix_spawn: the child is measured despite its own environment" [ "$(ls s/*.process | wc -l)" = 2 ]

profile y "$P" system > out.txt
check "system: the shell's status came back" grep -q "system returned 3" out.txt
check "system: the shell is measured" [ "$(ls y/*.process | wc -l)" -ge 2 ]

done_testing
