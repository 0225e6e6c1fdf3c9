#!/bin/sh
# Issue 33: streams, shared stores, terminals, bounds.  Each check runs a
# real command on rows of examples/h200-training (or a store built from
# them) and states what it wants; every check failed before its fix.
# Usage: sh tests/streams/run.sh BIN
set -u
BIN=$1
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
EX=$ROOT/examples/h200-training
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT INT TERM
export LC_ALL=C TZ=UTC
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok: $1"; }
bad() { fail=$((fail + 1)); echo "FAIL: $1"; }
# run CMD... with a time limit (a hang is a failure, not a stuck tier)
lim() { timeout 20 "$@"; }

# ---- trend --csv: an hour with no GPU time has empty cells, never nan ----
Q=$EX/query_gpu_units_500ms.csv
{ head -1 "$Q"; sed -n 2,40p "$Q" | sed 's#2026/11/29 22:#2026/11/29 19:#'; sed -n '41,$p' "$Q"; } >"$T/gap.csv"
"$BIN" ingest -q --db "$T/gap.db" "$T/gap.csv" >/dev/null 2>&1
"$BIN" trend --db "$T/gap.db" --csv --by hour >"$T/gap.out" 2>&1
if grep -q '2026-11-29T20Z' "$T/gap.out" && ! grep -qi 'nan\|,-,' "$T/gap.out" &&
   grep -q '^2026-11-29T20:00:00Z,2026-11-29T20Z,1,0.000000,0.000000,,,,' "$T/gap.out"; then
	ok "trend --csv: the hours inside a gap have empty cells"
else
	bad "trend --csv: the hours inside a gap have empty cells"; cat "$T/gap.out"
fi

echo "streams: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
