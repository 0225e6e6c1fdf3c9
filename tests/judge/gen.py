#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Long, messy dmon logs on a realistic background (issue 29).

Replays the rows of examples/h200-training/dmon_pucvmet_DT.log (the real
capture: idle, compute, dataloader-bound, launch-bound, two streams,
memory-bound, idle) over a long window for several GPUs, one row per GPU
per step, and writes `nvidia-smi dmon -s pucvmet -o DT` text to stdout.
Activity (power, sm, mem %, clocks ...) is the capture's row; memory used
(fb) is the scenario's, so a leak or a model load is exactly what the test
says it is:

  --gpus 2,5        GPU indices (the report must name these, not 0, 1)
  --hours H         window length; --step S seconds between rows
  --fb MIB          flat memory used, +/- 40 MiB uniform jitter per row
  --creep G:R       GPU G's memory rises R MiB/h on top of that
  --load G:MIB:S    GPU G starts at 1024 MiB and loads MIB more over S s at
                    a steady rate, then holds it flat (+/- jitter) to the end
  --quiet G         GPU G replays only the capture's quiet rows (sm <= 30 %):
                    a GPU much less busy than its peers
  --offset G:K      start GPU G's replay K rows into the capture
  --gap S:L         no rows from second S for L seconds (the logger stopped)
  --kern-xid N      write a kern.log instead: N Xid 13 lines at random times
                    over the window on PCI 0000:01:00 (an Xid flood)
Usage: gen.py [options] > dmon.log
"""
import argparse
import os
import random
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
CAPTURE = os.path.join(HERE, "..", "..", "examples", "h200-training", "dmon_pucvmet_DT.log")
HDR = ("#Date        Time         gpu    pwr  gtemp  mtemp     sm    mem    enc    dec    jpg    ofa   mclk   pclk  pviol  tviol     fb   bar1   ccpm  sbecc  dbecc    pci  rxpci  txpci \n"
       "#YYYYMMDD    HH:MM:SS     Idx      W      C      C      %      %      %      %      %      %    MHz    MHz      %   bool     MB     MB     MB   errs   errs   errs   MB/s   MB/s \n")
FB = 16  # column of fb in a row split on blanks (date, time, gpu, pwr ...)


def capture_rows():
    rows = []
    with open(CAPTURE) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            c = line.split()
            if len(c) == 24:
                rows.append(c)
    return rows


def pairs(vals, n):
    out = {}
    for v in vals or []:
        p = v.split(":")
        if len(p) != n:
            sys.exit("gen.py: %r: want %d fields separated by ':'" % (v, n))
        out[int(p[0])] = [float(x) for x in p[1:]]
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpus", default="0,1")
    ap.add_argument("--hours", type=float, default=1)
    ap.add_argument("--step", type=int, default=1)
    ap.add_argument("--fb", type=float, default=20000)
    ap.add_argument("--creep", action="append")
    ap.add_argument("--load", action="append")
    ap.add_argument("--quiet", action="append", type=int, default=[])
    ap.add_argument("--offset", action="append")
    ap.add_argument("--gap", action="append")
    ap.add_argument("--kern-xid", type=int, default=0)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--start", default="2026-11-29T00:00:00")
    a = ap.parse_args()
    rnd = random.Random(a.seed)
    rows = capture_rows()
    quiet_rows = [r for r in rows if int(r[6]) <= 30]
    gpus = [int(g) for g in a.gpus.split(",")]
    creep = pairs(a.creep, 2)
    load = pairs(a.load, 3)
    off = {g: int(v[0]) for g, v in pairs(a.offset, 2).items()}
    gaps = [tuple(int(x) for x in v.split(":")) for v in a.gap or []]
    t0 = int(time.mktime(time.strptime(a.start, "%Y-%m-%dT%H:%M:%S"))) - time.timezone
    n = int(a.hours * 3600 / a.step)
    out = sys.stdout
    if a.kern_xid:
        for t in sorted(rnd.uniform(0, a.hours * 3600) for _ in range(a.kern_xid)):
            out.write(time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t0 + int(t))) +
                      ",%06d+00:00 NVRM: Xid (PCI:0000:01:00): 13, pid=4242, name=python3, "
                      "Graphics SM Warp Exception on (GPC 0, TPC 0, SM 0): Out Of Range Address\n" % int(t % 1 * 1e6))
        return
    out.write(HDR)
    fmt = " %s    %s" + " %7s" + " %6s" * 21 + " \n"
    for i in range(n):
        t = i * a.step
        if any(g0 <= t < g0 + gl for g0, gl in gaps):
            continue
        tm = time.gmtime(t0 + t)
        d, hms = time.strftime("%Y%m%d", tm), time.strftime("%H:%M:%S", tm)
        for g in gpus:
            src = quiet_rows if g in a.quiet else rows
            r = list(src[(i + off.get(g, 0)) % len(src)])
            fb = a.fb
            if g in creep:
                fb += creep[g][0] * t / 3600
            if g in load:
                mib, secs = load[g]
                fb = 1024 + mib * min(t, secs) / secs
            fb += rnd.uniform(-40, 40)
            r[FB] = "%d" % int(fb + 0.5)
            r[FB + 1] = "%d" % int(fb + 1.5)
            out.write(fmt % tuple([d, hms, str(g)] + r[3:]))


if __name__ == "__main__":
    main()
