#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The expectations of tests/judge/run.sh, one function per case."""
import json
import re
import sys


def load(p):
    with open(p) as f:
        return json.load(f)


def fail(msg):
    sys.exit("judge-tests: " + msg)


def index_of(j, gpu):
    return j["gpus"][gpu]["index"] if gpu is not None else None


def findings_text(p):
    """The lines of the text report's Findings section."""
    out, on = [], False
    with open(p) as f:
        for line in f:
            if line.startswith("Findings ("):
                on = True
            elif on and not line.strip():
                break
            if on:
                out.append(line.rstrip("\n"))
    return out


def leaks(j):
    return [f for f in j["findings"] if f["kind"].startswith("memory_leak")]


def summary(js, txt, leak_idx):
    j = load(js)
    leak_idx = int(leak_idx)
    lk = leaks(j)
    if len(lk) != 1 or index_of(j, lk[0]["gpu"]) != leak_idx:
        fail("case 1: want one leak on GPU %d, got %s" % (leak_idx, [(f["kind"], f["message"]) for f in lk]))
    m = re.search(r"\+/- ([0-9.e-]+)", lk[0]["message"])
    if not m or abs(lk[0]["value"] - 58) > float(m.group(1)) or not lk[0]["message"].startswith("GPU %d " % leak_idx):
        fail("case 1: leak %s" % lk[0]["message"])
    if j["findings_dropped"] or len(j["findings"]) > 20:
        fail("case 1: %d findings, %d dropped" % (len(j["findings"]), j["findings_dropped"]))
    if j["findings"][0]["kind"] != "memory_leak":
        fail("case 1: the leak is not ranked first: %s" % j["findings"][0]["kind"])
    seen = {}
    for f in j["findings"]:
        key = (f["kind"], f["gpu"])
        if key in seen:
            fail("case 1: two %s findings on GPU %s" % key)
        seen[key] = f
        st = f.get("stretches")
        if f["kind"] in ("held_idle", "input_starved", "launch_bound"):
            if not st or st["count"] < 1000 or len(st["longest"]) > 5 or \
                    st["longest_cut"] != st["count"] - len(st["longest"]):
                fail("case 1: %s stretches %s" % (f["kind"], st))
            lens = [d["seconds"] for d in st["longest"]]
            if lens != sorted(lens, reverse=True) or abs(st["total_s"] - f["value"]) > 1e-3:
                fail("case 1: %s longest %s" % (f["kind"], lens))
    for k in ("held_idle", "input_starved", "launch_bound"):
        if sum(1 for f in j["findings"] if f["kind"] == k) != 2:
            fail("case 1: want one %s per GPU" % k)
    t = findings_text(txt)
    if len(t) > 40 or not any("memory_leak" in l and "GPU 5" in l for l in t):
        fail("case 1: text findings %d lines:\n%s" % (len(t), "\n".join(t)))
    print("judge-tests: case 1: %d findings (was 12115), leak on GPU %d at %.3f MiB/h, %d text lines"
          % (len(j["findings"]), leak_idx, lk[0]["value"], len(t)))


def flood(js, txt, leak_idx, xid_idx):
    j = load(js)
    t = findings_text(txt)
    text = "\n".join(t)
    lk = leaks(j)
    xid = [f for f in j["findings"] if f["kind"] == "xid_error"]
    if len(lk) != 1 or j["findings"][0]["kind"] != "memory_leak" or index_of(j, lk[0]["gpu"]) != int(leak_idx):
        fail("flood: the leak is not first: %s" % j["findings"][0]["kind"])
    if len(xid) < 100 or any(index_of(j, f["gpu"]) != int(xid_idx) for f in xid) or j["findings_dropped"]:
        fail("flood: %d xid findings, %d dropped" % (len(xid), j["findings_dropped"]))
    kinds = {f["kind"] for f in j["findings"]}
    if len(t) > 50 or any(k not in text for k in kinds) or "xid_error  GPU %s:" % xid_idx not in text:
        fail("flood: %d text lines:\n%s" % (len(t), text))
    print("judge-tests: case 1 with 10000 Xids: %d findings, the leak first, every kind in %d text lines"
          % (len(j["findings"]), len(t)))


def noleak(js):
    j = load(js)
    if leaks(j):
        fail("case 2: a model load is a leak: %s" % leaks(j)[0]["message"])
    print("judge-tests: case 2: a 58 GiB load held 4 h: no leak")


def rising(js, idx):
    j = load(js)
    lk = leaks(j)
    if len(lk) != 1 or "still rising at the end" not in lk[0]["evidence"] or \
            not lk[0]["message"].startswith("GPU %s " % idx):
        fail("case 2: still rising at the end: %s" % [f["evidence"] for f in lk])
    print("judge-tests: case 2: still rising at the end: one leak")


def evidence(js):
    j = load(js)
    by = {f["kind"]: f for f in j["findings"]}
    for k, bad in (("input_starved", "nvrm_error"), ("held_idle", "driver_load")):
        f = by.get(k)
        if not f or bad in f["evidence"] or any(bad in (d["after"] or "") for d in f["stretches"]["longest"]):
            fail("case 7: %s names %s across healthy time: %s" % (k, bad, f and f["evidence"]))
    h = by["held_idle"]
    after = [d["after"] for d in h["stretches"]["longest"]]
    want = "Xid 13 at 2026-11-29T22:49:38Z, kern.log:3"
    if after.count(want) != 1 or h["stretches"]["after_event"] != 1 or want not in h["evidence"]:
        fail("case 7: held_idle after the Xid: %s / %s" % (after, h["evidence"]))
    print("judge-tests: case 7: no link across 47 s of compute or 7 s of idle; the Xid 2 s before is named")


def gaplink(js):
    j = load(js)
    g = [f for f in j["findings"] if f["kind"] == "log_gap"]
    want = "suspend at 2026-11-29T01:00:00Z, c7b-kern.log:1"
    if len(g) != 1 or g[0]["stretches"]["count"] != 1 or "after " + want not in g[0]["evidence"] or \
            g[0]["stretches"]["longest"][0]["after"] != want:
        fail("case 7: the gap after the suspend: %s" % [f["evidence"] for f in g])
    print("judge-tests: case 7: a gap after a suspend, 2 h before the end, names it")


def imbalance(js, txt, idx):
    j = load(js)
    im = [f for f in j["findings"] if f["kind"] == "imbalance"]
    if len(im) != 1 or index_of(j, im[0]["gpu"]) != int(idx) or not im[0]["message"].startswith("GPU %s " % idx):
        fail("case 8: imbalance %s" % [(f["gpu"], f["message"]) for f in im])
    for f in j["findings"]:
        if f["gpu"] is not None and not f["message"].startswith("GPU %d " % index_of(j, f["gpu"])) \
                and "GPU %d " % index_of(j, f["gpu"]) not in f["message"]:
            fail("case 8: %s names the wrong GPU: %s" % (f["kind"], f["message"]))
    t = "\n".join(findings_text(txt))
    if "imbalance  GPU %s" % idx not in t:
        fail("case 8: text:\n" + t)
    print("judge-tests: case 8: %s" % im[0]["message"])


def screen(js, txt, leak_idx, quiet_idx):
    j = load(js)
    t = findings_text(txt)
    lk = leaks(j)
    if len(lk) != 1 or index_of(j, lk[0]["gpu"]) != int(leak_idx):
        fail("month: leaks %s" % [f["message"] for f in lk])
    im = [f for f in j["findings"] if f["kind"] == "imbalance"]
    if not any(index_of(j, f["gpu"]) == int(quiet_idx) for f in im):
        fail("month: no imbalance on GPU %s" % quiet_idx)
    if j["findings_dropped"]:
        fail("month: %d dropped" % j["findings_dropped"])
    text = "\n".join(t)
    if len(t) > 50 or "memory_leak  GPU %s" % leak_idx not in text or "imbalance  GPU %s" % quiet_idx not in text:
        fail("month: %d text lines:\n%s" % (len(t), text))
    print("judge-tests: a month of 8 GPUs: %d findings, %d text lines" % (len(j["findings"]), len(t)))


if __name__ == "__main__":
    globals()[sys.argv[1]](*sys.argv[2:])
