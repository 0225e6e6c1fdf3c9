#!/bin/sh
# `gputally report` with no path audits this machine (README, "Audit this
# machine"): a fake root (GPUTALLY_ROOT) holds the recorder's directory, a
# kernel log and node_exporter's textfile directory, and the report must
# say it read each, read them (a verdict over the recorder's GPU), and say
# where it found nothing; with nothing there it is a usage error that says
# where it looked.
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export LC_ALL=C TZ=UTC
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

fake=$tmp/root
mkdir -p "$fake/var/log/gputally" "$fake/var/lib/node_exporter/textfile_collector" "$tmp/cwd"
cp "$root/examples/h200-training/gpu_monitor_h200_capture_20261129.csv" "$fake/var/log/gputally/"
cp "$root/tests/formats/syslog/y_basic.log" "$fake/var/log/kern.log"
cp "$root/examples/h200-more/prom_textfile_mid.prom" "$fake/var/lib/node_exporter/textfile_collector/gpu.prom"

cd "$tmp/cwd" || exit 1
GPUTALLY_ROOT=$fake "$bin" report >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] && ok || bad "report with no path: exit $rc: $(cat "$tmp/err")"
for p in var/log/gputally var/log/kern.log var/lib/node_exporter/textfile_collector; do
	if grep -q "reading:   $fake/$p " "$tmp/err"; then ok; else bad "stderr does not say it read $p"; fi
done
for p in gputally-logs var/lib/prometheus/node-exporter; do
	if grep -q "not there: .*$p " "$tmp/err"; then ok; else bad "stderr does not say $p is not there"; fi
done
if grep -q "^Verdict:   (assumed prices) " "$tmp/out"; then ok; else bad "no labelled verdict"; fi
if grep -q "gpu_monitor_h200_capture_20261129.csv *gpu-monitor" "$tmp/out"; then ok; else bad "the recorder's file was not read"; fi
if grep -q "kern.log *syslog" "$tmp/out"; then ok; else bad "kern.log was not read"; fi
# the textfile has no time and too few samples to place: read, and said so
if grep -q "textfile_collector/gpu.prom *not read: no time in the file" "$tmp/out"; then ok; else bad "the textfile directory was not read"; fi

# the recorder's default directory, relative to where it runs
mkdir -p "$tmp/cwd2/gputally-logs"
cp "$root/examples/h200-training/gpu_monitor_h200_capture_20261129.csv" "$tmp/cwd2/gputally-logs/"
cd "$tmp/cwd2" || exit 1
GPUTALLY_ROOT=$tmp/empty "$bin" report >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] && grep -q "reading:   gputally-logs " "$tmp/err" && ok || bad "./gputally-logs: exit $rc: $(cat "$tmp/err")"

# nothing anywhere: a usage error that says where it looked
mkdir -p "$tmp/cwd3"
cd "$tmp/cwd3" || exit 1
GPUTALLY_ROOT=$tmp/empty "$bin" report >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] && ok || bad "nothing there: exit $rc, want 2"
if grep -q "not there: $tmp/empty/var/log/kern.log" "$tmp/err" && grep -q "found none of this machine's logs" "$tmp/err"; then ok
else bad "nothing there: stderr: $(cat "$tmp/err")"; fi

echo "machine: $pass passed, $fail failed"
[ $fail -eq 0 ]
