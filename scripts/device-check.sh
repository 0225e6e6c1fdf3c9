#!/bin/sh
# SPDX-License-Identifier: MIT
# The real-GPU check of `gputally record` (docs/record.md, "On a real GPU"): on a machine with
# an NVIDIA GPU, record 10 samples at 100 ms while nvidia-smi --query-gpu samples the same GPUs,
# compare utilization, memory and power, check that the energy counter advances, and run
# `gputally report` on what was recorded.  Everything lands in $OUT (default ./device-out):
# the recorded CSV (kept as a test fixture), nvidia-smi's rows, the report, and check.log with
# one PASS or FAIL line per check.  Exit status: 0 all passed, 1 a check failed, 2 cannot run.
#
# Usage: sh scripts/device-check.sh
#   It runs build/device/gputally (`make device-bin` here: zlib, zstd and inih linked in, so a
#   machine without those libraries or a compiler can run it; carry build/device there), else
#   build/gputally, else builds one.
# Environment: OUT, GPUTALLY (the binary), NVIDIA_SMI (default nvidia-smi),
#              GPUTALLY_NVML_LIB (NVML to load; default libnvidia-ml.so.1), LOAD_S (seconds of
#              GPU load from python3 + torch when they exist; default 4, 0 for none).
set -u
OUT=${OUT:-device-out}
if [ -n "${GPUTALLY:-}" ]; then
	GT=$GPUTALLY
elif [ -x build/device/gputally ]; then
	GT=build/device/gputally
else
	GT=build/gputally
fi
SMI=${NVIDIA_SMI:-nvidia-smi}
LOAD_S=${LOAD_S:-4}
mkdir -p "$OUT"
LOG=$OUT/check.log
: >"$LOG"
say() { printf '%s\n' "$*" | tee -a "$LOG"; }
fails=0
verdict() { # NAME OK(0/1) DETAIL
	if [ "$2" -eq 0 ]; then say "PASS $1: $3"; else say "FAIL $1: $3"; fails=$((fails + 1)); fi
}

if ! command -v "$SMI" >/dev/null 2>&1; then
	say "cannot run: $SMI not found (this check needs an NVIDIA GPU and its driver)"
	exit 2
fi
if [ ! -x "$GT" ]; then
	say "building $GT"
	make -j"$(nproc)" "$GT" >>"$LOG" 2>&1 || { say "cannot run: the build failed"; exit 2; }
fi
say "machine: $(uname -srm); $("$SMI" --query-gpu=name,driver_version --format=csv,noheader | head -n 1)"
# NVML where the loader does not look (driver images often keep it in /usr/local/nvidia)
if [ -z "${GPUTALLY_NVML_LIB:-}" ] && ! ldconfig -p 2>/dev/null | grep -q 'libnvidia-ml\.so\.1 '; then
	for d in /usr/local/nvidia/lib64 /usr/local/nvidia/lib /usr/lib/x86_64-linux-gnu /usr/lib64; do
		if [ -e "$d/libnvidia-ml.so.1" ]; then
			GPUTALLY_NVML_LIB=$d/libnvidia-ml.so.1
			export GPUTALLY_NVML_LIB
			break
		fi
	done
fi
say "NVML: ${GPUTALLY_NVML_LIB:-libnvidia-ml.so.1, from the loader's search path}"
"$SMI" -L >>"$LOG" 2>&1

# Some load, so that utilization and power move (a busy GPU is the interesting case).
if [ "$LOAD_S" -gt 0 ] && python3 -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null; then
	python3 - "$LOAD_S" >>"$LOG" 2>&1 <<'EOF' &
import sys, time, torch
end = time.time() + float(sys.argv[1])
a = torch.randn(8192, 8192, device="cuda")
while time.time() < end:
    b = a @ a
    torch.cuda.synchronize()
EOF
	load_pid=$!
	sleep 1.5	# let the load and the clocks settle
	say "load: torch matmul for ${LOAD_S}s"
else
	load_pid=
	say "load: none (python3 with torch and CUDA not found); comparing an idle GPU"
fi

# nvidia-smi every 100 ms in UTC, next to the recorder.
TZ=UTC "$SMI" --query-gpu=timestamp,index,utilization.gpu,utilization.memory,memory.used,power.draw \
	--format=csv,noheader,nounits -lms 100 >"$OUT/smi.csv" 2>>"$LOG" &
smi_pid=$!
sleep 0.5
rm -rf "$OUT/rec"
"$GT" record --task device-check --dir "$OUT/rec" --count 10 --interval 100ms 2>>"$LOG"
verdict "record --count 10 --interval 100ms" $? "exit status $?"
sleep 0.3
kill "$smi_pid" 2>/dev/null
wait "$smi_pid" 2>/dev/null
[ -n "$load_pid" ] && wait "$load_pid" 2>/dev/null

csv=$(ls "$OUT"/rec/*.csv 2>/dev/null | head -n 1)
if [ -z "$csv" ]; then
	verdict "recorded CSV" 1 "no CSV in $OUT/rec"
	exit 1
fi
cp "$csv" "$OUT/recorded.csv"
rows=$(grep -c '^[0-9]' "$csv")
ngpu=$("$SMI" -L | grep -c '^GPU')
[ "$rows" -eq $((10 * ngpu)) ]
verdict "rows" $? "$rows rows for $ngpu GPU(s) x 10 samples"

# Each recorded row against the nvidia-smi row of the same GPU nearest in time (seconds of the
# day, UTC).  Utilization within 5 points, memory and power within 5 % (or 1 MiB / 1 W).
awk -F', *' -v logf="$LOG" '
function tod(t) { return substr(t, 12, 2) * 3600 + substr(t, 15, 2) * 60 + substr(t, 18) }
function abs(x) { return x < 0 ? -x : x }
FNR == NR {
	if ($1 !~ /^[0-9]/) next
	n[$2]++; st[$2, n[$2]] = tod($1)
	su[$2, n[$2]] = $3; sm[$2, n[$2]] = $5; sp[$2, n[$2]] = $6
	next
}
/^time,/ { for (i = 1; i <= NF; i++) col[$i] = i; next }
/^[0-9]/ {
	g = $col["gpu"]; t = tod($col["time"]); best = 0
	for (k = 1; k <= n[g]; k++)
		if (!best || abs(st[g, k] - t) < abs(st[g, best] - t)) best = k
	if (!best) { miss++; next }
	rows++
	du = abs($col["util_gpu_pct"] - su[g, best])
	dm = abs($col["mem_used_mib"] - sm[g, best])
	dp = abs($col["power_w"] - sp[g, best])
	ok_u += du <= 5
	ok_m += dm <= 1 || dm <= 0.05 * sm[g, best]
	ok_p += dp <= 1 || dp <= 0.05 * sp[g, best]
	printf "gpu %s t %.3f (smi %.3f): util %s/%s mem %s/%s power %s/%s\n", g, t, st[g, best],
		$col["util_gpu_pct"], su[g, best], $col["mem_used_mib"], sm[g, best],
		$col["power_w"], sp[g, best] >> logf
}
END { printf "agree %d %d %d %d %d\n", rows, ok_u, ok_m, ok_p, miss }' "$OUT/smi.csv" "$csv" >"$OUT/compare.txt"
read -r _ rows ok_u ok_m ok_p miss <<EOF
$(grep '^agree' "$OUT/compare.txt")
EOF
# Utilization is a 1/6 s to 1 s average inside the driver: two readers 50 ms apart can differ
# under a changing load, so 90 % of rows must agree; memory and power, all but one.
[ "$rows" -gt 0 ] && [ $((ok_u * 10)) -ge $((rows * 9)) ]
verdict "utilization vs nvidia-smi" $? "$ok_u of $rows rows within 5 points"
[ "$rows" -gt 0 ] && [ "$ok_m" -ge $((rows - 1)) ]
verdict "memory used vs nvidia-smi" $? "$ok_m of $rows rows within 5 %"
[ "$rows" -gt 0 ] && [ "$ok_p" -ge $((rows - 1)) ]
verdict "power vs nvidia-smi" $? "$ok_p of $rows rows within 5 %"
# The energy counter is read at most once a second (it is slow), so 10 samples 100 ms apart may
# all carry one reading: watch it over 4 samples a second apart instead.
rm -rf "$OUT/rec-energy"
"$GT" record --task device-energy --dir "$OUT/rec-energy" --count 4 --interval 1s 2>>"$LOG"
ecsv=$(ls "$OUT"/rec-energy/*.csv 2>/dev/null | head -n 1)
awk -F, '
/^time,/ { for (i = 1; i <= NF; i++) col[$i] = i; next }
/^[0-9]/ {
	g = $col["gpu"]; e = $col["energy_j"]
	if (e == "") next
	if (!(g in e0)) { e0[g] = e; p[g] = 0; n[g] = 0 }
	e1[g] = e; p[g] += $col["power_w"]; n[g]++
}
END {
	ng = 0; adv = 0
	for (g in e0) {
		ng++; if (e1[g] > e0[g]) adv++
		printf "gpu %s: energy %.3f -> %.3f J over %d samples 1 s apart, mean power %.1f W\n",
			g, e0[g], e1[g], n[g], n[g] ? p[g] / n[g] : 0
	}
	printf "energy %d %d\n", ng, adv
}' "${ecsv:-/dev/null}" >"$OUT/energy.txt"
cat "$OUT/energy.txt" >>"$LOG"
read -r _ ng adv <<EOF
$(grep '^energy' "$OUT/energy.txt")
EOF
[ "$ng" -gt 0 ] && [ "$adv" -eq "$ng" ]
verdict "energy counter advances" $? "$adv of $ng GPU(s) over 3 s (energy.txt)"

"$GT" report "$OUT/rec" >"$OUT/report.txt" 2>>"$LOG"
verdict "report" $? "exit status $? (text in report.txt)"
"$GT" report --json "$OUT/rec" >"$OUT/report.json" 2>>"$LOG"
grep -q '"format": "gputally-csv"' "$OUT/report.json"
verdict "report reads the CSV as gputally-csv" $? "report.json"

say "$fails check(s) failed"
[ "$fails" -eq 0 ]
