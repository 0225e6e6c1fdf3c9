#!/bin/sh
# SPDX-License-Identifier: MIT
# Every writer renders the same numbers (issue 30): the report of a case as
# text, Markdown and HTML against its JSON (tests/writers/check.py), on the
# bundled H200 capture and on generated multi-GPU logs that replay the
# capture's rows (tests/judge/gen.py); cost and trend as text (and
# --explain, CSV) against theirs (tests/writers/check_cost.py).
#   tests/writers/run.sh BIN
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$(cd "$(dirname "$0")/../.." && pwd)
export LC_ALL=C TZ=UTC
T=$(mktemp -d) || exit 2
trap 'rm -rf "$T"' EXIT
check() { python3 "$root/tests/writers/check.py" "$bin" "$@" || fail=1; }
gen() { python3 "$root/tests/judge/gen.py" "$@"; }
fail=0

# the capture: one GPU, five findings, priced, then with the built-in prices
cd "$root/examples/h200-training" || exit 2
check h200 --profile h200-vs-cloud .
check h200-assumed .
# with its three profiler traces joined (busy then counts their kernels)
mkdir "$T/traces" && cp ./* "$root"/tests/trace/data/*.json.gz "$T/traces/" || exit 2
check h200-traces --profile h200-vs-cloud "$T/traces"

# the capture with bad rows: a utilization cell spoiled in 25 rows (25
# reasons), two fields cut from 11 (one reason): the skipped lines by file
# and reason, the same groups in every writer
mkdir "$T/spoiled" && cp ./* "$T/spoiled/" || exit 2
awk -F', ' 'BEGIN { OFS = ", " } NR == 1 { print; next } { n++ } n % 10 == 5 && k < 25 { k++; $7 = "x" k " %" }
	n % 40 == 7 { NF = NF - 2 } { print }' query_gpu_units_500ms.csv >"$T/spoiled/query_gpu_units_500ms.csv" || exit 2
(cd "$T/spoiled" && check h200-spoiled --profile h200-vs-cloud .)

# four GPUs over two hours: a leak on GPU 1, GPU 3 quiet (an imbalance), a
# five-minute gap on every GPU; GPU 2 replays from another row
cd "$T" || exit 2
gen --gpus 0,1,2,3 --hours 2 --creep 1:400 --quiet 3 --offset 2:50 --gap 3000:300 >four.log || exit 2
check four-gpus --profile h200-vs-cloud four.log
check four-gpus-unpriced --set cloud_hourly_rate=0 four.log
# eight GPUs, indices 2..9 (not the report's numbers), over six hours
gen --gpus 2,3,4,5,6,7,8,9 --hours 6 --step 5 --creep 4:300 --quiet 9 --offset 5:100 --offset 6:200 >eight.log || exit 2
check eight-gpus --profile h200-vs-cloud eight.log

# gputally cost: text and --explain against its JSON, priced and at the defaults
checkc() { python3 "$root/tests/writers/check_cost.py" "$@" || fail=1; }
checkc cost "$bin" cost-roi --profile h200-vs-cloud --utilization 0.4 --job-hours 3
checkc cost "$bin" cost-short-job --profile h200-vs-cloud --utilization 0.2 --job-hours 0.05
checkc cost "$bin" cost-defaults
# gputally trend: text and CSV against its JSON, by day over three days of
# two GPUs replaying the capture, by hour and by task on the capture
gen --gpus 0,1 --hours 72 --step 60 --creep 1:50 >three-days.log || exit 2
"$bin" ingest --db days.db three-days.log >/dev/null 2>&1 || { echo "writers: FAIL: ingest three-days.log"; fail=1; }
checkc trend "$bin" trend-days --db days.db --by day --profile h200-vs-cloud
checkc trend "$bin" trend-days-unpriced --db days.db --by week
"$bin" ingest --db h200.db "$root"/examples/h200-training/* >/dev/null 2>&1 || { echo "writers: FAIL: ingest the capture"; fail=1; }
checkc trend "$bin" trend-hour --db h200.db --by hour --profile h200-vs-cloud
checkc trend "$bin" trend-tasks --db h200.db --by task --profile h200-vs-cloud

[ $fail = 0 ] && echo "writers: all passed" || echo "writers: FAILED"
exit $fail
