#!/bin/sh
# SPDX-License-Identifier: MIT
# check-tests.sh: lint the shell test scripts for checks that cannot fail.
#
# A check written as
#     check "ran ($(head -c 200 err))" "[ $? -eq 0 ]"
# tests the status of the command substitution in its own description, not
# the command before it: under bash it always passes (dash happens to keep
# the earlier status).  Capture the status first: rc=$?; check "..." "[ $rc ...".
# Prints each offender as file:line and exits 1; prints a summary and exits 0.
cd "$(dirname "$0")/.." || exit 2
bad=0
n=0
for f in $(find tests -name '*.sh' | LC_ALL=C sort); do
	n=$((n + 1))
	out=$(grep -n 'check "[^"]*\$([^"]*" "[^"]*\$?' "$f")
	if [ -n "$out" ]; then
		printf '%s\n' "$out" | sed "s|^|$f:|; s|\$| : \$? after a command substitution in the description: capture rc=\$? first|"
		bad=$((bad + 1))
	fi
done
if [ "$bad" -ne 0 ]; then
	echo "check-tests: $bad file(s) with checks that cannot fail" >&2
	exit 1
fi
echo "check-tests: $n scripts, ok"
