#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Synthetic logs for `gputally scale --logs` (tests/scale/run.sh): dmon and
# pmon at 1 s of four GPUs on which the task "train" runs on 1, then 2, then
# 4 GPUs (twice), another process "other" runs on GPU 3, and "train" makes a
# 20 s blip on GPU 2; an application log with known items per second.
# Writes the logs to DIR and the expected figures, computed from the plan
# here (not from gputally), to DIR/expect.json.
#   gen_logs.py DIR
import json, sys, time, calendar

D = sys.argv[1]
T0 = calendar.timegm((2026, 12, 1, 10, 0, 0))
END = T0 + 3 * 3600
# (task, gpus, start offset s, seconds, pid base)
PLAN = [("train", [0], 0, 1200, 1000),
        ("train", [0, 1], 1800, 720, 2000),
        ("train", [0, 1, 2, 3], 3600, 450, 3000),
        ("train", [0, 1, 2, 3], 5400, 510, 4000),
        ("other", [3], 7200, 300, 5000),
        ("train", [2], 9000, 20, 6000)]

def running(g, t):
    for name, gpus, s, n, pid in PLAN:
        if g in gpus and T0 + s <= t < T0 + s + n:
            return name, pid + g
    return None

def stamp(t):
    return time.strftime("%Y%m%d    %H:%M:%S", time.gmtime(t))

with open(D + "/dmon.log", "w") as dm, open(D + "/pmon.log", "w") as pm:
    dm.write("#Date        Time         gpu    pwr  gtemp  mtemp     sm    mem    enc    dec    jpg    ofa   mclk   pclk  pviol  tviol     fb   bar1   ccpm  sbecc  dbecc    pci  rxpci  txpci \n")
    dm.write("#YYYYMMDD    HH:MM:SS     Idx      W      C      C      %      %      %      %      %      %    MHz    MHz      %   bool     MB     MB     MB   errs   errs   errs   MB/s   MB/s \n")
    pm.write("#Date        Time         gpu         pid   type     sm    mem    enc    dec    jpg    ofa     fb   ccpm    command \n")
    pm.write("#YYYYMMDD    HH:MM:SS     Idx           #    C/G      %      %      %      %      %      %     MB     MB    name \n")
    for t in range(T0, END):
        for g in range(4):
            r = running(g, t)
            if r:
                dm.write(" %s %7d %6d %6d %6d %6d %6d      0      0      0      0   3201   1980      0      0  20000      1      0      0      0      0      0      0 \n" % (stamp(t), g, 400, 60, 60, 90, 40))
                pm.write(" %s %7d %11d     C     90     40      -      -      -      -  20000      0    %-14s \n" % (stamp(t), g, r[1], r[0]))
            else:
                dm.write(" %s %7d %6d %6d %6d %6d %6d      0      0      0      0   3201    345      0      0      0      1      0      0      0      0      0      0 \n" % (stamp(t), g, 60, 35, 35, 0, 0))
                pm.write(" %s %7d           -     -      -      -      -      -      -      -      -      -    -              \n" % (stamp(t), g))

# The application log: one step a second in each run of "train", at t + 0.5.
# Items per second per run; in the second 4-GPU run half the steps take
# 1000 ms at 350/s and half 500 ms at 370/s, so its throughput is the
# step-time-weighted (350 x 1 + 370 x 0.5) / 1.5.  Other events and steps
# without a throughput (as in the H200 capture) are not counted; one broken
# line is.
RATE = {0: 100.0, 1800: 190.0, 3600: 360.0}
items = {}	# gpus -> [items, seconds]
with open(D + "/app_log.jsonl", "w") as f:
    f.write(json.dumps({"ts": T0 - 5, "event": "cuda_context_ready"}) + "\n")
    for name, gpus, s, n, pid in PLAN[:4]:
        f.write(json.dumps({"ts": T0 + s, "event": "phase_start", "phase": "run%d" % s}) + "\n")
        acc = items.setdefault(len(gpus), [0.0, 0.0])
        for k in range(n):
            if s in RATE:
                rate, ms = RATE[s], 1000.0
            else:
                rate, ms = (350.0, 1000.0) if k % 2 == 0 else (370.0, 500.0)
            f.write(json.dumps({"ts": T0 + s + k + 0.5, "event": "step", "step": k, "step_ms": ms,
                                "samples_per_s": rate}) + "\n")
            acc[0] += rate * ms / 1000
            acc[1] += ms / 1000
        f.write(json.dumps({"ts": T0 + s + n - 0.1, "event": "step", "step": n, "step_ms": 12.0}) + "\n")
    f.write('{"ts": 1, "event": "step", "samples_per_s": \n')
hours = {1: [1200], 2: [720], 4: [450, 510]}
exp = {"windows": [[T0 + s, T0 + s + n, len(g)] for name, g, s, n, p in PLAN if name == "train"],
       "hours": {k: sum(v) / len(v) / 3600 for k, v in hours.items()},
       "throughput": {k: v[0] / v[1] for k, v in items.items()},
       "app_steps": sum(n for _, _, _, n, _ in PLAN[:4]), "app_no_rate": 4, "app_bad": 1,
       "other_window": [T0 + 7200, T0 + 7500, 1]}
json.dump(exp, open(D + "/expect.json", "w"))
