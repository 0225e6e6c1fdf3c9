#!/bin/sh
# SPDX-License-Identifier: MIT
# The cost of `gputally record` with 8 fake GPUs (tests/fake-nvml): CPU time
# of all its threads (from /proc/PID/task/*/schedstat, in ns) and peak RSS,
# over BENCH_SECONDS (default 20) at a 1 s and a 100 ms interval, next to the
# cost of one `nvidia-smi --query-gpu` run.  Run by `make bench-record`.
#   sh bench/record.sh BIN BUILD_DIR
# The fake library answers from memory; a real driver's NVML calls are ioctls
# that cost more, and are not in these numbers.
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
obuild=$(cd "$2" && pwd)
secs=${BENCH_SECONDS:-20}
smi_file=/work/shared/data/h200-training/smi_query_cost_s.txt
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export LC_ALL=C FAKE_NVML_SCENARIO=$tmp/eight.txt GPUTALLY_NVML_LIB=$obuild/fake-nvml/libnvidia-ml.so.1
printf 'devices 8\nproc 0 4242 1248\nproc 1 4243 2048\n' >"$tmp/eight.txt"

if [ -r "$smi_file" ]; then
	smi_s=$(sort -n "$smi_file" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
	smi_from="median of $(wc -l <"$smi_file") runs on an H200, $smi_file"
else
	smi_s=0.029
	smi_from="the issue's figure for an H200 (no $smi_file here, and no nvidia-smi)"
fi

cpu_ns() {	# all threads of PID, ns on the CPU
	cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ s += $1 } END { printf "%.0f\n", s }'
}

printf '%-34s %8s %8s %10s %14s %9s %9s\n' "run (8 GPUs, ${secs} s)" ticks "CPU %" "CPU ms" "us/sample/GPU" "RSS KiB" "peak KiB"
one() {	# LABEL TARGET_PCT TICKS_PER_S ARGS...
	label=$1 target=$2 rate=$3
	shift 3
	d=$tmp/run-$$-$label
	mkdir -p "$d"
	"$bin" record --task bench --dir "$d" "$@" 2>"$d.err" &
	pid=$!
	sleep 0.5	# start-up (dlopen, thread creation) is not the steady state
	c0=$(cpu_ns $pid) t0=$(date +%s%N)
	sleep "$secs"
	c1=$(cpu_ns $pid) t1=$(date +%s%N)
	rss=$(awk '/^VmRSS:/ { print $2 }' /proc/$pid/status)
	hwm=$(awk '/^VmHWM:/ { print $2 }' /proc/$pid/status)
	kill -TERM $pid
	wait $pid
	ticks=$(sed -n 's/.*: \([0-9]*\) sample(s).*/\1/p' "$d.err")
	awk -v l="$label" -v c=$((c1 - c0)) -v w=$((t1 - t0)) -v rss="$rss" -v hwm="$hwm" -v tk="$ticks" \
	    -v secs="$secs" -v runs_per_s="$rate" -v target="$target" -v smi="$smi_s" 'BEGIN {
		pct = 100 * c / w
		# ticks in the measured window: the rate times its length
		n = w / 1e9 * runs_per_s
		us = c / 1000 / (n * 8)
		printf "%-34s %8d %7.3f%% %10.1f %14.2f %9d %9d   %s (target < %s %%)\n", l, tk, pct, c / 1e6, us, rss, hwm,
			pct < target ? "ok" : "OVER", target
		# the nvidia-smi figure is for one GPU (the H200 capture has one)
		printf "%-34s one nvidia-smi --query-gpu run (1 GPU) = %.0f us = %.0fx the recorder per sample per GPU\n", "",
			smi * 1e6, smi * 1e6 / us
	}'
}
one "1 s, CSV" 0.5 1 --interval 1s
one "100 ms, CSV" 2 10 --interval 100ms
one "100 ms, CSV + textfile + HTTP" 2 10 --interval 100ms --prom-textfile "$tmp" --listen 127.0.0.1:0
echo "nvidia-smi cost: $smi_s s per run ($smi_from)"
echo "RSS target: under 8192 KiB"
