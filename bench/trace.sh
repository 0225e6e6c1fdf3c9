#!/bin/sh
# SPDX-License-Identifier: MIT
# Trace benchmark: `gputally trace` on large Kineto traces made from the real H200 one
# (bench/gen_trace.py: its steps repeated with shifted times and ids), against Python's
# json.load of the same file in the same run.  A measurement, not a test: it exits 0 and
# says FAIL when a target is missed.  Targets (issue 10): 300 MB/s per core, peak RSS at
# most a quarter of the file, .json.gz little more than its decompression.
# Usage: sh bench/trace.sh [BUILD_DIR]    TRACE_MB (default 800) sets the size; RANKS (4) the
# number of files of the many-ranks run; NO_PYTHON=1 skips the json.load comparison.
set -eu

B=${1:-build}
GT=$B/gputally
D=$B/bench/trace
MB=${TRACE_MB:-800}
RANKS=${RANKS:-4}
SRC=tests/trace/data/trace_compute.json.gz
say() { printf '%s\n' "bench-trace: $*"; }

[ -x "$GT" ] || { say "$GT is missing; run 'make' first"; exit 1; }
mkdir -p "$D"
TIMEIT=$D/timeit
${CC:-cc} -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -o "$TIMEIT" bench/timeit.c

gen() {	# DIR BYTES RANKS
	want="$2 $3 $(cksum <bench/gen_trace.py)"
	if [ -f "$1.stamp" ] && [ "$(cat "$1.stamp")" = "$want" ]; then
		say "reusing $1"
		return 0
	fi
	rm -rf "$1"
	python3 bench/gen_trace.py "$SRC" "$1" "$2" "$3"
	printf '%s\n' "$want" >"$1.stamp"
}

# one run of CMD...: prints "wall_s cpu_s rss_MB"
run() {
	rm -f "$D/run.res"
	"$TIMEIT" "$D/run.res" "$@" >"$D/run.out" || say "$* exited with status $?"
	awk '{ printf "%.3f %.3f %.1f", $1, $2, $3 / 1024 }' "$D/run.res"
}

one=$D/one
gen "$one" $((MB * 1000000)) 1
f=$one/rank0.pt.trace.json
bytes=$(wc -c <"$f" | tr -d ' ')
if [ ! -f "$f.gz" ] || [ "$f.gz" -ot "$f" ]; then
	say "gzip -1 $f"
	gzip -1 -c "$f" >"$f.gz"
fi
cat "$f" "$f.gz" >/dev/null
say "machine: $(nproc) CPUs; $f: $bytes bytes"
set -- $(run "$GT" trace --json "$f"); w=$1 c=$2 r=$3
kernels=$(sed -n 's/^ *"kernels": \([0-9]*\),/\1/p' "$D/run.out" | head -1)
printf '  %-34s %8s s %8s cpu_s %9s MB/s %9s MB RSS\n' "gputally trace --json, one file" "$w" "$c" \
	"$(awk -v b="$bytes" -v w="$w" 'BEGIN { printf "%.0f", b / 1e6 / w }')" "$r"
awk -v b="$bytes" -v w="$w" -v c="$c" -v r="$r" 'BEGIN {
	mbs = b / 1e6 / c
	printf "  %s %.0f MB/s per core of CPU time (target >= 300)\n", (mbs >= 300 ? "PASS" : "FAIL"), mbs
	printf "  %s peak RSS %.1f MB, %.3f of the file (target <= 0.25)\n", (r * 1e6 / b <= 0.25 ? "PASS" : "FAIL"), r, r * 1e6 / b }'
say "kernels read: $kernels"
set -- $(run "$GT" trace --json "$f.gz"); wz=$1
zcat_w=$(set -- $(run gzip -dc "$f.gz"); echo "$1")
printf '  %-34s %8s s (gzip -dc alone: %s s; ratio %s)\n' "gputally trace --json FILE.gz" "$wz" "$zcat_w" \
	"$(awk -v a="$wz" -v b="$zcat_w" 'BEGIN { printf "%.2f", a / b }')"
if [ -z "${NO_PYTHON:-}" ]; then
	set -- $(run python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$f"); pw=$1 pc=$2 pr=$3
	printf '  %-34s %8s s %8s cpu_s %19s MB RSS\n' "python3 json.load" "$pw" "$pc" "$pr"
	awk -v g="$w" -v p="$pw" -v gc="$c" -v pc="$pc" 'BEGIN {
		printf "  gputally trace is %.1fx the speed of json.load alone (%.1fx in CPU time)\n", p / g, pc / gc }'
fi
many=$D/ranks
gen "$many" $((MB * 1000000)) "$RANKS"
cat "$many"/*.json >/dev/null
set -- $(run "$GT" trace --json "$many"); w=$1 c=$2 r=$3
printf '  %-34s %8s s %8s cpu_s %9s MB/s %9s MB RSS (cpu/wall %s)\n' "gputally trace --json, $RANKS ranks" \
	"$w" "$c" "$(awk -v b="$bytes" -v w="$w" 'BEGIN { printf "%.0f", b / 1e6 / w }')" "$r" \
	"$(awk -v w="$w" -v c="$c" 'BEGIN { printf "%.2f", c / w }')"
exit 0
