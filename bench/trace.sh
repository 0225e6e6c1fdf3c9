#!/bin/sh
# SPDX-License-Identifier: MIT
# Trace benchmark: `gputally trace` on large Kineto traces made from the real H200 one
# (bench/gen_trace.py: its steps repeated with shifted times and ids), against Python's
# json.load of the same file in the same run.  A measurement, not a test: it exits 0 and
# says FAIL when a target is missed.  Targets (issue 10): 300 MB/s per core with both cores
# used on one file, peak RSS at most a quarter of the file, .json.gz little more than its
# decompression.  Each gputally run is repeated RUNS times (default 3): min and median are
# printed, as the machine is shared; the load average is printed with each figure.
# Usage: sh bench/trace.sh [BUILD_DIR]    TRACE_MB (default 800) sets the size; RANKS (4) the
# number of files of the many-ranks run; RUNS (3); NO_PYTHON=1 skips the json.load comparison.
set -eu

B=${1:-build}
GT=$B/gputally
D=$B/bench/trace
MB=${TRACE_MB:-800}
RANKS=${RANKS:-4}
RUNS=${RUNS:-3}
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

load() { cut -d' ' -f1 /proc/loadavg; }

# one run of CMD...: prints "wall_s cpu_s rss_MB"
run() {
	rm -f "$D/run.res"
	"$TIMEIT" "$D/run.res" "$@" >"$D/run.out" || say "$* exited with status $?"
	awk '{ printf "%.3f %.3f %.1f", $1, $2, $3 / 1024 }' "$D/run.res"
}

# RUNS runs of CMD... over BYTES of input: one line per run, then min and median of
# wall s, CPU s, MB/s of wall time, MB/s per CPU-second, cores used (CPU / wall), RSS MB.
# The medians are left in $D/med: "wall cpu mbs_wall mbs_cpu cores rss".
runs() {	# LABEL BYTES CMD...
	label=$1 bytes=$2
	shift 2
	: >"$D/runs.txt"
	i=0
	while [ $i -lt "$RUNS" ]; do
		l0=$(load)
		r=$(run "$@")
		echo "$r $l0" >>"$D/runs.txt"
		i=$((i + 1))
	done
	awk -v b="$bytes" -v label="$label" -v med="$D/med" '
	{ w[NR] = $1; c[NR] = $2; r[NR] = $3; l[NR] = $4
	  printf "    run %d: %7.3f s wall %7.3f s CPU %6.0f MB/s wall %5.0f MB/s per CPU-s %4.2f cores %6.1f MB RSS (load %s)\n",
		NR, $1, $2, b / 1e6 / $1, b / 1e6 / $2, $2 / $1, $3, $4 }
	function sort(a, n,   i, j, t) { for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t } }
	END {
		n = NR
		for (i = 1; i <= n; i++) { mw[i] = w[i]; mc[i] = c[i]; mr[i] = r[i]; k[i] = c[i] / w[i] }
		sort(mw, n); sort(mc, n); sort(mr, n); sort(k, n)
		m = int((n + 1) / 2)
		printf "  %s: wall min %.3f median %.3f s (%.0f / %.0f MB/s); CPU min %.3f median %.3f s (%.0f / %.0f MB/s per CPU-s); cores used median %.2f (max %.2f); RSS median %.1f MB\n",
			label, mw[1], mw[m], b / 1e6 / mw[1], b / 1e6 / mw[m], mc[1], mc[m], b / 1e6 / mc[1], b / 1e6 / mc[m], k[m], k[n], mr[m]
		printf "%s %s %.0f %.0f %.2f %s\n", mw[m], mc[m], b / 1e6 / mw[m], b / 1e6 / mc[m], k[m], mr[m] > med
	}' "$D/runs.txt"
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
say "machine: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg); $f: $bytes bytes; $RUNS runs each"

runs "gputally trace --json --threads 1" "$bytes" "$GT" trace --json --threads 1 "$f"
set -- $(cat "$D/med"); w1=$1
runs "gputally trace --json (all CPUs)" "$bytes" "$GT" trace --json "$f"
set -- $(cat "$D/med"); w=$1 c=$2 mbs_cpu=$4 cores=$5 r=$6
kernels=$(sed -n 's/^ *"kernels": \([0-9]*\),/\1/p' "$D/run.out" | head -1)
awk -v b="$bytes" -v mbs="$mbs_cpu" -v k="$cores" -v r="$r" -v w="$w" -v w1="$w1" 'BEGIN {
	printf "  %s %.0f MB/s per core of CPU time, median (target >= 300)\n", (mbs >= 300 ? "PASS" : "FAIL"), mbs
	printf "  %s %.2f cores used, median (target: both of 2; %.2fx the wall speed of --threads 1)\n", (k >= 1.5 ? "PASS" : "FAIL"), k, w1 / w
	printf "  %s peak RSS %.1f MB, %.3f of the file (target <= 0.25)\n", (r * 1e6 / b <= 0.25 ? "PASS" : "FAIL"), r, r * 1e6 / b }'
say "kernels read: $kernels"

runs "gputally trace --json FILE.gz" "$bytes" "$GT" trace --json "$f.gz"
set -- $(cat "$D/med"); wz=$1
runs "gzip -dc FILE.gz >/dev/null" "$bytes" gzip -dc "$f.gz"
set -- $(cat "$D/med"); zcat_w=$1
printf '  .json.gz: gputally %s s against gzip -dc alone %s s (medians; ratio %s)\n' "$wz" "$zcat_w" \
	"$(awk -v a="$wz" -v b="$zcat_w" 'BEGIN { printf "%.2f", a / b }')"

if [ -z "${NO_PYTHON:-}" ]; then
	l0=$(load)
	set -- $(run python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$f"); pw=$1 pc=$2 pr=$3
	printf '  %-34s %8s s %8s cpu_s %9s MB RSS (load %s)\n' "python3 json.load (one run)" "$pw" "$pc" "$pr" "$l0"
	awk -v g="$w" -v p="$pw" -v gc="$c" -v pc="$pc" 'BEGIN {
		printf "  gputally trace is %.1fx the speed of json.load alone (%.1fx in CPU time; gputally medians)\n", p / g, pc / gc }'
fi

many=$D/ranks
gen "$many" $((MB * 1000000)) "$RANKS"
mbytes=$(cat "$many"/*.json | wc -c | tr -d ' ')
runs "gputally trace --json, $RANKS ranks" "$mbytes" "$GT" trace --json "$many"
exit 0
