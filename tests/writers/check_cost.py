#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""gputally cost and trend: the text (and --explain, and CSV) show the JSON's numbers.

  check_cost.py cost BIN NAME [cost arguments...]
  check_cost.py trend BIN NAME [trend arguments...]

Each figure is compared with the JSON's value rounded to the decimals the
writer printed.  Prints "writers: NAME: ok (N figures)" or each
disagreement, and exits 1.
"""
import csv
import io
import json
import re
import subprocess
import sys

bad = []
n = 0


def out(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode:
        bad.append("%s: exit %d: %s" % (" ".join(cmd[1:]), p.returncode, p.stderr.strip()[:200]))
    return p.stdout


def same(where, shown, value):
    global n
    n += 1
    s = shown.replace(",", "").rstrip("%").strip()
    if value is None or s in ("-", "", "never", "n/a"):
        if not (value is None and s in ("-", "", "never", "n/a")):
            bad.append("%s: shows %r, the JSON says %r" % (where, shown, value))
        return
    x = float(s)
    dec = len(s.split(".")[1]) if "." in s else 0
    if abs(x - value) > 0.5 * 10 ** -dec + 1e-9 * max(1, abs(value)):
        bad.append("%s: shows %s, the JSON says %r" % (where, shown, value))


def grab(where, pattern, text):
    m = re.search(pattern, text, re.M)
    if not m:
        bad.append("%s: no line matches %r" % (where, pattern))
    return m


def cost(bin_, args):
    j = json.loads(out([bin_, "cost"] + args + ["--json"]))
    t = out([bin_, "cost"] + args)
    e = out([bin_, "cost"] + args + ["--explain"])
    lr, be = j["local"], j["break_even"]
    m = grab("cost text H", r"^  H    available hours per year +(\S+)", t)
    m and same("cost text H", m.group(1), lr["hours_per_year"])
    m = grab("cost text F", r"^  F    fixed cost per year +(\S+)", t)
    m and same("cost text F", m.group(1), lr["fixed_per_year"])
    m = grab("cost text C_C", r"^  C_C  cloud cost per useful hour +(\S+)", t)
    m and same("cost text C_C", m.group(1), j["cloud"]["cost_per_useful_hour"])
    u = be["utilization"]
    m = grab("cost text u*", r"^break-even utilization u\* = (\S+)(?: %)?: " + be["status"] + "$", t)
    m and same("cost text u*", m.group(1), None if u is None or be["status"] == "never" else 100 * u)
    m = None if be["status"] == "never" else grab("cost explain u*", r"^         = (\S+), that is (\S+) %", e)
    if m:
        same("cost explain u*", m.group(1), be["utilization"])
        same("cost explain u* %", m.group(2), 100 * be["utilization"])
    if "at_utilization" in j:
        a = j["at_utilization"]
        m = grab("cost text C_L(u)", r"^at utilization (\S+) % a useful hour costs (\S+) \S+ locally", t)
        if m:
            same("cost text u", m.group(1), 100 * a["utilization"])
            same("cost text C_L(u)", m.group(2), a["local_cost_per_useful_hour"])
        m = grab("cost explain C_L(u)", r"= (\S+) per useful hour \(cloud: (\S+)\)", e)
        if m:
            same("cost explain C_L(u)", m.group(1), a["local_cost_per_useful_hour"])
            same("cost explain C_C", m.group(2), j["cloud"]["cost_per_useful_hour"])
        r = j["roi"]
        m = grab("cost text ROI", r"payback (\S+) months; at the end of the lifetime (\S+) \S+ \(ROI (\S+) %\)", t)
        if m:
            same("cost text payback", m.group(1), r["payback_months"])
            same("cost text return at end", m.group(2), r["return_at_end"])
            same("cost text ROI %", m.group(3), r["roi_pct"])
    if "job" in j:
        m = grab("cost text job", r"^  a job of \S+ useful hours: (\S+) \S+ locally, (\S+) \S+ in the cloud \((\S+) billed hours\)", t)
        if m:
            same("cost text job local", m.group(1), j["job"]["local_cost"])
            same("cost text job cloud", m.group(2), j["job"]["cloud_cost"])
            same("cost text job billed hours", m.group(3), j["job"]["cloud_billed_hours"])
    rows = {r[0]: r for r in re.findall(r"^  (\w+) +\S+ +\S+ +(\S+ %|never) +(\S+ %|never) +(\S+ %|n/a)$", t, re.M)}
    for s in j["sensitivity"]:
        r = rows.get(s["param"])
        if not r:
            bad.append("cost text: no sensitivity row for %s" % s["param"])
            continue
        same("cost text %s u* low" % s["param"], r[1], None if s["u_low"] is None else 100 * s["u_low"])
        same("cost text %s u* high" % s["param"], r[2], None if s["u_high"] is None else 100 * s["u_high"])
        same("cost text %s swing" % s["param"], r[3], None if s["swing"] is None else 100 * s["swing"])


def trend(bin_, args):
    j = json.loads(out([bin_, "trend"] + args + ["--json"]))
    t = out([bin_, "trend"] + args)
    c = list(csv.DictReader(io.StringIO(out([bin_, "trend"] + args + ["--csv"]))))
    rows = j.get("buckets", j["tasks"])
    key = "label" if "buckets" in j else "task"
    text = {}
    for line in t.splitlines():
        f = line.split()
        # label, GPUs, GPU-h, util%, busy%, mem GiB, kWh, owned, rented, idle money, bar
        if len(f) >= 11 and re.match(r"^\d+$", f[-10]):
            text[" ".join(f[:-10])] = f[-9:-1]
    if len(c) != len(rows):
        bad.append("trend: %d CSV rows, %d in the JSON" % (len(c), len(rows)))
    for i, r in enumerate(rows):
        name = r[key]
        tr = text.get(name)
        if not tr:
            bad.append("trend text: no row %r" % name)
            continue
        gh, util, busy, mem, kwh, own, rent, idle = tr[0:8]
        same("trend text %s GPU-h" % name, gh, r["gpu_hours"])
        same("trend text %s util" % name, util, r["util_mean_pct"])
        same("trend text %s busy%%" % name, busy, None if r["busy_share"] is None else 100 * r["busy_share"])
        same("trend text %s kWh" % name, kwh, r["energy_kwh"])
        same("trend text %s owned" % name, own, r["owned_cost"])
        same("trend text %s rented" % name, rent, r["rented_cost"])
        same("trend text %s idle money" % name, idle, r["idle_cost"])
        if i < len(c):
            for col in ("gpu_hours", "busy_gpu_hours", "util_mean_pct", "busy_share", "energy_kwh",
                        "owned_cost", "rented_cost", "idle_cost"):
                same("trend csv %s %s" % (name, col), c[i][col], r[col])
    tot = text.get("total") or text.get("all GPU time")
    if tot:
        same("trend text total owned", tot[5], j["total"]["owned_cost"])
        same("trend text total GPU-h", tot[0], j["total"]["gpu_hours"])
    else:
        bad.append("trend text: no total row")


def main():
    what, bin_, name, args = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    (cost if what == "cost" else trend)(bin_, args)
    if bad:
        for b in bad:
            print("writers: %s: FAIL: %s" % (name, b))
        return 1
    print("writers: %s: ok (%d figures the same in its text and JSON)" % (name, n))
    return 0


if __name__ == "__main__":
    sys.exit(main())
