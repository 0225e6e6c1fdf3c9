#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Large Kineto traces for the trace benchmark, made from a real one.

The real trace's events (with their real kernel-name lengths) are repeated,
each repeat shifted by the trace's span so the steps follow one another, with
correlation and External ids shifted too so they stay unique; each of RANKS
files gets its own baseTimeNanoseconds (1 ms apart) and distributedInfo.
Times are written as Kineto writes them: microseconds with three decimals.
Usage: gen_trace.py REAL.json[.gz] OUT_DIR TOTAL_BYTES RANKS
"""
import gzip
import json
import os
import sys
from decimal import Decimal


def ns(x):
    return int(Decimal(str(x)) * 1000)


def us(v):
    return "%d.%03d" % (v // 1000, v % 1000)


GPU_CATS = ("kernel", "gpu_memcpy", "gpu_memset", "gpu_user_annotation", "cuda_sync")


def make_pieces(events, rank):
    """Each event as the text between the values that change per repeat;
    GPU events moved to device `rank` (one rank, one GPU)."""
    pieces = []
    for e in events:
        e2 = dict(e)
        if e2.get("cat") in GPU_CATS and isinstance(e2.get("pid"), int):
            e2["pid"] = rank
        vals = []
        if "ts" in e2:
            vals.append(("ts", ns(e2["ts"])))
            e2["ts"] = "\x00ts\x00"
        args = e2.get("args")
        if isinstance(args, dict):
            args = dict(args)
            if "device" in args:
                args["device"] = rank
            for k in ("correlation", "External id"):
                if isinstance(args.get(k), int):
                    vals.append((k, args[k]))
                    args[k] = "\x00" + k + "\x00"
            e2["args"] = args
        text = json.dumps(e2, separators=(", ", ": "))
        parts = []
        vals.sort(key=lambda kv: text.index(json.dumps("\x00" + kv[0] + "\x00")))
        for k, v in vals:
            mark = json.dumps("\x00" + k + "\x00")
            a, text = text.split(mark, 1)
            parts.append((a, k, v))
        pieces.append((parts, text))
    return pieces


def main():
    src, out_dir, total, ranks = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    op = gzip.open if open(src, "rb").read(2) == b"\x1f\x8b" else open
    with op(src, "rt") as f:
        doc = json.load(f, parse_float=float)  # shortest repr: the text as written
    events = doc["traceEvents"]
    base = int(doc.get("baseTimeNanoseconds", 0))
    t_min = min(ns(e["ts"]) for e in events if "ts" in e)
    t_max = max(ns(e["ts"]) + ns(e.get("dur", 0)) for e in events if "ts" in e)
    corr_max = max([e["args"].get(k) for e in events if isinstance(e.get("args"), dict)
                    for k in ("correlation", "External id") if isinstance(e["args"].get(k), int)] or [0])
    period = t_max - t_min + 1000
    head = {k: v for k, v in doc.items() if k not in ("traceEvents", "traceName", "baseTimeNanoseconds")}
    per_rank = total // ranks
    os.makedirs(out_dir, exist_ok=True)
    for r in range(ranks):
        path = os.path.join(out_dir, f"rank{r}.pt.trace.json")
        pieces = make_pieces(events, r)
        h = dict(head)
        h["distributedInfo"] = {"backend": "nccl", "rank": r, "world_size": ranks}
        with open(path, "w") as f:
            top = json.dumps(h)[1:-1]
            f.write("{" + top + f', "baseTimeNanoseconds": {base + r * 1000000}, "traceEvents": [\n')
            written, k, first = 0, 0, True
            while written < per_rank:
                shift, cshift = k * period, k * (corr_max + 1)
                buf = []
                for parts, tail in pieces:
                    s = []
                    for a, key, v in parts:
                        s.append(a)
                        s.append(us(v + shift) if key == "ts" else str(v + cshift))
                    s.append(tail)
                    buf.append("".join(s))
                chunk = ("" if first else ",\n") + ",\n".join(buf)
                first = False
                f.write(chunk)
                written += len(chunk)
                k += 1
            f.write('\n], "traceName": "%s"}\n' % os.path.basename(path))
        print(f"gen_trace: {path}: {k} repeats of {len(events)} events, {os.path.getsize(path)} bytes")


main()
