#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Independent check of `gputally trace --json` on Nsight Systems SQLite exports.

Each fixture is SQL text (tests/formats/nsys-sqlite/*.sql): it is built here
with Python's sqlite3 module (not the sqlite3 command line, not gputally),
then every per-device figure is recomputed from the tables with the
definitions of docs/trace-json.md (unions across streams, launch latency
matched by (process, correlationId), process = globalPid >> 24 and
globalTid >> 24) and compared exactly with what gputally prints.
A Kineto trace (.json.gz) given instead is turned into an export first (its
kernels, copies, memsets and runtime calls, in the current column set), so
the real H200 traces are checked through this format too.
Usage: check_nsys.py GPUTALLY FIXTURE.sql|TRACE.json.gz...
"""
import math
import os
import sqlite3
import subprocess
import sys
import tempfile


def union(iv):
    out = []
    for a, b in sorted(iv):
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return sum(b - a for a, b in out)


def nearest_rank(v, q):
    return v[max(1, math.ceil(q * len(v))) - 1]


def rows(db, table):
    if not db.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (table,)).fetchone():
        return []
    cols = [r[1] for r in db.execute(f'PRAGMA table_info("{table}")')]
    return [dict(zip(cols, r)) for r in db.execute(f'SELECT * FROM "{table}"')]


def expect(db):
    calls = {}
    for r in rows(db, "CUPTI_ACTIVITY_KIND_RUNTIME"):
        if r.get("correlationId") is not None:
            calls.setdefault((r["globalTid"] >> 24, r["correlationId"]), r["start"])
    devs = {}
    for kind, table in (("k", "CUPTI_ACTIVITY_KIND_KERNEL"), ("c", "CUPTI_ACTIVITY_KIND_MEMCPY"),
                        ("s", "CUPTI_ACTIVITY_KIND_MEMSET")):
        for r in rows(db, table):
            devs.setdefault(r["deviceId"], []).append(
                (kind, r["start"], r["end"], (r["globalPid"] >> 24, r["correlationId"])))
    want = {}
    for dev, ops in devs.items():
        kern = [o for o in ops if o[0] == "k"]
        lat = sorted(o[1] - calls[o[3]] for o in kern if o[3] in calls)
        want[dev] = {
            "kernels": len(kern),
            "kernel_sum_ns": sum(b - a for _, a, b, _ in kern),
            "kernel_union_ns": union([(a, b) for _, a, b, _ in kern]),
            "memcpy_ns": union([(a, b) for k, a, b, _ in ops if k == "c"]),
            "memset_ns": union([(a, b) for k, a, b, _ in ops if k == "s"]),
            "active_ns": union([(a, b) for _, a, b, _ in ops]),
            "p50_ns": nearest_rank(lat, 0.5) if lat else None,
            "p95_ns": nearest_rank(lat, 0.95) if lat else None,
        }
    return want


SCHEMA = """
CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE TARGET_INFO_SESSION_START_TIME (utcEpochNs INTEGER, utcTime TEXT, localTime TEXT);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
  contextId INTEGER, greenContextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
  demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL, mangledName INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
  contextId INTEGER, greenContextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
  bytes INTEGER, copyKind INTEGER, srcKind INTEGER, dstKind INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
  contextId INTEGER, greenContextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
  value INTEGER, bytes INTEGER, memKind INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER,
  globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER, callchainId INTEGER);
"""


def from_kineto(db, trace):
    import gzip
    import json
    from decimal import Decimal, ROUND_HALF_UP

    def ns(x):
        return int((Decimal(x) * 1000).to_integral_value(rounding=ROUND_HALF_UP))

    with gzip.open(trace, "rt") as f:
        doc = json.load(f, parse_float=Decimal, parse_int=Decimal)
    db.executescript(SCHEMA)
    base = int(doc.get("baseTimeNanoseconds", 0))
    db.execute("INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES (?, NULL, NULL)", (base,))
    names = {}

    def sid(n):
        if n not in names:
            names[n] = len(names) + 1
            db.execute("INSERT INTO StringIds VALUES (?, ?)", (names[n], n))
        return names[n]

    gpid, gtid = 4242 << 24, (4242 << 24) + 4243
    for e in doc["traceEvents"]:
        if e.get("ph") != "X":
            continue
        cat, a = str(e.get("cat", "")).lower(), e.get("args", {})
        t0 = ns(e["ts"])
        t1 = t0 + max(0, ns(e["dur"]))
        corr = int(a["correlation"]) if "correlation" in a else None
        if cat in ("kernel", "gpu_memcpy", "memcpy", "gpu_memset", "memset"):
            gpu = (int(a.get("device", e.get("pid"))), int(a.get("stream", e.get("tid"))), corr, gpid)
        if cat == "kernel":
            db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?,?,?,1,NULL,?,?,?,?,?,NULL)",
                       (t0, t1) + gpu + (sid(e["name"]), sid(e["name"])))
        elif cat in ("gpu_memcpy", "memcpy"):
            db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (?,?,?,1,NULL,?,?,?,0,1,2,3)",
                       (t0, t1) + gpu)
        elif cat in ("gpu_memset", "memset"):
            db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES (?,?,?,1,NULL,?,?,?,0,0,3)",
                       (t0, t1) + gpu)
        elif cat in ("cuda_runtime", "runtime", "cuda_driver"):
            db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?,?,1,?,?,?,0,NULL)",
                       (t0, t1, gtid, corr, sid(e["name"] + "_v7000")))


def got_ns(v):
    return None if v is None else round(v * 1000)


def main():
    binary, scripts = sys.argv[1], sys.argv[2:]
    fails = 0
    with tempfile.TemporaryDirectory() as tmp:
        for script in scripts:
            path = os.path.join(tmp, os.path.basename(script)[:-4] + ".sqlite")
            if script.endswith(".json.gz"):
                path = os.path.join(tmp, os.path.basename(script)[:-8] + ".sqlite")
            db = sqlite3.connect(path)
            if script.endswith(".json.gz"):
                from_kineto(db, script)
            else:
                db.executescript(open(script).read())
            db.commit()
            want = expect(db)
            db.close()
            out = subprocess.run([binary, "trace", "--json", path], capture_output=True, text=True)
            if out.returncode != 0:
                print(f"FAIL: {script}: exit {out.returncode}: {out.stderr.strip()}")
                fails += 1
                continue
            import json
            got = {d["device"]: d for d in json.loads(out.stdout)["devices"]}
            if sorted(got) != sorted(want):
                print(f"FAIL: {script}: devices {sorted(got)}, independent {sorted(want)}")
                fails += 1
                continue
            for dev, w in want.items():
                d = got[dev]
                lat = d["launch_latency_us"] or {}
                have = {
                    "kernels": d["kernels"],
                    "kernel_sum_ns": got_ns(d["kernel_sum_us"]),
                    "kernel_union_ns": got_ns(d["kernel_union_us"]),
                    "memcpy_ns": got_ns(d["memcpy_us"]),
                    "memset_ns": got_ns(d["memset_us"]),
                    "active_ns": got_ns(d["active_us"]),
                    "p50_ns": got_ns(lat.get("p50")),
                    "p95_ns": got_ns(lat.get("p95")),
                }
                for k, v in w.items():
                    if have[k] != v:
                        print(f"FAIL: {script}: GPU {dev}: {k}: gputally {have[k]}, independent {v}")
                        fails += 1
                print(f"trace-check: {script}: GPU {dev}: {w['kernels']} kernels, "
                      f"union {w['kernel_union_ns']} ns, active {w['active_ns']} ns")
    sys.exit(1 if fails else 0)


main()
