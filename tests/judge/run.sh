#!/bin/sh
# Issue 29 on long, messy runs: generated dmon logs that replay the bundled
# capture's rows (tests/judge/gen.py) over days and several GPUs, and the
# capture itself with a kernel log; each case checks the right finding and
# nothing false (tests/judge/check.py says what each expects).
# Usage: sh tests/judge/run.sh BIN
set -eu
BIN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
HERE=$(cd "$(dirname "$0")" && pwd)
CAP=$HERE/../../examples/h200-training/dmon_pucvmet_DT.log
if [ -n "${KEEP:-}" ]; then
	T=$KEEP
	mkdir -p "$T"
else
	T=$(mktemp -d)
	trap 'rm -rf "$T"' EXIT INT TERM
fi
export LC_ALL=C TZ=UTC
gen() { python3 "$HERE/gen.py" "$@"; }
check() { python3 "$HERE/check.py" "$@"; }

# case 1: three days of 1 s rows, GPUs 2 and 5, GPU 5 creeping 58 MiB/h
gen --gpus 2,5 --hours 72 --creep 5:58 >"$T/c1.log"
"$BIN" report --json "$T/c1.log" >"$T/c1.json"
"$BIN" report "$T/c1.log" >"$T/c1.txt"
check summary "$T/c1.json" "$T/c1.txt" 5

# case 1 with an Xid flood on GPU 2 (10000 Xid 13 over the three days,
# 983 bursts of repeats within a minute): the leak still first, every
# kind on the text screen
gen --hours 72 --kern-xid 10000 >"$T/c1-kern.log"
echo "0000:01:00.0 2" >"$T/c1-map.txt"
"$BIN" report --json --gpu-map "$T/c1-map.txt" "$T/c1.log" "$T/c1-kern.log" >"$T/c1x.json"
"$BIN" report --gpu-map "$T/c1-map.txt" "$T/c1.log" "$T/c1-kern.log" >"$T/c1x.txt"
check flood "$T/c1x.json" "$T/c1x.txt" 5 2

# case 2: a 58 GiB model loaded over 10 min and held 4 h is no leak;
# the same load cut off after 9 min (still rising at the end) is one
gen --gpus 3 --hours 4 --load 3:59392:600 >"$T/c2.log"
"$BIN" report --json "$T/c2.log" >"$T/c2.json"
check noleak "$T/c2.json"
gen --gpus 3 --hours 0.15 --load 3:59392:600 >"$T/c2b.log"
"$BIN" report --json "$T/c2b.log" >"$T/c2b.json"
check rising "$T/c2b.json" 3

# case 7: the capture with a kernel log: a driver load 30 s (7 s of idle)
# before the first held_idle, an NVRM error 47 s (compute) before the
# input-starved stretch, an Xid 13 2 s before the last held_idle
(cd "$HERE/evidence" && "$BIN" report --json --gpu-map gpu-map.txt "$CAP" kern.log) >"$T/c7.json"
check evidence "$T/c7.json"

# case 7, on a long run: a suspend 1 s before a 2-minute gap an hour into
# 3 hours of GPU 0 is named by the gap's finding, two hours of other
# stretches later
gen --gpus 0 --hours 3 --gap 3601:120 >"$T/c7b.log"
printf '2026-11-29T01:00:00,000000+00:00 PM: suspend entry (deep)\n2026-11-29T01:02:00,500000+00:00 PM: suspend exit\n' >"$T/c7b-kern.log"
(cd "$T" && "$BIN" report --json c7b.log c7b-kern.log) >"$T/c7b.json"
check gaplink "$T/c7b.json"

# case 8: GPUs 1 and 4, GPU 4 replaying only the capture's quiet rows
gen --gpus 1,4 --hours 0.5 --quiet 4 >"$T/c8.log"
"$BIN" report --json "$T/c8.log" >"$T/c8.json"
"$BIN" report "$T/c8.log" >"$T/c8.txt"
check imbalance "$T/c8.json" "$T/c8.txt" 4

# a month of 8 GPUs at 1-minute rows: the text report's findings fit on a screen
gen --gpus 0,1,2,3,4,5,6,7 --hours 720 --step 60 --creep 6:58 --quiet 3 \
	--offset 1:17 --offset 2:41 --offset 4:77 --offset 5:101 --offset 6:133 --offset 7:171 >"$T/month.log"
"$BIN" report --json "$T/month.log" >"$T/month.json"
"$BIN" report "$T/month.log" >"$T/month.txt"
check screen "$T/month.json" "$T/month.txt" 6 3
echo "judge-tests: all cases passed"
