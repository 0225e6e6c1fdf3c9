#!/bin/sh
# Kernel logs on the timeline (issue 9), end to end on the real H200 capture
# (tests/capture-kernel/: dmesg_raw_end.txt, dmesg_T_end.txt and the two
# clock_ref_*.txt, copied from ../shared/data/h200-training) and on generated
# bad input.  Every expected time is computed here, in Python, from the files
# themselves: wall - uptime of the clock reference + the printk seconds of the
# line, or --boot-time + seconds; never from gputally's output.
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$(cd "$(dirname "$0")/../.." && pwd)
cap="$root/tests/capture-kernel"
tmp=$(mktemp -d /tmp/gputally-kernel.XXXXXX); [ -n "$KEEP" ] || trap 'rm -rf "$tmp"' EXIT
export LC_ALL=C TZ=UTC
fail=0

run() { # name, then gputally arguments: dump into $tmp/name.{out,err}
	n=$1; shift
	"$bin" "$@" >"$tmp/$n.out" 2>"$tmp/$n.err"
	rc=$?
	if [ $rc -ge 124 ]; then echo "FAIL: $n crashed (exit $rc)"; fail=1; fi
	echo $rc >"$tmp/$n.rc"
}

run end dump "$cap/dmesg_raw_end.txt" "$cap/clock_ref_end.txt"
run start dump "$cap/dmesg_raw_end.txt" "$cap/clock_ref_start.txt"
run boot dump --boot-time 1795992300.25 "$cap/dmesg_raw_end.txt" "$cap/clock_ref_end.txt"
run none dump "$cap/dmesg_raw_end.txt"
run ctime dump "$cap/dmesg_T_end.txt"
cat "$cap/dmesg_raw_end.txt" "$cap/dmesg_raw_end.txt" >"$tmp/two_boots.txt"
run two dump "$tmp/two_boots.txt" "$cap/clock_ref_end.txt"
mkdir "$tmp/dir" && cp "$cap"/* "$root"/examples/h200-training/*.log "$tmp/dir/"
run report report --json "$tmp/dir"

# bad input: binary junk, NUL runs, a 1 MB line, invalid UTF-8, boots concatenated
python3 - "$tmp/bad.txt" <<'PY'
import sys
with open(sys.argv[1], "wb") as f:
    f.write(b"[    0.000000] Linux version 6.8.0 (x) #1 SMP\n")
    f.write(b"[    1.000000] NVRM: Xid (PCI:0000:01:00): 13, first\n")   # event 1
    f.write(b"\x00" * 4096 + b"\n")                                     # bad 1: NUL run
    f.write(b"\x7fELF\x02\x01\x01" + bytes(range(11, 256)) + bytes(range(10)) + b"\n")         # bad 2: binary
    f.write(b"[    2.000000] " + b"x" * (1 << 20) + b"\n")               # noise, 1 MB
    f.write(b"[    3.000000] NVRM: Xid (PCI:0000:01:00): 31, \xff\xfe bad utf-8 \xc3\x28\n")  # event 2
    f.write(b"[    0.000000] Linux version 6.8.0 (x) #1 SMP\n")
    f.write(b"[    4.000000] NVRM: Xid (PCI:0000:02:00): 79, GPU has fallen off the bus.\n")  # event 3 (boot 2)
PY
run bad dump "$tmp/bad.txt"
run badrep report --json "$tmp/bad.txt"

python3 - "$cap" "$tmp" <<'PY' || fail=1
import json, re, sys
from datetime import datetime, timezone
cap, tmp = sys.argv[1], sys.argv[2]
bad = []

def clock_ref(name):
    kv = dict(l.split(None, 1) for l in open(cap + "/" + name) if l.strip())
    return float(kv["wall"]) - float(kv["uptime"].split()[0]), int(kv["btime"])

def printk_lines():
    out = {}
    for i, l in enumerate(open(cap + "/dmesg_raw_end.txt", errors="replace"), 1):
        m = re.match(r"\[\s*(\d+)\.(\d{6})\] ", l)
        if m:
            out[i] = int(m.group(1)) + int(m.group(2)) / 1e6
    return out

def dump(name):
    return [json.loads(l) for l in open(tmp + "/" + name + ".out")]

def ts(s):
    return datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()

secs = printk_lines()
# the lines a reader picks out by hand: the boot, the driver load, the NVRM warning
want_lines = {1: "boot", 356: "driver_load", 359: "nvrm_error"}
for name, base in (("end", clock_ref("clock_ref_end.txt")[0]), ("boot", 1795992300.25)):
    ev = [r for r in dump(name) if r["kind"] == "event"]
    got = {r["line"]: r["event"] for r in ev}
    if got != want_lines:
        bad.append("%s: events %s, want %s" % (name, got, want_lines))
    for r in ev:
        want = base + secs[r["line"]]
        if r["t"] is None or abs(ts(r["t"]) - want) > 0.0011:   # dump prints milliseconds
            bad.append("%s: line %d at %s, want %.6f" % (name, r["line"], r["t"], want))
drv = [r for r in dump("end") if r["event"] == "driver_load"]
if not drv or drv[0].get("text") != "580.159.04":
    bad.append("driver version: %s" % drv)
# the start reference was read at uptime 23.92 s, before the log's last line
# (52.03 s): it cannot be this boot's; nothing else places it
if clock_ref("clock_ref_start.txt")[0] and max(secs.values()) <= 23.92:
    bad.append("test premise: the log should outlast the start reference")
for name in ("start", "none"):
    ev = [r for r in dump(name) if r["kind"] == "event"]
    if len(ev) != 3 or any(r["t"] is not None for r in ev):
        bad.append("%s: want 3 unplaced events, got %s" % (name, [(r["line"], r["t"]) for r in ev]))
    if "unplaced: no anchor; give --boot-time" not in open(tmp + "/" + name + ".err").read():
        bad.append("%s: the basis does not say unplaced" % name)
if "btime 1795992369" not in open(tmp + "/end.err").read():
    bad.append("end: the basis does not name btime")
# dmesg -T: util-linux wrote boot time + seconds, cut to the second
for r in dump("ctime"):
    want = clock_ref("clock_ref_end.txt")[1] + secs[r["line"]]
    if abs(ts(r["t"]) - want) > 1.0:
        bad.append("ctime: line %d at %s, want %.0f +- 1" % (r["line"], r["t"], want))
# two boots concatenated: the first ends before the reference's boot; only the second is placed
ev = [r for r in dump("two") if r["kind"] == "event"]
n = len(secs) if False else 359
first = [r for r in ev if r["line"] <= n]
second = [r for r in ev if r["line"] > n]
if len(first) != 3 or any(r["t"] is not None or r.get("boot") != 0 for r in first):
    bad.append("two boots: the first boot should be unplaced: %s" % first)
off = clock_ref("clock_ref_end.txt")[0]
for r in second:
    if r["t"] is None or abs(ts(r["t"]) - (off + secs[r["line"] - n])) > 0.0011:
        bad.append("two boots: line %d at %s" % (r["line"], r["t"]))
# the report names the anchor of the dmesg input
rep = json.load(open(tmp + "/report.out"))
tb = {i["path"].rsplit("/", 1)[-1]: i.get("time_basis") for i in rep["inputs"]}
if "clock_ref_end.txt" not in (tb.get("dmesg_raw_end.txt") or ""):
    bad.append("report: time_basis of dmesg_raw_end.txt is %r" % tb.get("dmesg_raw_end.txt"))
if "dmesg_T_end.txt" in tb and "timestamps in the file" not in (tb["dmesg_T_end.txt"] or ""):
    bad.append("report: time_basis of dmesg_T_end.txt is %r" % tb["dmesg_T_end.txt"])
# bad input: 3 events (2 boots), 2 bad lines, and the reasons with their place
recs = dump("bad")
ev = [r for r in recs if r["kind"] == "event" and r["event"] == "xid"]
badl = [r for r in recs if r["kind"] == "bad"]
if [(r["code"], r["boot"]) for r in ev] != [(13, 0), (31, 0), (79, 1)]:
    bad.append("bad input: events %s" % [(r.get("code"), r.get("boot")) for r in ev])
if [(r["line"], r["col"]) for r in badl] != [(3, 1), (4, 1)]:
    bad.append("bad input: bad lines %s" % [(r["line"], r["col"]) for r in badl])
err = open(tmp + "/bad.err").read()
if ":3:1: not a kernel log line" not in err or ":4:1: not a kernel log line" not in err:
    bad.append("bad input: messages %r" % err[:300])
if json.load(open(tmp + "/badrep.out")).get("skipped_lines") != 2:
    bad.append("bad input: report skipped_lines is not 2")
for b in bad:
    print("FAIL:", b)
print("kernel: %d checks failed" % len(bad))
sys.exit(1 if bad else 0)
PY
[ $fail -eq 0 ]
