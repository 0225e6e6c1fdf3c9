#!/bin/sh
# SPDX-License-Identifier: MIT
# report --prometheus over a week of 3 nodes x 8 GPUs (tests/prom/gen_history.py,
# backfilled with promtool into a Prometheus of its own) at a 15 s step: wall
# time and peak RSS, next to `report` reading the same readings as files.
# Run by `make bench-prom`, and by `make bench` where prometheus and promtool
# are installed; a measurement, not a test (it says FAIL when the pull goes
# over 64 MiB, and exits 0).
#   sh bench/prom.sh BIN BUILD_DIR
# BENCH_PROM_INTERVAL (default 60) is the seconds between the written samples.
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
obuild=$(cd "$2" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
iv=${BENCH_PROM_INTERVAL:-60}
tmp=$(mktemp -d)
ppid=
trap '[ -n "$ppid" ] && kill $ppid 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"' EXIT
export LC_ALL=C TZ=UTC
timeit=$obuild/bench/timeit
mkdir -p "$obuild/bench"
${CC:-cc} -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -o "$timeit" "$here/timeit.c" || exit 1
set -- $(python3 "$here/../tests/prom/gen_history.py" "$tmp" $(($(date +%s) - 600)) 7 "$iv")
hs=$(date -u -d "@$1" +%Y-%m-%dT%H:%M:%SZ) he=$(date -u -d "@$2" +%Y-%m-%dT%H:%M:%SZ)
echo "bench-prom: $(wc -l <"$tmp/history.om") OpenMetrics lines ($iv s apart), backfilling..."
promtool tsdb create-blocks-from openmetrics "$tmp/history.om" "$tmp/tsdb" >/dev/null 2>&1 || { echo "promtool failed"; exit 1; }
rm -f "$tmp/history.om"
port=$(python3 "$here/../tests/prom/freeports.py" 1)
printf 'global:\n  scrape_interval: 15s\n' >"$tmp/p.yml"
prometheus --config.file="$tmp/p.yml" --storage.tsdb.path="$tmp/tsdb" --web.listen-address="127.0.0.1:$port" \
	--log.level=warn >"$tmp/p.log" 2>&1 &
ppid=$!
i=0
while [ $i -lt 100 ] && ! curl -sf -m 1 "http://127.0.0.1:$port/-/ready" >/dev/null 2>&1; do sleep 0.2; i=$((i + 1)); done
for k in 1 2 3; do
	"$timeit" "$tmp/prom.res" "$bin" report --prometheus "http://127.0.0.1:$port" --since "$hs" --until "$he" \
		--step 15s --json >"$tmp/p.json" 2>/dev/null
	"$timeit" "$tmp/files.res" "$bin" report --json "$tmp"/*.csv >/dev/null 2>&1
done
med() { sort -n -k"$2,$2" "$1" | awk -v c="$2" '{ v[NR] = $c } END { print v[int((NR + 1) / 2)] }'; }
pr=$(med "$tmp/prom.res" 3)
chunks=$(python3 -c "import json; f = json.load(open('$tmp/p.json'))['fleet']; print(f['chunks'], f['requests'])")
printf 'bench-prom: --prometheus, 7 d x 24 GPUs at 15 s: %s s wall, %s s CPU, peak RSS %s KiB (chunks, requests: %s)\n' \
	"$(med "$tmp/prom.res" 1)" "$(med "$tmp/prom.res" 2)" "$pr" "$chunks"
printf 'bench-prom: the same readings from files:       %s s wall, %s s CPU, peak RSS %s KiB\n' \
	"$(med "$tmp/files.res" 1)" "$(med "$tmp/files.res" 2)" "$(med "$tmp/files.res" 3)"
awk -v pw="$(med "$tmp/prom.res" 1)" -v pc="$(med "$tmp/prom.res" 2)" -v pm="$pr" \
	-v fw="$(med "$tmp/files.res" 1)" -v fc="$(med "$tmp/files.res" 2)" -v fm="$(med "$tmp/files.res" 3)" 'BEGIN {
	printf "bench-prom: --prometheus / files, same run: %.2fx wall, %.2fx CPU (of gputally; the server works too), %.2fx peak RSS\n",
		(fw > 0 ? pw / fw : 0), (fc > 0 ? pc / fc : 0), (fm > 0 ? pm / fm : 0) }'
[ "$pr" -lt 65536 ] && echo "bench-prom: ok: under 64 MiB" || echo "bench-prom: FAIL: over 64 MiB"
