#!/bin/sh
# SPDX-License-Identifier: MIT
# The verdicts of `make bench`, gathered at its end from what each script printed
# (BUILD_DIR/bench/*.out): the three speed targets of issue 33, each a ratio to a
# baseline timed in the same run, the growth with the input (bench/scale.sh: 4x the input
# against 1x), then every other PASS and FAIL line.
# Usage: sh bench/summary.sh [BUILD_DIR]
B=${1:-build}
D=$B/bench
echo
echo "bench: summary (each ratio is against its baseline measured in the same run)"
for pat in 'kernel log \(frequent NVIDIA lines\): report/grep' 'MB/s per core of CPU time' 'ingest of [0-9]* days: ingest/report'; do
	lines=$(cat "$D"/*.out 2>/dev/null | grep -E "(PASS|FAIL) .*$pat")
	if [ -n "$lines" ]; then
		printf '%s\n' "$lines" | sed 's/^ */  issue 33: /'
	else
		printf '  issue 33: no verdict for "%s" (its script did not run to the end)\n' "$pat"
	fi
done
# growth with the input (bench/scale.sh): 4x the input should cost about 4x the time
lines=$(cat "$D"/*.out 2>/dev/null | grep -E '(PASS|FAIL) report --json on 4x the input')
if [ -n "$lines" ]; then
	printf '%s\n' "$lines" | sed 's/^ */  growth: /'
else
	printf '  growth: no verdict for "report --json on 4x the input" (bench/scale.sh did not run to the end)\n'
fi
cat "$D"/*.out 2>/dev/null | grep -E '^ *(PASS|FAIL) ' | sed 's/^ */  /' |
	grep -v -E -e 'kernel log \(frequent NVIDIA lines\): report/grep' -e 'MB/s per core of CPU time' \
		-e 'ingest of [0-9]* days: ingest/report' -e 'report --json on 4x the input'
exit 0
