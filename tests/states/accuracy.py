#!/usr/bin/env python3
"""Per-second state accuracy on the bundled capture, against its app log.

Usage: accuracy.py REPORT.json APP_LOG.jsonl [MIN_WITHIN_PCT]

Independent of gputally's code: the phases and their times come from the
workload's own log (app_log.jsonl: phase_start / phase_end, wall-clock ts),
the expected state of each phase from docs/states.md ("How the rules hold
on the real capture"); gputally contributes only its segments[].  A second
[s, s+1) takes the state that covers most of it.

Within a phase: the seconds at least SETTLE s after its start and before
its end; their accuracy must be at least MIN_WITHIN_PCT (default 95) in
every phase.  Around each phase change T: the lag is the first time t from
T - 10 s on after which the state is the new phase's for 5 s running (or to
the phase's end), minus T, at one-second resolution, and the start of the
new state's segment minus T; printed, with the seconds T-3 .. T+3 (each
right when it is the state of the phase in force at its middle).
"""
import json
import sys
from datetime import datetime

EXPECT = {
    "idle_start": "held_idle", "compute": "compute_bound",
    "dataloader_bound": "input_bound", "launch_bound": "launch_bound",
    "two_streams": "input_bound", "memory_bound": "memory_bound",
    "leak": "held_idle", "idle_end": "held_idle",
}
SETTLE = 3      # seconds left out at each end of a phase for "within" (> the longest lag)
HOLD = 5        # seconds the new state must hold to count as shown


def ts(s):
    return datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()


def main():
    rep = json.load(open(sys.argv[1]))
    min_pct = float(sys.argv[3]) if len(sys.argv) > 3 else 95.0
    segs = [(ts(s["start"]), ts(s["end"]), s["state"]) for s in rep["segments"] if s["gpu"] == 0]
    phases, starts = [], {}
    for line in open(sys.argv[2]):
        o = json.loads(line)
        if o.get("event") == "phase_start":
            starts[o["phase"]] = o["ts"]
        elif o.get("event") == "phase_end":
            phases.append((o["phase"], starts[o["phase"]], o["ts"]))

    def state_at(s):
        """the state covering most of [s, s + 1)"""
        cover = {}
        for a, b, st in segs:
            o = min(b, s + 1) - max(a, s)
            if o > 0:
                cover[st] = cover.get(st, 0) + o
        return max(cover, key=cover.get) if cover else None

    bad = []
    print("phase               want            within  right  accuracy")
    for name, a, b in phases:
        want = EXPECT[name]
        secs = range(int(a) + SETTLE, int(b) - SETTLE)
        right = sum(1 for s in secs if state_at(s) == want)
        pct = 100.0 * right / len(secs) if secs else 100.0
        print("%-19s %-15s %6d %6d  %6.1f %%" % (name, want, len(secs), right, pct))
        if pct < min_pct:
            bad.append("%s: %.1f %% of its inner seconds are %s (want >= %g %%)" % (name, pct, want, min_pct))
    print("\nphase change                       lag (s): segment, whole s  right in T-3..T+3  seconds T-3 .. T+3")
    lags, seg_lags, near_right, near_n = [], [], 0, 0
    for (prev, pa, _), (name, a, b) in zip(phases, phases[1:]):
        want = EXPECT[name]
        same = EXPECT[prev] == want
        # the seconds around T, each against the phase in force at its middle
        right = 0
        for k in range(-3, 3):
            s0 = int(a) + k
            ph_want = want if s0 + 0.5 >= a else EXPECT[prev]
            right += state_at(s0) == ph_want
        near_right += right
        near_n += 6
        around = " ".join((state_at(int(a) + k) or "-")[:7] for k in range(-3, 3))
        if same:
            print("%-16s -> %-16s %8s %8s  %10d/6      %s" % (prev, name, "same", "state", right, around))
            continue
        lag = None
        for s0 in range(int(a) - 10, int(b)):
            if all(state_at(u) == want for u in range(s0, min(s0 + HOLD, int(b)))):
                lag = s0 + 1 - a    # the end of the first whole second that shows it
                break
        seg = [x for x in segs if x[2] == want and x[1] > a - 10 and x[1] - x[0] >= 1 and x[0] < b]
        seg_lag = seg[0][0] - a if seg else None
        print("%-16s -> %-16s %+8.1f %+8.1f  %10d/6      %s" % (prev, name,
              seg_lag if seg_lag is not None else float("nan"),
              lag if lag is not None else float("nan"), right, around))
        if lag is None:
            bad.append("%s: the state never becomes %s" % (name, want))
            continue
        lags.append(lag)
        seg_lags.append(seg_lag)
    if lags:
        print("\nover the %d changes of state: the new state's segment starts %+.1f s after the app log's"
              " phase_start (median; max %+.1f s); the end of the first whole second that shows it %+.1f s after"
              " (median; max %+.1f s); %d of the %d seconds in T-3..T+3 are right (%.0f %%)"
              % (len(lags), sorted(seg_lags)[len(seg_lags) // 2], max(seg_lags),
                 sorted(lags)[len(lags) // 2], max(lags), near_right, near_n, 100.0 * near_right / near_n))
    if bad:
        print("state-accuracy: FAIL\n  " + "\n  ".join(bad))
        sys.exit(1)
    print("state-accuracy: ok")


main()
