#!/bin/sh
# SPDX-License-Identifier: MIT
# Throughput and peak-memory benchmark of `gputally report` against mawk, measured in one run.
# Usage: sh bench/run.sh [BUILD_DIR]   (`make bench` passes build/)
#
# The baseline is a trivial per-GPU sum with mawk over the same file, timed in the same run and
# interleaved with gputally, so the ratio means something on any machine.  This is a measurement,
# not a test: it exits 0 even when a target is missed, and says FAIL.
set -eu

B=${1:-build}
GT=$B/gputally
GEN=$B/gen-logs
D=$B/bench
RUNS=${RUNS:-5}
BIG_BYTES=1200000000
SMALL_BYTES=120000000
RSS_LIMIT_KIB=65536	# 64 MiB
RATIO_LIMIT=0.3333

say() { printf '%s\n' "bench: $*"; }
. bench/lib.sh

for f in "$GT" "$GEN"; do
	[ -x "$f" ] || { say "$f is missing; run 'make' first"; exit 1; }
done
if ! command -v mawk >/dev/null 2>&1; then
	say "mawk is missing (sh scripts/install-deps.sh bench)"
	exit 1
fi
mkdir -p "$D"

# wait4() gives the child's own peak RSS; /usr/bin/time is not installed everywhere.
# Rebuilt every run: it takes a tenth of a second and is never stale.
TIMEIT=$D/timeit
${CC:-cc} -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -o "$TIMEIT" bench/timeit.c

# Generate FILE of about BYTES once; the stamp holds the arguments, the generator source's
# checksum and the size, so a stale or truncated file is made again.
gen_file() {
	file=$1 bytes=$2
	want="--bytes $bytes --gpus 8 --seed 1 $(cksum <bench/gen.c)"
	if stamp_current "$file" "$want"; then
		say "reusing $file ($(wc -c <"$file" | tr -d ' ') bytes)"
		return 0
	fi
	say "generating $file (about $bytes bytes, 8 GPUs, 1-second ticks)"
	rm -f "$file.stamp"
	"$GEN" --bytes "$bytes" --gpus 8 --seed 1 -o "$file"
	stamp_write "$file" "$want"
}

# The per-GPU busy_s values of a report --json (not the per-state ones), as "gpu=value ...".
busy_values() {
	awk '
	{
		line = $0
		gsub(/"([^"\\]|\\.)*"/, "\"\"", line)	# braces inside strings do not count
		if (depth == 1 && $0 ~ /^[ \t]*"gpus":/) in_gpus = 1
		if (in_gpus && depth == 3 && $0 ~ /^[ \t]*"gpu":/) { g = $2; sub(/,$/, "", g) }
		if (in_gpus && depth == 3 && $0 ~ /^[ \t]*"busy_s":/) {
			v = $2; sub(/,$/, "", v); out = out sep g "=" v; sep = " "
		}
		n = split(line, ch, "")
		for (i = 1; i <= n; i++) {
			if (ch[i] == "{" || ch[i] == "[") depth++
			else if (ch[i] == "}" || ch[i] == "]") depth--
		}
		if (in_gpus && depth < 2) in_gpus = 0
	}
	END { print out }' "$1"
}

# Time the three commands on FILE, interleaved, and print the table and verdicts.
# Leaves the report's peak RSS (KiB) in last_rss.
measure() {
	file=$1 label=$2
	bytes=$(wc -c <"$file" | tr -d ' ')
	rm -f "$D/$label".*.res
	say "warming the page cache with $file"
	cat "$file" >/dev/null
	i=1
	while [ "$i" -le "$RUNS" ]; do
		say "$label run $i/$RUNS: mawk, gputally report (text and --json), wc -l"
		"$TIMEIT" "$D/$label.mawk.res" mawk \
			'!/^#/ { s[$3] += $7 } END { for (g in s) print g, s[g] }' "$file" \
			>"$D/$label.mawk.out"
		"$TIMEIT" "$D/$label.text.res" "$GT" report "$file" >"$D/$label.report.txt" ||
			say "gputally report exited with status $?"
		"$TIMEIT" "$D/$label.report.res" "$GT" report --json "$file" >"$D/$label.report.json" ||
			say "gputally report --json exited with status $?"
		"$TIMEIT" "$D/$label.wc.res" wc -l "$file" >/dev/null
		i=$((i + 1))
	done

	echo
	printf '%s: %s (%s bytes), median of %d runs\n' "$label" "$file" "$bytes" "$RUNS"
	printf '  %-24s %9s %9s %9s %12s\n' command wall_s cpu_s MB/s peak_RSS_MB
	for c in mawk text report wc; do
		w=$(median "$D/$label.$c.res" 1)
		u=$(median "$D/$label.$c.res" 2)
		r=$(max_col "$D/$label.$c.res" 3)
		case $c in
		mawk) name="mawk per-GPU sum" ;;
		text) name="gputally report" ;;
		report) name="gputally report --json" ;;
		wc) name="wc -l" ;;
		esac
		awk -v n="$name" -v w="$w" -v u="$u" -v r="$r" -v b="$bytes" 'BEGIN {
			printf "  %-24s %9.3f %9.3f %9.1f %12.1f\n", n, w, u, b / 1e6 / w, r / 1024 }'
	done
	mw=$(median "$D/$label.mawk.res" 1)
	rr=$(max_col "$D/$label.report.res" 3)
	for c in text report; do
		rw=$(median "$D/$label.$c.res" 1)
		awk -v m="$mw" -v r="$rw" -v lim="$RATIO_LIMIT" -v l="$label" -v c="$c" 'BEGIN {
			n = c == "text" ? "report" : "report --json"
			ratio = r / m
			printf "  ratio %s/mawk: %.3f (target <= 1/3; %.2fx the speed of mawk)\n", \
				n, ratio, m / r
			if (ratio <= lim) printf "  PASS %s %s: time ratio <= 1/3\n", l, n
			else printf "  FAIL %s %s: time ratio %.3f > 1/3 (needs %.1fx less time)\n", \
				l, n, ratio, ratio * 3 }'
	done
	t=$(max_col "$D/$label.text.res" 3)
	[ "$t" -gt "$rr" ] 2>/dev/null && rr=$t
	awk -v r="$rr" -v lim="$RSS_LIMIT_KIB" -v l="$label" 'BEGIN {
		if (r < lim) printf "  PASS %s: peak RSS %.1f MB < 64 MB\n", l, r / 1024
		else printf "  FAIL %s: peak RSS %.1f MB >= 64 MB\n", l, r / 1024 }'
	busy=$(busy_values "$D/$label.report.json")
	printf '  checksum %s: busy_s %s (cksum %s)\n' "$label" "$busy" \
		"$(printf '%s\n' "$busy" | cksum | cut -d' ' -f1)"
	printf '  mawk sums of sm %s: %s\n' "$label" \
		"$(sort -n "$D/$label.mawk.out" | awk '{ printf "%s%s=%s", sep, $1, $2; sep = " " }')"
	last_rss=$rr
}

say "machine: $(nproc) CPUs, $(sed -n 's/^model name[ \t]*: //p' /proc/cpuinfo | head -n 1)"
gen_file "$D/dmon-120M.log" "$SMALL_BYTES"
gen_file "$D/dmon-1200M.log" "$BIG_BYTES"
measure "$D/dmon-120M.log" small
rss_small=$last_rss
measure "$D/dmon-1200M.log" big
rss_big=$last_rss

echo
awk -v s="$rss_small" -v b="$rss_big" 'BEGIN {
	printf "peak RSS of report: %.1f MB on 120 MB, %.1f MB on 1.2 GB (%+.1f MB for 10x the input)\n", \
		s / 1024, b / 1024, (b - s) / 1024 }'

# Many inputs: a directory of 100 daily logs (10 minutes of 8 GPUs each), plain and gzipped.
# Inputs are opened as the merge reaches them, so memory must not grow with their number.
DAYS=$D/days
want="days 100 $(cksum <bench/gen.c)"
if [ ! -f "$DAYS.stamp" ] || [ "$(cat "$DAYS.stamp")" != "$want" ]; then
	say "generating $DAYS: 100 daily logs, plain and gzip"
	rm -rf "$DAYS" "$DAYS-gz"
	mkdir -p "$DAYS" "$DAYS-gz"
	i=0
	while [ "$i" -lt 100 ]; do
		day=$(date -u -d "2026-01-01 + $i day" +%Y-%m-%d)
		"$GEN" --seconds 600 --gpus 8 --seed 1 --start "$day" -o "$DAYS/dmon_$day.log"
		gzip -c "$DAYS/dmon_$day.log" >"$DAYS-gz/dmon_$day.log.gz"
		i=$((i + 1))
	done
	printf '%s\n' "$want" >"$DAYS.stamp"
fi
echo
for dir in "$DAYS" "$DAYS-gz"; do
	rm -f "$D/days.res"
	"$TIMEIT" "$D/days.res" "$GT" report "$dir" >/dev/null || say "gputally report exited with status $?"
	awk -v d="$dir" -v lim="$RSS_LIMIT_KIB" '{
		printf "many inputs: %s (100 files): %.3f s, peak RSS %.1f MB\n", d, $1, $3 / 1024
		if ($3 < lim) printf "  PASS many inputs: peak RSS %.1f MB < 64 MB\n", $3 / 1024
		else printf "  FAIL many inputs: peak RSS %.1f MB >= 64 MB\n", $3 / 1024 }' "$D/days.res"
done
exit 0
