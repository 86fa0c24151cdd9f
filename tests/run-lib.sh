#!/bin/sh
# run-lib.sh - the checks of lib.sh cannot pass by accident: comparisons
# fail on an empty, missing or non-numeric measurement and on a ratio of
# nothing; negative checks fail on empty output; helpers that read a
# measurement file print nothing for a file that is not there.
. "${srcdir:-.}/tests/lib.sh"

# fails DESCRIPTION COMMAND...: COMMAND must fail.
fails() {
	local desc=$1
	shift
	if "$@" 2> /dev/null; then not_ok "$desc"; else ok "$desc"; fi
}

check "near: 1.04 is 1 within 0.05" near 1.04 1 0.05
fails "near: 1.06 is not 1 within 0.05" near 1.06 1 0.05
fails "near: an empty measurement is near nothing" near "" 0 1
fails "near: ... nor is anything near an empty one" near 0 "" 1
fails "near: text is not a number" near "Error: no such table" 0 1
check "within: 105 is 100 within 10%" within 105 100 0.1 0
fails "within: an empty measurement" within "" 0 0.1 1
check "below: 0 < 0.05" below 0 0.05
fails "below: an empty measurement is below nothing" below "" 5
fails "below: a ratio of a zero whole" below "$(ratio 0 0 2> /dev/null)" 0.05
fails "below: a ratio of a missing whole" below "$(ratio 0 "" 2> /dev/null)" 0.05
check "at_least: 2e-1 >= 0.2" at_least 2e-1 0.2
fails "at_least: an empty measurement" at_least "" 0
check "ratio: 1 / 4 is 0.250" [ "$(ratio 1 4)" = 0.250 ]
fails "ratio: of a zero whole, a failure" ratio 1 0
check "ratio: ... and nothing printed" [ -z "$(ratio 1 0 2> /dev/null)" ]
fails "percent: of a zero whole, a failure" percent 0 0
check "percent: 1 of 8 is 12.5" [ "$(percent 1 8)" = 12.5 ]
check "nearly_all: 99 of 100" nearly_all 99 100
fails "nearly_all: nothing of nothing is not nearly all" nearly_all 0 0

: > empty.txt
printf 'heavy_caller\nlight_caller\n' > both.txt
printf 'heavy_caller\n' > heavy.txt
fails "has_not: empty output fails" has_not empty.txt heavy light
fails "has_not: a missing file fails" has_not missing.txt heavy light
fails "has_not: the unwanted line is there" has_not both.txt heavy light
check "has_not: the wanted line, not the unwanted one" has_not heavy.txt heavy light
fails "fits: empty output fails" fits empty.txt 80 .
printf 'title\n%0101d\n' 0 > wide.txt
fails "fits: a line of 101 columns does not fit 100" fits wide.txt 100 title
check "fits: ... it fits 101" fits wide.txt 101 title

for h in exclusive inclusive total; do
	check "$h: of a missing file, nothing" [ -z "$($h missing.thread main 2> /dev/null)" ]
	fails "$h: ... and a failure" $h missing.thread main
done
fails "a count of nothing is not 0" [ "$(exclusive missing.thread main)" = 0 ]

out=$(skip "a check" "no such tool")
check "skip: a TAP SKIP line" [ "$out" = "ok $((tap_n + 1)) - a check # SKIP no such tool" ]

done_testing
