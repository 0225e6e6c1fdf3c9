#!/bin/sh
# SPDX-License-Identifier: MIT
# Growth with the input: `report --json` on 1x and 4x of a long log with many findings, many
# processes and many Xids, timed in the same run; the time ratio is judged against 4.0 (linear).
# Usage: sh bench/scale.sh [BUILD_DIR]   (`make bench` runs it after bench/store.sh)
#   DAYS=N   days of the 1x input (default 2; 4x is 4N days)
#   RUNS=N   rounds (default 5): each round times 1x then 4x, and the ratio is taken within it
# 1x: DAYS day(s) of 8 GPUs at a 10 s step replayed from the H200 capture, idle out of
# 09-18 UTC (gen-logs --workday: about 800 findings a day, most of them memory_leak), an
# nvidia-smi pmon log of the same GPUs with a new process every 5 minutes on each (about
# 2300 processes a day), and a kern.log of frequent Xids (gen-kernlog, 5 MB a day, about
# 1900 Xids, over the first hours).  4x: four times each.
# A measurement, not a test: it prints the figures and FAIL next to a missed target, exits 0.
set -eu

B=${1:-build}
GT=$B/gputally
GEN=$B/gen-logs
GENK=$B/gen-kernlog
D=$B/bench/scale
DAYS=${DAYS:-2}
RUNS=${RUNS:-5}
# The line: linear is 4.0, and the 1x run's fixed costs (start-up, the cost model) make a
# linear program measure a little under it: 3.56 and 3.82 in CPU time on a shared two-core
# machine (2026-12-06).  4.6 leaves room for the noise of such a machine and still fails a
# stage that grows faster than n log n: before the third session's fixes this case
# measured 12.5 (docs/perf.md "growth with the input").
LIMIT=4.6
say() { printf '%s\n' "bench-scale: $*"; }
for f in "$GT" "$GEN" "$GENK"; do
	[ -x "$f" ] || { say "$f is missing; run 'make' first"; exit 1; }
done
mkdir -p "$D"
TIMEIT=$D/timeit
${CC:-cc} -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -o "$TIMEIT" bench/timeit.c

# pmon DAYS GPUS STEP CHURN: an `nvidia-smi pmon -o DT` log whose process on each GPU
# changes every CHURN seconds (a cluster of short jobs), from 2026-11-01 00:00 UTC.
pmon() {
	awk -v days="$1" -v gpus="$2" -v step="$3" -v churn="$4" 'BEGIN {
		print "#Date        Time         gpu         pid   type     sm    mem    enc    dec    command"
		print "#YYYYMMDD    HH:MM:SS     Idx           #    C/G      %      %      %      %    name"
		for (t = 0; t < days * 86400; t += step) {
			d = int(t / 86400); s = t % 86400
			for (g = 0; g < gpus; g++) {
				j = int((t + g * 37) / churn)
				printf " 202611%02d    %02d:%02d:%02d %7d %11d     C %6d %6d      -      -    job%d\n",
					d + 1, int(s / 3600), int(s % 3600 / 60), s % 60, g, 10000 + j * gpus + g,
					(j * 7 + g) % 90 + 5, (j * 3) % 40, j % 50
			}
		}
	}'
}

# make_input DIR N: N days of each log in DIR, made once and reused while the generators are unchanged.
make_input() {
	dir=$1 n=$2
	want="scale $n $(cksum <bench/gen.c) $(cksum <bench/gen_kernlog.c) $(cksum <bench/scale.sh)"
	if [ -f "$dir.stamp" ] && [ "$(cat "$dir.stamp")" = "$want" ]; then
		return 0
	fi
	say "generating $dir: $n day(s)"
	rm -rf "$dir"
	mkdir -p "$dir"
	"$GEN" --seconds $((n * 86400)) --gpus 8 --step 10 --workday 9-18 --seed 1 --start 2026-11-01 -o "$dir/dmon.log"
	pmon "$n" 8 10 300 >"$dir/pmon.log"
	"$GENK" --bytes $((n * 5000000)) --xid-every 10 --nvidia-every 5 -o "$dir/kern.log" 2>/dev/null
	# kern.log carries no year: the file's time gives it (the report's year)
	touch -d 2026-11-30T00:00:00Z "$dir/kern.log"
	printf '%s\n' "$want" >"$dir.stamp"
}
make_input "$D/x1" "$DAYS"
make_input "$D/x4" $((DAYS * 4))
for x in x1 x4; do
	"$GT" report --json --tz UTC "$D/$x" >"$D/$x.json"
	say "$x: $(du -sk "$D/$x" | cut -f1) KiB; $(grep -c '"kind":' "$D/$x.json" | tr -d ' ') findings and events listed"
done
say "$RUNS rounds, 1x then 4x in each; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
cat "$D"/x1/* "$D"/x4/* >/dev/null	# warm the page cache
rm -f "$D/x1.res" "$D/x4.res"
i=0
while [ $i -lt "$RUNS" ]; do
	"$TIMEIT" "$D/x1.res" "$GT" report --json --tz UTC "$D/x1" >/dev/null
	"$TIMEIT" "$D/x4.res" "$GT" report --json --tz UTC "$D/x4" >/dev/null
	i=$((i + 1))
done
paste "$D/x1.res" "$D/x4.res" | awk -v lim="$LIMIT" -v days="$DAYS" '
function sortn(a, n,   i, j, t) { for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t } }
{ n++; w1[n] = $1; c1[n] = $2; w4[n] = $5; c4[n] = $6; rw[n] = $5 / $1; rc[n] = $6 / $2 }
END {
	sortn(w1, n); sortn(c1, n); sortn(w4, n); sortn(c4, n); sortn(rw, n); sortn(rc, n)
	m = int((n + 1) / 2)
	printf "bench-scale: report --json, %d day(s) (1x): wall %.2f s, CPU %.2f s; %d days (4x): wall %.2f s, CPU %.2f s (medians)\n",
		days, w1[m], c1[m], 4 * days, w4[m], c4[m]
	printf "bench-scale: wall ratio 4x/1x %.2f median (%.2f..%.2f)\n", rw[m], rw[1], rw[n]
	printf "  %s report --json on 4x the input: 4x/1x CPU time %.2f (linear: 4.0; target <= %.1f)\n",
		rc[m] <= lim ? "PASS" : "FAIL", rc[m], lim
}'
say "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
