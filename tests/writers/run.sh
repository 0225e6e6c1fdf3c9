#!/bin/sh
# SPDX-License-Identifier: MIT
# Every writer renders the same numbers (issue 30): the report of a case as
# text, Markdown and HTML against its JSON (tests/writers/check.py), on the
# bundled H200 capture and on generated multi-GPU logs that replay the
# capture's rows (tests/judge/gen.py).
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

# four GPUs over two hours: a leak on GPU 1, GPU 3 quiet (an imbalance), a
# five-minute gap on every GPU; GPU 2 replays from another row
cd "$T" || exit 2
gen --gpus 0,1,2,3 --hours 2 --creep 1:400 --quiet 3 --offset 2:50 --gap 3000:300 >four.log || exit 2
check four-gpus --profile h200-vs-cloud four.log
check four-gpus-unpriced --set cloud_hourly_rate=0 four.log
# eight GPUs, indices 2..9 (not the report's numbers), over six hours
gen --gpus 2,3,4,5,6,7,8,9 --hours 6 --step 5 --creep 4:300 --quiet 9 --offset 5:100 --offset 6:200 >eight.log || exit 2
check eight-gpus --profile h200-vs-cloud eight.log

[ $fail = 0 ] && echo "writers: all passed" || echo "writers: FAILED"
exit $fail
