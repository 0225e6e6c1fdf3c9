#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Independent check of `gputally trace --json` on real Kineto traces.

Every figure is recomputed here from the JSON (read with Python's json and
gzip modules, times as exact decimals, so no double rounding), with the
definitions of docs/trace-json.md, and compared exactly (to the nanosecond)
with what gputally prints.  Usage: check.py GPUTALLY TRACE...
"""
import gzip
import json
import math
import subprocess
import sys
from decimal import Decimal, ROUND_HALF_UP

GPU = {"kernel": "k", "gpu_memcpy": "c", "memcpy": "c", "gpu_memset": "s", "memset": "s"}
RUNTIME = {"cuda_runtime", "runtime", "cuda_driver"}


def ns(x):
    return int((Decimal(x) * 1000).to_integral_value(rounding=ROUND_HALF_UP))


def union(iv):
    iv = sorted(iv)
    out = []
    for a, b in iv:
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return out, sum(b - a for a, b in out)


def overlap(merged, a, b):
    return sum(max(0, min(y, b) - max(x, a)) for x, y in merged)


def nearest_rank(v, q):
    return v[max(1, math.ceil(q * len(v))) - 1]


def expect(path):
    op = gzip.open if open(path, "rb").read(2) == b"\x1f\x8b" else open
    with op(path, "rt") as f:
        doc = json.load(f, parse_float=Decimal, parse_int=Decimal)
    base = int(doc.get("baseTimeNanoseconds", 0)) if isinstance(doc, dict) else 0
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    ops, calls, steps, hull = [], {}, [], [None, None]
    for e in events:
        if e.get("ph") != "X":
            continue
        cat = str(e.get("cat", "")).lower()
        t0 = base + ns(e["ts"])
        t1 = t0 + max(0, ns(e["dur"]))
        name = e.get("name", "")
        used = True
        args = e.get("args", {})
        if cat in GPU:
            ops.append((GPU[cat], t0, t1, args.get("correlation"), name))
        elif cat in RUNTIME:
            if args.get("correlation") is not None:
                calls.setdefault(int(args["correlation"]), t0)
        elif cat in ("user_annotation", "cpu_op", "operator") and name.startswith("ProfilerStep#"):
            steps.append((int(name[13:]), t0, t1))
        elif cat != "trace":
            used = False
        if used:
            hull[0] = t0 if hull[0] is None else min(hull[0], t0)
            hull[1] = t1 if hull[1] is None else max(hull[1], t1)
    kern = [o for o in ops if o[0] == "k"]
    _, kunion = union([(a, b) for _, a, b, _, _ in kern])
    _, cunion = union([(a, b) for k, a, b, _, _ in ops if k == "c"])
    _, sunion = union([(a, b) for k, a, b, _, _ in ops if k == "s"])
    active, aunion = union([(a, b) for _, a, b, _, _ in ops])
    lat = sorted(a - calls[int(c)] for _, a, _, c, _ in kern if c is not None and int(c) in calls)
    bins = {}
    for x in lat:
        k = 0 if x <= 0 else x.bit_length()
        bins[k] = bins.get(k, 0) + 1
    ent = -sum(c / len(lat) * math.log2(c / len(lat)) for c in bins.values()) if lat else None
    # idle split: before the launch of the op that ends a gap, nothing was queued
    starts = {}
    for _, a, _, c, _ in ops:
        starts.setdefault(a, []).append(c)
    host = queued = unmatched = 0
    edges = [hull[0]] + [x for blk in active for x in blk] + [hull[1]]
    for i in range(0, len(edges), 2):
        g0, g1 = edges[i], edges[i + 1]
        if g1 <= g0:
            continue
        if i + 2 == len(edges):
            host += g1 - g0
            continue
        # the op that starts the next block: the first in (t0, t1) order
        nxt = min((o for o in ops if o[1] == g1), key=lambda o: (o[1], o[2]))
        c = nxt[3]
        if c is None or int(c) not in calls:
            unmatched += g1 - g0
            continue
        l = min(max(calls[int(c)], g0), g1)
        host += l - g0
        queued += g1 - l
    return {
        "kernels": len(kern),
        "kernel_sum_ns": sum(b - a for _, a, b, _, _ in kern),
        "kernel_union_ns": kunion,
        "memcpy_ns": cunion,
        "memset_ns": sunion,
        "active_ns": aunion,
        "span_ns": hull[1] - hull[0],
        "host_wait_ns": host,
        "queued_gap_ns": queued,
        "unmatched_gap_ns": unmatched,
        "p50_ns": nearest_rank(lat, 0.5) if lat else None,
        "p95_ns": nearest_rank(lat, 0.95) if lat else None,
        "entropy": ent,
        "small_share": sum(1 for _, a, b, _, _ in kern if b - a < 10000) / len(kern) if kern else None,
        "steps": [(n, b - a, overlap(active, a, b)) for n, a, b in sorted(steps, key=lambda s: s[1])],
        "events": len(events),
    }


def got_ns(v):
    return int((Decimal(str(v)) * 1000).to_integral_value(rounding=ROUND_HALF_UP))


def main():
    binary, paths = sys.argv[1], sys.argv[2:]
    fails = 0
    for path in paths:
        want = expect(path)
        out = subprocess.run([binary, "trace", "--json", path], capture_output=True, text=True)
        if out.returncode != 0:
            print(f"FAIL: {path}: exit {out.returncode}: {out.stderr.strip()}")
            fails += 1
            continue
        got = json.loads(out.stdout)
        d = got["devices"][0]
        have = {
            "kernels": d["kernels"],
            "kernel_sum_ns": got_ns(d["kernel_sum_us"]),
            "kernel_union_ns": got_ns(d["kernel_union_us"]),
            "memcpy_ns": got_ns(d["memcpy_us"]),
            "memset_ns": got_ns(d["memset_us"]),
            "active_ns": got_ns(d["active_us"]),
            "span_ns": got_ns(d["span_us"]),
            "host_wait_ns": got_ns(d["host_wait_us"]),
            "queued_gap_ns": got_ns(d["queued_gap_us"]),
            "unmatched_gap_ns": got_ns(d["unmatched_gap_us"]),
            "p50_ns": got_ns(d["launch_latency_us"]["p50"]) if d["launch_latency_us"] else None,
            "p95_ns": got_ns(d["launch_latency_us"]["p95"]) if d["launch_latency_us"] else None,
            "entropy": d["launch_entropy_bits"],
            "small_share": d["small_kernel_share"],
            "steps": [(s["step"], got_ns(s["time_us"]), got_ns(s["active_us"])) for s in d["steps"]],
            "events": got["files"][0]["events"],
        }
        for k, w in want.items():
            h = have[k]
            if isinstance(w, float) and h is not None:
                ok = abs(w - h) < 5e-5
            else:
                ok = w == h
            if not ok:
                print(f"FAIL: {path}: {k}: gputally {h}, independent {w}")
                fails += 1
        print(f"trace-check: {path}: {want['kernels']} kernels, union {want['kernel_union_ns']} ns, "
              f"active {want['active_ns']} ns: {'ok' if not fails else 'see above'}")
    fails += same_on_threads(binary, paths)
    fails += metadata_after_events(binary, [p for p in paths if "/data/" in p])
    sys.exit(1 if fails else 0)


def metadata_after_events(binary, paths):
    """Issue 28 case 5: the real traces rewritten with every metadata key
    (baseTimeNanoseconds, deviceProperties, distributedInfo, ...) after
    traceEvents, as the on-demand path and some torch versions write them,
    must give the same `trace --json` and `report --json` figures as the
    originals: a plain file (its tail is read first), a gzip one (read twice)
    and with --threads 1 and 2."""
    import os
    import shutil
    import tempfile
    tmp = tempfile.mkdtemp(prefix="gputally-meta-after-")
    fails = 0
    try:
        for path in paths:
            with gzip.open(path, "rt") as f:
                doc = json.load(f)
            doc.setdefault("distributedInfo", {"backend": "nccl", "rank": 0, "world_size": 1})
            moved = {"traceEvents": doc["traceEvents"]}
            moved.update((k, v) for k, v in doc.items() if k != "traceEvents")
            name = os.path.basename(path).replace(".json.gz", "")
            plain = os.path.join(tmp, name + ".after.json")
            with open(plain, "w") as f:
                json.dump(moved, f, indent=1)
            with open(plain, "rb") as f, gzip.open(plain + ".gz", "wb", compresslevel=1) as z:
                shutil.copyfileobj(f, z)
            want = subprocess.run([binary, "trace", "--json", path], capture_output=True, text=True)
            for cand in (plain, plain + ".gz"):
                for threads in ("1", "2"):
                    got = subprocess.run([binary, "trace", "--json", "--threads", threads, cand],
                                         capture_output=True, text=True)
                    if got.returncode != 0:
                        print(f"FAIL: {cand}: exit {got.returncode}: {got.stderr.strip()}")
                        fails += 1
                        continue
                    w, g = json.loads(want.stdout), json.loads(got.stdout)
                    for k in ("devices", "cut", "health"):
                        if w[k] != g[k]:
                            print(f"FAIL: {cand} (--threads {threads}): trace --json '{k}' differs from {path}")
                            fails += 1
                    if w["files"][0]["events"] != g["files"][0]["events"]:
                        print(f"FAIL: {cand}: {g['files'][0]['events']} events, want {w['files'][0]['events']}")
                        fails += 1
        print(f"trace-check: {len(paths)} traces with their metadata after traceEvents (plain, gzip; "
              f"1 and 2 threads): {'the same figures' if not fails else 'see above'}")
    finally:
        shutil.rmtree(tmp)
    return fails


def run_out(cmd):
    out = subprocess.run(cmd, capture_output=True)
    return out.returncode, out.stdout, out.stderr


def same_on_threads(binary, paths):
    """`trace --json` and `dump` must give the same bytes with --threads 1 (one
    thread reads a trace) and 2 (traceEvents is split between two): on the
    given traces and on a 40 MB one generated from the real trace (plain and
    gzip-compressed, so that several jobs are cut)."""
    import os
    import shutil
    import tempfile
    tmp = tempfile.mkdtemp(prefix="gputally-threads-")
    fails = 0
    try:
        here = os.path.dirname(os.path.abspath(__file__))
        root = os.path.dirname(os.path.dirname(here))
        gen = subprocess.run([sys.executable, os.path.join(root, "bench", "gen_trace.py"),
                              os.path.join(here, "data", "trace_compute.json.gz"), tmp, "40000000", "1"],
                             capture_output=True, text=True)
        big = os.path.join(tmp, "rank0.pt.trace.json")
        if gen.returncode != 0 or not os.path.exists(big):
            print(f"FAIL: gen_trace.py: {gen.stderr.strip()}")
            return 1
        with open(big, "rb") as f, gzip.open(big + ".gz", "wb", compresslevel=1) as z:
            shutil.copyfileobj(f, z)
        for path in list(paths) + [big, big + ".gz"]:
            for cmd in (["trace", "--json"], ["dump"]):
                one = run_out([binary] + cmd + ["--threads", "1", path])
                two = run_out([binary] + cmd + ["--threads", "2", path])
                if one != two:
                    print(f"FAIL: {path}: gputally {cmd[0]}: --threads 2 differs from --threads 1")
                    fails += 1
        print(f"trace-check: {len(paths) + 2} traces: trace --json and dump the same with --threads 1 and 2"
              f"{'' if not fails else ': see above'}")
    finally:
        shutil.rmtree(tmp)
    return fails


main()
