#!/bin/sh
# The slow-leak case end to end: three days of 1-second
# `nvidia-smi dmon -s pucvmet -o DT` rows for 2 GPUs, GPU 0 flat at
# 20000 MiB, GPU 1 creeping 5000 MiB + 58 MiB/h, both with +/- 40 MiB of
# uniform jitter every second.  Generated here (about 120 MB, never
# committed), read by `gputally report --json`; the report must hold one
# memory_leak finding, on GPU 1, whose slope lies within its own stated
# uncertainty of 58 MiB/h, and none on GPU 0.
# Usage: sh tests/leak/run.sh BIN [DAYS]
set -eu
BIN=$1
DAYS=${2:-3}
RATE=58
if [ -n "${KEEP:-}" ]; then	# KEEP=dir: leave the log and the report there
	T=$KEEP
	mkdir -p "$T"
else
	T=$(mktemp -d)
	trap 'rm -rf "$T"' EXIT INT TERM
fi

awk -v days="$DAYS" -v rate="$RATE" -v seed="${SEED:-7}" 'BEGIN {
	srand(seed);
	split("20261129 20261130 20261201 20261202 20261203 20261204 20261205", day, " ");
	print "#Date        Time         gpu    pwr  gtemp  mtemp     sm    mem    enc    dec    jpg    ofa   mclk   pclk  pviol  tviol     fb   bar1   ccpm  sbecc  dbecc    pci  rxpci  txpci ";
	print "#YYYYMMDD    HH:MM:SS     Idx      W      C      C      %      %      %      %      %      %    MHz    MHz      %   bool     MB     MB     MB   errs   errs   errs   MB/s   MB/s ";
	n = days * 86400;
	for (t = 0; t < n; t++) {
		d = int(t / 86400); s = t % 86400;
		ts = sprintf(" %s    %02d:%02d:%02d", day[d + 1], int(s / 3600), int(s % 3600 / 60), s % 60);
		for (g = 0; g < 2; g++) {
			base = g ? 5000 + rate * t / 3600 : 20000;
			fb = int(base + (rand() * 2 - 1) * 40 + 0.5);
			printf "%s %7d %6d %6d %6d %6d %6d %6d %6d %6d %6d %6d %6d %6d %6d %6d %6d %6d %6d %6d %6d %6d %6d \n",
				ts, g, 300, 50, 50, 40, 10, 0, 0, 0, 0, 3201, 1980, 0, 0, fb, fb + 1, 0, 0, 0, 4, 0, 0;
		}
	}
}' >"$T/dmon.log"

"$BIN" report --json "$T/dmon.log" >"$T/report.json"

# One finding object per line: kind, gpu, value and the "+/- x" of its message.
tr -d '\n' <"$T/report.json" | sed 's/"findings"/\n&/; s/.*\n//' | sed 's/},/}\n/g' |
	grep '"kind": *"memory_leak' | sed 's/}.*//' >"$T/leaks" || true
awk -v rate="$RATE" '
{
	gpu = $0; sub(/.*"gpu": */, "", gpu); gpu += 0;
	v = $0; sub(/.*"value": */, "", v); v += 0;
	ci = $0; if (!sub(/.*\+\/- /, "", ci)) ci = -1; ci += 0;
	n++;
	if (gpu != 1) { printf "leak-e2e: a leak finding on GPU %d: %s\n", gpu, $0; bad = 1; next }
	d = v - rate; if (d < 0) d = -d;
	if (ci <= 0 || d > ci) { printf "leak-e2e: slope %g +/- %g MiB/h, want %g\n", v, ci, rate; bad = 1; next }
	printf "leak-e2e: GPU 1 slope %.2f +/- %.2f MiB/h (generated %g)\n", v, ci, rate;
	ok++;
}
END {
	if (ok != 1 || n != 1) { printf "leak-e2e: %d leak findings, %d right; want exactly 1 on GPU 1\n", n, ok; exit 1 }
	exit bad;
}' "$T/leaks"
