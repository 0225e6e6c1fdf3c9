#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Traces inside `gputally report`, checked independently.

1. The real capture: examples/h200-training's dmon log with the three H200
   traces.  Each trace's stretch, kernel union and medians are recounted from
   the trace JSON; utilization.gpu over the window the report names is
   recomputed from the dmon rows (a reading holds from its time to the next
   row, docs/report-json.md); the GPU's useful seconds must be its time in
   useful states less their share of each stretch (recounted from the
   report's segments over the same window) plus its kernels; the findings
   must be those the rules give (docs/states.md).
2. A generated case where utilization.gpu says 90 % and the kernels fill
   40 %: exactly one busy_on_paper, on the right GPU, with value 40; a trace
   of a device no log has, and a trace cut in half, are listed as not joined.
3. An Nsight Systems export whose CUDA device 0 is, by its UUID, the GPU that
   a query log calls index 3: joined by UUID, not by number.
Usage: report_check.py GPUTALLY
"""
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile
from decimal import Decimal, ROUND_HALF_UP

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
fails = 0


def check(ok, what):
    global fails
    if not ok:
        fails += 1
        print("FAIL:", what)


def ns(x):
    return int((Decimal(x) * 1000).to_integral_value(rounding=ROUND_HALF_UP))


def union(iv):
    out = []
    for a, b in sorted(iv):
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return sum(b - a for a, b in out)


def median_low(v):
    v = sorted(v)
    return v[(len(v) - 1) // 2] if v else 0


def trace_facts(path):
    op = gzip.open if open(path, "rb").read(2) == b"\x1f\x8b" else open
    with op(path, "rt") as f:
        doc = json.load(f, parse_float=Decimal, parse_int=Decimal)
    base = int(doc.get("baseTimeNanoseconds", 0))
    hull, kern = [None, None], []
    for e in doc["traceEvents"]:
        cat = str(e.get("cat", "")).lower()
        if e.get("ph") != "X":
            continue
        used = cat in ("kernel", "gpu_memcpy", "gpu_memset", "cuda_runtime", "cuda_driver", "trace") or (
            cat in ("user_annotation", "cpu_op") and str(e.get("name", "")).startswith("ProfilerStep#"))
        if not used:
            continue
        t0 = base + ns(e["ts"])
        t1 = t0 + max(0, ns(e["dur"]))
        hull = [t0 if hull[0] is None else min(hull[0], t0), t1 if hull[1] is None else max(hull[1], t1)]
        if cat == "kernel":
            kern.append((t0, t1))
    kern.sort()
    gaps = [max(0, kern[i + 1][0] - kern[i][1]) for i in range(len(kern) - 1)]
    return {"t0": hull[0], "t1": hull[1], "kernels": len(kern), "kernel_ns": union(kern),
            "kp50": median_low([b - a for a, b in kern]), "gp50": median_low(gaps)}


def dmon_readings(path):
    """(t_ns, gpu, sm) from a dmon -o DT log, times in UTC."""
    import calendar
    out = []
    for line in open(path):
        if line.startswith("#") or not line.strip():
            continue
        f = line.split()
        y, mo, d = int(f[0][:4]), int(f[0][4:6]), int(f[0][6:])
        hh, mm, ss = (int(x) for x in f[1].split(":"))
        out.append((calendar.timegm((y, mo, d, hh, mm, ss)) * 10**9, int(f[2]), float(f[6])))
    return out


def util_over(readings, gpu, w0, w1):
    """Time-weighted sm % over [w0, w1): each reading holds until the next one."""
    r = sorted((t, v) for t, g, v in readings if g == gpu)
    acc = known = 0
    for i, (t, v) in enumerate(r):
        a, b = t, r[i + 1][0] if i + 1 < len(r) else t
        a, b = max(a, w0), min(b, w1)
        if b > a:
            acc += v * (b - a)
            known += b - a
    return acc / known if known else None


def report(binary, d):
    env = dict(os.environ, TZ="UTC", LC_ALL="C")
    out = subprocess.run([binary, "report", "--json", d], capture_output=True, text=True, env=env)
    if out.returncode != 0:
        print(f"FAIL: report {d}: exit {out.returncode}: {out.stderr.strip()}")
        sys.exit(1)
    return json.loads(out.stdout)


USEFUL = ("compute_bound", "memory_bound", "throttled")   # docs/states.md: the useful states


def useful_share(rep, gpu, w0, w1):
    """share of [w0, w1) (ns) in useful states, over its time in any state but gap, from segments[]"""
    use = cov = 0
    for s in rep["segments"]:
        if s["gpu"] != gpu or s["state"] == "gap":
            continue
        a = max(iso_ns(s["start"]), w0)
        b = min(iso_ns(s["end"]), w1)
        if b > a:
            cov += b - a
            use += (b - a) if s["state"] in USEFUL else 0
    return use / cov if cov else 0


def iso_ns(t):
    """RFC 3339 (Z, up to 9 decimals) to integer ns"""
    from datetime import datetime, timezone
    day, _, frac = t.rstrip("Z").partition(".")
    whole = datetime.strptime(day, "%Y-%m-%dT%H:%M:%S").replace(tzinfo=timezone.utc).timestamp()
    return int(whole) * 10**9 + int((frac + "000000000")[:9])


def check_joins(rep, readings, facts):
    g = {x["gpu"]: x for x in rep["gpus"]}
    # one definition of busy (docs/states.md "Busy"): the time in useful states
    useful = {i: sum(x["states"][st]["seconds"] for st in USEFUL) for i, x in g.items()}
    for j in rep["traces"]["joined"]:
        f = facts[os.path.basename(j["path"])]
        name = os.path.basename(j["path"])
        check(j["start_ns"] == f["t0"] and j["end_ns"] == f["t1"], f"{name}: stretch {j['start_ns']}..{j['end_ns']}")
        check(j["kernels"] == f["kernels"], f"{name}: kernels {j['kernels']} != {f['kernels']}")
        check(round(j["kernel_s"] * 1e9) == f["kernel_ns"], f"{name}: kernel_s {j['kernel_s']} != {f['kernel_ns']} ns")
        check(round(j["kernel_p50_us"] * 1e3) == f["kp50"], f"{name}: kernel_p50 {j['kernel_p50_us']}")
        check(round(j["gap_p50_us"] * 1e3) == f["gp50"], f"{name}: gap_p50 {j['gap_p50_us']}")
        u = j["utilization_gpu"]
        want = util_over(readings, j["device"], u["window_start_ns"], u["window_end_ns"])
        check(u["window_start_ns"] <= j["start_ns"] and u["window_end_ns"] >= j["end_ns"], f"{name}: window")
        check(want is not None and abs(u["pct"] - want) < 1e-3, f"{name}: utilization {u['pct']} != {want}")
        span = (f["t1"] - f["t0"]) / 1e9
        share = useful_share(rep, j["gpu"], u["window_start_ns"], u["window_end_ns"])
        check(abs(j["useful_states_s"] - share * span) < 1e-3, f"{name}: useful_states_s {j['useful_states_s']} != {share * span}")
        useful[j["gpu"]] += f["kernel_ns"] / 1e9 - share * span
        check(j["useful_source"] == "trace kernels", f"{name}: useful_source {j['useful_source']}")
    for i, x in g.items():
        check(abs(x["useful_s"] - useful[i]) < 2e-3, f"GPU {i}: useful_s {x['useful_s']} != {useful[i]}")
    total = sum(useful.values()) / 3600
    check(abs(rep["cost"]["window"]["busy_h"] - total) < 2e-6, f"busy_h {rep['cost']['window']['busy_h']} != {total}")
    # the rules of docs/states.md, applied here
    want_f = set()
    for j in rep["traces"]["joined"]:
        f = facts[os.path.basename(j["path"])]
        fill = 100 * f["kernel_ns"] / (f["t1"] - f["t0"])
        u = util_over(readings, j["device"], j["utilization_gpu"]["window_start_ns"],
                      j["utilization_gpu"]["window_end_ns"])
        if u is not None and u >= 60 and fill < u / 2:
            want_f.add(("busy_on_paper", j["gpu"], j["start_ns"], round(fill, 3)))
        if f["kernels"] >= 100 and f["kp50"] < f["gp50"]:
            want_f.add(("trace_launch_bound", j["gpu"], j["start_ns"], round(f["gp50"] / f["kp50"], 3)))
    return want_f


def got_findings(rep):
    from datetime import datetime
    out = set()
    for x in rep["findings"]:
        if x["kind"] in ("busy_on_paper", "trace_launch_bound"):
            out.add((x["kind"], x["gpu"], x["start"], round(x["value"], 3)))
    return out


def iso_ms(t):
    import time
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t // 10**9)) + (
        ".%03dZ" % (t // 10**6 % 1000) if t // 10**6 % 1000 else "Z")


def compare_findings(rep, want, label):
    got = got_findings(rep)
    want = {(k, g, iso_ms(t), v) for k, g, t, v in want}
    check(got == want, f"{label}: findings {sorted(got)} != {sorted(want)}")
    return len(want)


def real(binary, tmp):
    d = os.path.join(tmp, "real")
    os.mkdir(d)
    dmon = os.path.join(ROOT, "examples", "h200-training", "dmon_pucvmet_DT.log")
    shutil.copy(dmon, d)
    facts = {}
    for t in ("trace_compute", "trace_dataloader", "trace_launch"):
        p = os.path.join(ROOT, "tests", "trace", "data", t + ".json.gz")
        shutil.copy(p, d)
        facts[t + ".json.gz"] = trace_facts(p)
    rep = report(binary, d)
    check(len(rep["traces"]["joined"]) == 3 and not rep["traces"]["not_joined"], "real: three joins")
    n = compare_findings(rep, check_joins(rep, dmon_readings(dmon), facts), "real")
    env = dict(os.environ, TZ="UTC", LC_ALL="C")
    md = subprocess.run([binary, "report", "--markdown", d], capture_output=True, text=True, env=env).stdout
    for name, f in facts.items():
        fill = "%.1f" % (100 * f["kernel_ns"] / (f["t1"] - f["t0"]))
        row = [l for l in md.splitlines() if name.replace("_", "\\_") in l and "| device index |" in l]
        check(len(row) == 1 and f"| {f['kernels']} | {fill} |" in row[0], f"markdown: {name}: {row}")
    # the HTML page's traces table: every number equal to the JSON's (tests/html/check.py)
    page, js = os.path.join(tmp, "real.html"), os.path.join(tmp, "real.json")
    subprocess.run([binary, "report", "--html", page, "--json", "-o", js, d], env=env, check=True)
    html = open(page).read()
    check(all(f"traces.joined.{i}.kernel_share" in html for i in range(3)), "html: no traces table")
    out = subprocess.run([sys.executable, os.path.join(ROOT, "tests", "html", "check.py"), page, js],
                         capture_output=True, text=True)
    check(out.returncode == 0, f"html: {out.stdout.strip()} {out.stderr.strip()}")
    print(f"report-trace-check: real capture: 3 traces joined to GPU 0, {n} trace finding(s) as the rules give; "
          "markdown and HTML show the JSON's figures")


DMON_HEAD = ("#Date        Time         gpu    pwr  gtemp  mtemp     sm    mem    enc    dec    jpg    ofa   mclk   pclk\n"
             "#YYYYMMDD    HH:MM:SS     Idx      W      C      C      %      %      %      %      %      %    MHz    MHz\n")


def synthetic(binary, tmp):
    import calendar
    d = os.path.join(tmp, "synthetic")
    os.mkdir(d)
    t0 = calendar.timegm((2026, 11, 29, 10, 0, 0))
    with open(os.path.join(d, "dmon.log"), "w") as f:
        f.write(DMON_HEAD)
        for s in range(60):
            for gpu, sm in ((0, 90), (1, 30)):
                hh, mm, ss = 10, s // 60, s % 60
                f.write(f" 20261129    {hh:02d}:{mm:02d}:{ss:02d}  {gpu:6d}    300     50     50  {sm:5d}     20"
                        f"      0      0      0      0   2619   1980\n")
    facts = {}

    def trace(name, dev, start_s):
        # runs of 8 back-to-back 10 ms kernels, then 120 ms with none: kernels fill 40 %
        # (times in whole microseconds, so the JSON numbers are exact)
        base = (t0 + start_s) * 10**9
        ev, t = [], 0
        for run in range(10):
            for k in range(8):
                ev.append({"ph": "X", "cat": "kernel", "name": "gemm", "pid": dev, "tid": 7,
                           "ts": t // 1000, "dur": 10000, "args": {"device": dev, "stream": 7}})
                t += 10_000_000
            t += 120_000_000
        ev.append({"ph": "X", "cat": "Trace", "name": "PyTorch Profiler (0)", "pid": "Spans", "tid": 1,
                   "ts": 0, "dur": t // 1000})
        p = os.path.join(d, name)
        json.dump({"schemaVersion": 1, "baseTimeNanoseconds": base, "traceEvents": ev}, open(p, "w"))
        facts[name] = trace_facts(p)

    trace("busy_gpu0.json", 0, 20)
    trace("calm_gpu1.json", 1, 30)
    trace("nobody_gpu5.json", 5, 25)
    trace("cut_gpu0.json", 0, 40)	# then cut in half: a trace that cannot be read to its end
    cut = os.path.join(d, "cut_gpu0.json")
    text = open(cut).read()
    open(cut, "w").write(text[:len(text) // 2])
    del facts["cut_gpu0.json"]
    rep = report(binary, d)
    nj = sorted(rep["traces"]["not_joined"], key=lambda x: x["path"])
    check(len(nj) == 2 and nj[0]["path"].endswith("cut_gpu0.json") and
          nj[0]["why"].startswith("the trace cannot be read to its end") and
          nj[1]["device"] == 5 and nj[1]["path"].endswith("nobody_gpu5.json"), f"synthetic: not joined {nj}")
    readings = dmon_readings(os.path.join(d, "dmon.log"))
    want = check_joins(rep, readings, facts)
    check([w[:2] for w in want] == [("busy_on_paper", 0)] and abs(list(want)[0][3] - 40) < 1e-9,
          f"synthetic: the rules give {want}")
    compare_findings(rep, want, "synthetic")
    print("report-trace-check: generated case: busy_on_paper on GPU 0 (90 % against 40 %), none on GPU 1, "
          "device 5 and a cut trace not joined")


def nsys_by_uuid(binary, tmp):
    """An Nsight export whose CUDA device 0 is, by UUID, the GPU the logs call index 3."""
    import calendar
    import sqlite3
    d = os.path.join(tmp, "uuid")
    os.mkdir(d)
    uuid = "GPU-11111111-2222-3333-4444-555555555555"
    t0 = calendar.timegm((2026, 11, 29, 11, 0, 0))
    with open(os.path.join(d, "query.csv"), "w") as f:
        f.write("timestamp, index, uuid, utilization.gpu [%], memory.used [MiB]\n")
        for s in range(60):
            f.write(f"2026/11/29 11:00:{s:02d}.000, 3, {uuid}, 90 %, 1000 MiB\n")
    db = sqlite3.connect(os.path.join(d, "run.sqlite"))
    db.executescript("""
        CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);
        INSERT INTO StringIds VALUES (1, 'gemm');
        CREATE TABLE TARGET_INFO_SESSION_START_TIME (utcEpochNs INTEGER, utcTime TEXT, localTime TEXT);
        CREATE TABLE TARGET_INFO_CUDA_DEVICE (gpuId INTEGER, cudaId INTEGER, pid INTEGER, uuid TEXT);
        CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER, streamId INTEGER,
            correlationId INTEGER, globalPid INTEGER, demangledName INTEGER, shortName INTEGER);""")
    db.execute("INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES (?, NULL, NULL)", ((t0 + 20) * 10**9,))
    db.execute("INSERT INTO TARGET_INFO_CUDA_DEVICE VALUES (3, 0, 1, ?)", (uuid,))
    kern, t = [], 0
    for run in range(10):	# 8 back-to-back 10 ms kernels, then 120 ms idle: 40 %
        for k in range(8):
            kern.append((t, t + 10_000_000))
            t += 10_000_000
        t += 120_000_000
    for i, (a, b) in enumerate(kern):
        db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?, ?, 0, 7, ?, ?, 1, 1)", (a, b, i, 1 << 24))
    db.commit()
    db.close()
    rep = report(binary, d)
    j = rep["traces"]["joined"]
    span = kern[-1][1] - kern[0][0]
    fill = 100 * union(kern) / span
    check(len(j) == 1 and j[0]["matched_by"] == "uuid" and j[0]["device"] == 0 and
          rep["gpus"][j[0]["gpu"]]["index"] == 3, f"uuid: joins {j}")
    check(len(j) == 1 and round(j[0]["kernel_s"] * 1e9) == union(kern) and j[0]["kernels"] == len(kern),
          f"uuid: kernel_s {j and j[0]['kernel_s']}")
    got = [x["value"] for x in rep["findings"] if x["kind"] == "busy_on_paper"]
    check(len(got) == 1 and abs(got[0] - fill) < 5e-4, f"uuid: busy_on_paper values {got}, want one of {fill}")
    print(f"report-trace-check: Nsight export matched by UUID to the logs' GPU index 3: kernels fill {fill:.2f} % "
          "against 90 %: busy_on_paper")


def main():
    binary = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        real(binary, tmp)
        synthetic(binary, tmp)
        nsys_by_uuid(binary, tmp)
    sys.exit(1 if fails else 0)


main()
