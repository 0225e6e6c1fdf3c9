#!/bin/sh
# End-to-end tests of `gputally record` against the fake NVML
# (tests/fake-nvml): what it writes, read back with dump and report; torn
# lines, signals, rotation, a missing library, and kill -9 at random moments.
#   sh tests/record/run.sh BIN BUILD_DIR
# RECORD_TORTURE_RUNS (default 150) sets how many kill -9 runs to make.
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
obuild=$(cd "$2" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
fake=$obuild/fake-nvml/libnvidia-ml.so.1
fakemin=$obuild/fake-nvml-min/libnvidia-ml.so.1
runs=${RECORD_TORTURE_RUNS:-150}
pass=0 fail=0
export LC_ALL=C TZ=UTC FAKE_NVML_SCENARIO="$here/scenario-mixed.txt"
unset GPUTALLY_NVML_LIB
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
check() { if eval "$2"; then ok; else bad "$1"; fi; }
# data rows (not the two header lines) of every CSV given
rows() { cat "$@" | grep -v '^#' | grep -v '^time,'; }
field() { awk -F, -v c="$1" 'NR > 2 { print $c }'; }

# 1. five samples of three GPUs to stdout
"$bin" record --count 5 --interval 10ms --stdout --host h1 --task t1 --nvml-lib "$fake" >"$tmp/a.csv" 2>"$tmp/a.err"
check "record --stdout exits 0" "[ $? -eq 0 ]"
check "first line is the version" "[ \"\$(head -1 $tmp/a.csv)\" = '# gputally-csv v1' ]"
check "15 sample rows" "[ \$(rows $tmp/a.csv | grep -vc ',xid:') -eq 15 ]"
check "one Xid row" "[ \$(grep -c ',xid:79,' $tmp/a.csv) -eq 1 ]"
check "every row has host and task" "[ \$(rows $tmp/a.csv | grep -vc ',h1,t1,') -eq 0 ]"
check "all rows have 23 fields" "[ \$(awk -F, 'NR > 1 && NF != 23' $tmp/a.csv | wc -l) -eq 0 ]"
check "GPU 2 lost for two samples" "[ \$(grep -c ',2,GPU-[^,]*,[^,]*,lost,' $tmp/a.csv) -eq 2 ]"
check "GPU 2 recovers" "[ \$(grep ',2,GPU-[^,]*,[^,]*,' $tmp/a.csv | tail -1 | grep -c ',ok,') -eq 1 ]"
check "hung GPU 1 times out" "grep -q ',1,GPU-[^,]*,[^,]*,timeout,' $tmp/a.csv"
check "GPU 0 never blocked by GPU 1" "[ \$(grep -c ',0,GPU-[^,]*,[^,]*,ok,' $tmp/a.csv) -eq 5 ]"
check "unsupported temperature is empty, not 0" \
	"[ \$(grep ',1,GPU-[^,]*,[^,]*,ok,' $tmp/a.csv | awk -F, '\$16 != \"\"' | wc -l) -eq 0 ]"
check "processes with unknown memory" "grep -q '4242=1248;4343=?' $tmp/a.csv"
check "power cap in the clock-event mask" "grep -q ',0x4,' $tmp/a.csv"
check "times are UTC with Z" "[ \$(rows $tmp/a.csv | grep -vc '^20[0-9-]*T[0-9:.]*Z,') -eq 0 ]"
"$bin" dump "$tmp/a.csv" >"$tmp/a.dump" 2>"$tmp/a.derr"
check "dump reads it back, nothing skipped" "[ \$(grep -c '\"kind\":\"bad\"' $tmp/a.dump) -eq 0 ] && grep -q 'gputally-csv' $tmp/a.derr"
check "dump sees the Xid event" "grep -q 'NVML Xid 79 event' $tmp/a.dump"
check "dump sees lost status" "grep -q '\"status\":\\[\"lost\"\\]' $tmp/a.dump"
check "dump sees processes" "[ \$(grep -c '\"kind\":\"proc\"' $tmp/a.dump) -ge 5 ]"
"$bin" report "$tmp/a.csv" >"$tmp/a.rep" 2>&1
check "report reads it" "[ $? -eq 0 ] && grep -q 'gputally-csv' $tmp/a.rep"

# 2. an old driver: no memory v2, energy, process v3, events; the old clock-reasons name
printf 'devices 3\nproc 0 4242 1248\n' >"$tmp/min.txt"
FAKE_NVML_SCENARIO=$tmp/min.txt "$bin" record --count 3 --interval 10ms --stdout --nvml-lib "$fakemin" >"$tmp/m.csv" 2>"$tmp/m.err"
check "old driver: exits 0" "[ $? -eq 0 ]"
check "old driver: missing symbols are listed" "grep -q 'lacks (optional):.*nvmlDeviceGetMemoryInfo_v2' $tmp/m.err"
check "old driver: energy and reserved are empty" \
	"[ \$(field 12 <$tmp/m.csv | grep -vc '^\$') -eq 0 ] && [ \$(field 14 <$tmp/m.csv | grep -vc '^\$') -eq 0 ]"
check "old driver: memory used via v1" "[ \$(field 10 <$tmp/m.csv | grep -c '^1257\$') -eq 9 ]"
check "old driver: clock reasons via the old name" "[ \$(field 19 <$tmp/m.csv | grep -c '^0x') -eq 9 ]"
check "old driver: processes via v1" "grep -q '4242=1248' $tmp/m.csv"

# 3. no library
"$bin" record --count 1 --stdout --nvml-lib "$tmp/nope.so" >/dev/null 2>"$tmp/e.err"
check "missing library: exit 1" "[ $? -eq 1 ] && grep -q 'cannot load NVML from' $tmp/e.err"
"$bin" record --count 0 >/dev/null 2>&1
check "bad --count: exit 2" "[ $? -eq 2 ]"
"$bin" record --task ../x --count 1 >/dev/null 2>&1
check "bad --task: exit 2" "[ $? -eq 2 ]"

# 4. files: append to the same day's file, one header, torn line quarantined
d=$tmp/logs
GPUTALLY_NVML_LIB=$fake "$bin" record -q --count 2 --interval 10ms --dir "$d" --task run
f=$(ls "$d"/run_*.csv)
check "daily file name" "ls $d | grep -qx 'run_[0-9]\{8\}.csv'"
printf '2026-11-29T00:00:00.000Z,h,run,0,GPU-x,torn' >>"$f"
GPUTALLY_NVML_LIB=$fake "$bin" record -q --count 2 --interval 10ms --dir "$d" --task run
check "torn tail moved to .torn" "grep -q ',torn\$' $f.torn"
check "one header after restart" "[ \$(grep -c '^# gputally-csv' $f) -eq 1 ]"
check "rows of both runs, whole" "[ \$(rows $f | grep -vc ',xid:') -eq 12 ] && [ \$(awk -F, 'NR > 1 && NF != 23' $f | wc -l) -eq 0 ]"
check "file ends in a newline" "[ \"\$(tail -c1 $f | od -An -c | tr -d ' ')\" = '\\n' ]"

# 5. SIGTERM exits within a second, SIGHUP reopens after a rename (no row lost)
d2=$tmp/rot
GPUTALLY_NVML_LIB=$fake "$bin" record --interval 20ms --dir "$d2" --task rot 2>"$tmp/r.err" &
pid=$!
sleep 0.3
f2=$(ls "$d2"/rot_*.csv)
mv "$f2" "$f2.1"
kill -HUP $pid
sleep 0.3
start=$(date +%s%N)
kill -TERM $pid
wait $pid
rc=$?
ms=$(( ($(date +%s%N) - start) / 1000000 ))
check "SIGTERM: exit 0" "[ $rc -eq 0 ]"
check "SIGTERM: out within a second (${ms} ms)" "[ $ms -lt 1000 ]"
n=$(sed -n 's/.*: \([0-9]*\) sample(s), \([0-9]*\) row(s).*/\2/p' "$tmp/r.err")
check "rotation: a new file after SIGHUP" "[ -f $f2 ] && [ -f $f2.1 ]"
check "rotation: no row lost ($n written)" "[ \$(rows $f2 $f2.1 | wc -l) -eq $n ]"

# 6. kill -9 at random moments: no torn or duplicated row survives a restart
d3=$tmp/k9
i=0
while [ $i -lt "$runs" ]; do
	GPUTALLY_NVML_LIB=$fake "$bin" record -q --interval 2ms --fsync-every 1 --dir "$d3" --task k9 &
	pid=$!
	sleep "0.0$(awk -v s=$i 'BEGIN { srand(s); printf "%02d", int(rand() * 40) }')"
	kill -9 $pid 2>/dev/null
	wait $pid 2>/dev/null
	i=$((i + 1))
done
GPUTALLY_NVML_LIB=$fake "$bin" record -q --count 1 --dir "$d3" --task k9
f3=$(ls "$d3"/k9_*.csv)
check "kill -9 x$runs: one header" "[ \$(grep -c '^# gputally-csv' $f3) -eq 1 ]"
check "kill -9 x$runs: every row whole" "[ \$(awk -F, 'NR > 1 && NF != 23' $f3 | wc -l) -eq 0 ]"
check "kill -9 x$runs: no duplicated row" "[ \$(rows $f3 | cut -d, -f1,4,7 | sort | uniq -d | wc -l) -eq 0 ]"
"$bin" dump "$f3" >"$tmp/k.dump" 2>/dev/null
check "kill -9 x$runs: dump skips nothing" "[ \$(grep -c '\"kind\":\"bad\"' $tmp/k.dump) -eq 0 ]"

echo "record: $pass passed, $fail failed"
[ $fail -eq 0 ]
