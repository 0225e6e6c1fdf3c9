#!/bin/sh
# Per-second state accuracy on the bundled capture (examples/h200-training)
# against the workload's own phase log: within each phase (asserted) and
# around each phase change (reported).  See tests/states/accuracy.py.
# Usage: sh tests/states/run.sh BIN
set -eu
bin=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT INT TERM
export LC_ALL=C TZ=UTC
"$bin" report --json "$root/examples/h200-training" >"$tmp/report.json" 2>/dev/null
python3 "$root/tests/states/accuracy.py" "$tmp/report.json" "$root/examples/h200-training/app_log.jsonl" 95
# issue 29's cases on rows replayed from the same capture (tests/states/cases.py)
python3 "$root/tests/states/cases.py" "$bin" "$root/examples/h200-training" throttle bursty long busy header
