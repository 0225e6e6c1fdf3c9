#!/usr/bin/env python3
"""Issue 29's judgement cases, generated on a realistic background.

Usage: cases.py BIN CAPTURE_DIR [CASE ...]

Every row is a row of the bundled capture (examples/h200-training) replayed
with a new time: the phases' own rows, picked by the app log's phase times,
nothing constant but what each case changes on purpose.  The expected state
of each phase is docs/states.md's table ("How the rules hold on the real
capture"); nothing here is taken from gputally's code.

  throttle   query-gpu rows of the compute phase: 20 s as captured (1980 MHz),
             then two processes (compute-apps rows of the capture, a second
             pid beside the first) at 1950-1965 MHz for 32 s with clock-event
             reason 0x4 (SW power cap),
             32 s at 1650-1700 MHz with 0x4, then the idle_end rows.  The
             first 52 s are compute_bound (the 1-2 % loss noted, not a state),
             the 32 s that lost 15 % are throttled, and the finding says so.
  bursty     dmon rows: 10 minutes of 2 s bursts (compute rows) and 2 s waits
             (idle_end rows, the bursts' memory held) between compute:
             input_bound, never held_idle, >= 95 % of its seconds, one
             input_starved finding.
  long       55 minutes of clean phases with the bursty phase among them: at
             least 95 % of all seconds right, and of the bursty phase's.
  busy       the capture itself with the h200-vs-cloud profile: the headline,
             u_obs and the verdict use the useful share (time in compute,
             memory-bound and throttled states, recounted from segments[]),
             not mean utilization, which is shown under its own name; the
             verdict says the window's saving comes from the per-job charge.
  header     a hand-written header over noheader,nounits query rows
             (timestamp,index,name,gpu_utilization[%],memory_used[MiB],
             temperature[°C]): all three read; an extra column that maps to
             nothing is named; a file whose utilization cannot be read says
             busy unknown and draws no verdict.
"""
import json
import re
import os
import subprocess
import sys
import tempfile
from datetime import datetime, timezone

BIN, CAP = sys.argv[1], sys.argv[2]
ONLY = set(sys.argv[3:])
T0 = datetime(2026, 12, 1, 8, 0, 0, tzinfo=timezone.utc).timestamp()
EXPECT = {
    "idle_start": "held_idle", "compute": "compute_bound",
    "dataloader_bound": "input_bound", "launch_bound": "launch_bound",
    "two_streams": "input_bound", "memory_bound": "memory_bound",
    "leak": "held_idle", "idle_end": "held_idle",
}
fails = []


def check(ok, what):
    print(("ok    " if ok else "FAIL  ") + what)
    if not ok:
        fails.append(what)


def phases():
    starts, out = {}, {}
    for line in open(os.path.join(CAP, "app_log.jsonl")):
        o = json.loads(line)
        if o.get("event") == "phase_start":
            starts[o["phase"]] = o["ts"]
        elif o.get("event") == "phase_end":
            out[o["phase"]] = (starts[o["phase"]], o["ts"])
    return out


PH = phases()


def settled(t, phase):
    """inside the phase, 3 s after its start (the readings' lag) and 1 s before its end"""
    a, b = PH[phase]
    return a + 3 <= t <= b - 1


def dmon_rows():
    """(unix time, fields after date and time) of every dmon data row"""
    rows = []
    for line in open(os.path.join(CAP, "dmon_pucvmet_DT.log")):
        if line.startswith("#") or not line.strip():
            continue
        f = line.split()
        t = datetime.strptime(f[0] + f[1], "%Y%m%d%H:%M:%S").replace(tzinfo=timezone.utc).timestamp()
        rows.append((t, f[2:]))
    return rows


DMON_HEAD = ("#Date        Time         gpu    pwr  gtemp  mtemp     sm    mem    enc    dec    jpg    ofa"
             "   mclk   pclk  pviol  tviol     fb   bar1   ccpm  sbecc  dbecc    pci  rxpci  txpci \n"
             "#YYYYMMDD    HH:MM:SS     Idx      W      C      C      %      %      %      %      %      %"
             "    MHz    MHz      %   bool     MB     MB     MB   errs   errs   errs   MB/s   MB/s \n")
D_SM, D_FB = 4, 14      # positions in the fields after date and time (gpu=0, pwr=1, ...)


def dmon_line(t, f):
    d = datetime.fromtimestamp(t, timezone.utc)
    return " %s    %s %s \n" % (d.strftime("%Y%m%d"), d.strftime("%H:%M:%S"), " ".join("%6s" % x for x in f))


def pool(rows, phase):
    p = [f for t, f in rows if settled(t, phase)]
    assert p, phase
    return p


def report(files):
    r = subprocess.run([BIN, "report", "--json"] + files, capture_output=True, text=True)
    if r.returncode not in (0, 1):
        check(False, "gputally report exited %d: %s" % (r.returncode, r.stderr.strip()[:300]))
        return None
    return json.loads(r.stdout)


def ts(s):
    return datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()


def per_second(rep, gpu=0):
    """the state covering most of each whole second"""
    cover = {}
    for s in rep["segments"]:
        if s["gpu"] != gpu:
            continue
        a, b = ts(s["start"]), ts(s["end"])
        k = int(a)
        while k < b:
            o = min(b, k + 1) - max(a, k)
            if o > 0:
                c = cover.setdefault(k, {})
                c[s["state"]] = c.get(s["state"], 0) + o
            k += 1
    return {k: max(c, key=c.get) for k, c in cover.items()}


# ---- dmon: bursty starvation, alone and in a 55-minute run ---------------------------

def bursty_rows(rows, n_s, start_t):
    """n_s seconds of 2 s bursts (compute rows in order) and 2 s waits (idle_end rows, the bursts' memory)"""
    comp, wait = pool(rows, "compute"), pool(rows, "idle_end")
    out, ci, wi, fb = [], 0, 0, None
    for k in range(n_s):
        if (k // 2) % 2 == 0:
            f = list(comp[ci % len(comp)])
            ci += 1
            fb = f[D_FB]
        else:
            f = list(wait[wi % len(wait)])
            wi += 1
            f[D_FB] = fb
            f[D_FB + 1] = str(int(fb) + 1)
        out.append((start_t + k, f))
    return out


def write_dmon(path, rows):
    with open(path, "w") as o:
        o.write(DMON_HEAD)
        for t, f in rows:
            o.write(dmon_line(t, f))


def score(rep, plan):
    """plan: [(t0, t1, expected state)]; right seconds per plan entry"""
    st = per_second(rep)
    res = []
    for a, b, want in plan:
        n = ok = 0
        for k in range(int(a), int(b)):
            n += 1
            ok += st.get(k) == want
        res.append((n, ok))
    return res


def case_bursty(tmp, rows):
    path = os.path.join(tmp, "bursty.log")
    n = 600
    comp = pool(rows, "compute")
    lead = [(T0 + k, comp[k]) for k in range(10)]
    body = bursty_rows(rows, n, T0 + 10)
    tail = [(T0 + 10 + n + k, comp[k]) for k in range(30)]
    write_dmon(path, lead + body + tail)
    rep = report([path])
    if rep is None:
        return
    (n_all, ok), = score(rep, [(T0 + 10 + 3, T0 + 10 + n, "input_bound")])
    st = per_second(rep)
    held = sum(1 for k in range(int(T0) + 13, int(T0) + 10 + n) if st.get(k) == "held_idle")
    check(ok >= 0.95 * n_all, "bursty: %d of %d seconds input_bound (%.1f %%)" % (ok, n_all, 100.0 * ok / n_all))
    check(held == 0, "bursty: no wait held_idle (%d seconds)" % held)
    kinds = [f["kind"] for f in rep["findings"] if ts(f["end"]) > T0 + 10 and ts(f["start"]) < T0 + 10 + n]
    check("input_starved" in kinds, "bursty: an input_starved finding")
    check("held_idle" not in kinds, "bursty: no held_idle finding (%s)" % ", ".join(sorted(set(kinds))))
    starved = [f for f in rep["findings"] if f["kind"] == "input_starved"]
    check(len(starved) == 1 and starved[0]["value"] >= 590,
          "bursty: one input_starved stretch of the whole phase (%s s)" % [f["value"] for f in starved])


LONG_PLAN = [("idle_start", 180), ("compute", 600), ("bursty", 600), ("launch_bound", 300),
             ("compute", 480), ("memory_bound", 300), ("dataloader_bound", 360), ("idle_end", 480)]


def case_long(tmp, rows):
    path = os.path.join(tmp, "long.log")
    out, plan, t = [], [], T0
    for phase, n in LONG_PLAN:
        if phase == "bursty":
            out += bursty_rows(rows, n, t)
            want = "input_bound"
        else:
            p = pool(rows, phase)
            out += [(t + k, p[k % len(p)]) for k in range(n)]
            want = EXPECT[phase]
        plan.append((t, t + n, want))
        t += n
    write_dmon(path, out)
    rep = report([path])
    if rep is None:
        return
    res = score(rep, plan)
    n_all = sum(n for n, _ in res)
    ok_all = sum(ok for _, ok in res)
    for (phase, _), (n, ok) in zip(LONG_PLAN, res):
        print("      long: %-17s %4d of %4d right" % (phase, ok, n))
    check(t - T0 == 55 * 60, "long: 55 minutes")
    check(rep.get("segments_dropped", 0) == 0, "long: every segment kept")
    check(ok_all >= 0.95 * n_all, "long: %d of %d seconds right (%.1f %%)" % (ok_all, n_all, 100.0 * ok_all / n_all))
    n_b, ok_b = res[2]
    check(ok_b >= 0.95 * n_b, "long: bursty phase %d of %d right" % (ok_b, n_b))


# ---- query-gpu: throttling at full clocks and real throttling -------------------------

def query_rows():
    lines = open(os.path.join(CAP, "query_gpu_units_500ms.csv")).read().splitlines()
    head = [c.strip() for c in lines[0].split(",")]
    rows = []
    for line in lines[1:]:
        f = [c.strip() for c in line.split(",")]
        t = datetime.strptime(f[0], "%Y/%m/%d %H:%M:%S.%f").replace(tzinfo=timezone.utc).timestamp()
        rows.append((t, f))
    return head, rows


def qpool(rows, phase):
    return [list(f) for t, f in rows if settled(t, phase)]


def qstamp(t):
    return datetime.fromtimestamp(t, timezone.utc).strftime("%Y/%m/%d %H:%M:%S.%f")[:-3]


def case_throttle(tmp):
    head, rows = query_rows()
    c = {name: i for i, name in enumerate(head)}
    sm, reason, cap = c["clocks.current.sm [MHz]"], c["clocks_event_reasons.active"], \
        c["clocks_event_reasons.sw_power_cap"]
    gr = c["clocks.current.graphics [MHz]"]
    comp, idle = qpool(rows, "compute"), qpool(rows, "idle_end")
    out, t, k = [], T0, 0

    def emit(f):
        nonlocal t
        f[0] = qstamp(t)
        out.append(", ".join(f))
        t += 0.5

    for i in range(40):                 # 20 s as captured
        emit(list(comp[k % len(comp)]))
        k += 1
    for i in range(64):                 # 32 s at 1950-1965 MHz under a power cap
        f = list(comp[k % len(comp)])
        k += 1
        f[sm] = f[gr] = "%d MHz" % (1950 + (i * 7) % 16)
        f[reason], f[cap] = "0x0000000000000004", "Active"
        emit(f)
    for i in range(64):                 # 32 s at 1650-1700 MHz under a power cap
        f = list(comp[k % len(comp)])
        k += 1
        f[sm] = f[gr] = "%d MHz" % (1650 + (i * 13) % 51)
        f[reason], f[cap] = "0x0000000000000004", "Active"
        emit(f)
    for i in range(20):
        emit(list(idle[i % len(idle)]))
    path = os.path.join(tmp, "throttle.csv")
    with open(path, "w") as o:
        o.write(", ".join(head) + "\n" + "\n".join(out) + "\n")
    # two processes share the GPU from the start of the capped stretch: the
    # capture's own compute-apps row, replayed once a second, and a second pid
    apps = open(os.path.join(CAP, "query_apps.csv")).read().splitlines()
    arow = [c.strip() for c in apps[200].split(",")]
    apath = os.path.join(tmp, "throttle_apps.csv")
    with open(apath, "w") as o:
        o.write(apps[0] + "\n")
        for k in range(20, 84):
            for pid in (arow[2], str(int(arow[2]) + 1)):
                o.write(", ".join([qstamp(T0 + k)] + [arow[1], pid] + arow[3:]) + "\n")
    rep = report([path, apath])
    if rep is None:
        return
    st = per_second(rep)
    full = [st.get(k) for k in range(int(T0) + 1, int(T0) + 52)]
    real = [st.get(k) for k in range(int(T0) + 53, int(T0) + 84)]
    check(full.count("throttled") == 0,
          "throttle: 0 of the 51 s at full clocks throttled (%d)" % full.count("throttled"))
    check(full.count("compute_bound") >= 49, "throttle: full clocks compute_bound (%d of 51 s)"
          % full.count("compute_bound"))
    check(real.count("throttled") >= 30, "throttle: the 15 %% drop throttled (%d of 31 s)" % real.count("throttled"))
    th = [f for f in rep["findings"] if f["kind"] == "throttling"]
    check(len(th) == 1 and 30 <= th[0]["value"] <= 34, "throttle: one throttling finding of about 32 s (%s)"
          % [f["value"] for f in th])
    if th:
        m = th[0]["message"] + " " + th[0]["evidence"]
        check("1980 MHz" in m and "lost" in m and "% of the clock" in m,
              "throttle: the finding says the clock lost: " + th[0]["message"])
    nt = [f for f in rep["findings"] if f["kind"] == "clock_events_noted"]
    check(len(nt) == 1 and 30 <= nt[0]["value"] <= 34 and "SW power cap" in nt[0]["message"],
          "throttle: the reasons at full clocks noted once (%s)" % [f["message"] for f in nt])
    check(len(rep.get("processes", [])) == 2, "throttle: two processes seen (%d)" % len(rep.get("processes", [])))


# ---- a hand-written header over noheader,nounits rows ---------------------------------

def case_header(tmp):
    head, rows = query_rows()
    c = {name: i for i, name in enumerate(head)}
    cols = [c["index"], c["name"], c["utilization.gpu [%]"], c["memory.used [MiB]"], c["temperature.gpu"]]
    body, util = [], []
    for t, f in rows:
        vals = [f[i].split(" ")[0] if i != c["name"] else f[i] for i in cols]
        body.append([f[0]] + vals)
        util.append(float(vals[2]))
    want_busy = sum(util) / len(util)

    def write(name, header, extra=None):
        p = os.path.join(tmp, name)
        with open(p, "w", encoding="utf-8") as o:
            o.write(header + "\n")
            for b in body:
                o.write(", ".join(b + ([extra] if extra else [])) + "\n")
        return p

    p1 = write("hand.csv", "timestamp,index,name,gpu_utilization[%],memory_used[MiB],temperature[°C]")
    rep = report([p1])
    if rep is not None:
        g = rep["gpus"][0]
        busy = g.get("util_mean_pct")
        check(busy is not None and abs(busy - want_busy) < 0.5,
              "header: utilization read (mean %s %%, rows say %.1f %%)" % (busy, want_busy))
        check((g.get("temp_max_c") or 0) > 30, "header: temperature read (max %s C)" % g.get("temp_max_c"))
        check(not rep["inputs"][0].get("columns_not_understood"), "header: every column understood")
    p2 = write("extra.csv", "timestamp,index,name,gpu_utilization[%],memory_used[MiB],temperature[°C],gpu_fancy[%]",
               "7")
    rep = report([p2])
    if rep is not None:
        nu = rep["inputs"][0].get("columns_not_understood")
        check(nu == ["gpu_fancy[%]"], "header: the unknown column named in JSON (%s)" % nu)
        r = subprocess.run([BIN, "report", p2], capture_output=True, text=True)
        check("columns not understood: gpu_fancy[%]" in r.stdout, "header: ... and in text")
    p3 = write("noutil.csv", "timestamp,index,name,gpu_load_guess[%],memory_used[MiB],temperature[°C]")
    r = subprocess.run([BIN, "report", p3], capture_output=True, text=True)
    check(re.search(r"busy:\s+unknown", r.stdout) is not None and "0.0 %" not in r.stdout.split("Inputs")[0],
          "header: no utilization: busy unknown, never 0.0 %")
    check("columns not understood: gpu_load_guess[%]" in r.stdout, "header: the unread column named")
    head_txt = r.stdout.split("Inputs")[0]
    verdict = [ln for ln in head_txt.splitlines() if ln.startswith("Verdict")]
    check(bool(verdict) and "no verdict" in verdict[0].lower(), "header: no verdict drawn (%s)" % verdict)


# ---- one definition of busy, on the capture itself ------------------------------------

USEFUL = ("compute_bound", "memory_bound", "throttled")


def case_busy():
    r = subprocess.run([BIN, "report", "--json", "--profile", "h200-vs-cloud", CAP], capture_output=True, text=True)
    rep = json.loads(r.stdout)
    use = cov = 0.0
    for sg in rep["segments"]:
        d = ts(sg["end"]) - ts(sg["start"])
        if sg["state"] != "gap":
            cov += d
            use += d if sg["state"] in USEFUL else 0
    w = rep["cost"]["window"]
    g = rep["gpus"][0]
    check(abs(w["u_obs"] - use / cov) < 1e-4, "busy: u_obs %.4f is the useful share %.4f (%.1f of %.1f s)"
          % (w["u_obs"], use / cov, use, cov))
    mu = w.get("mean_utilization_pct", float("nan"))
    check(abs(mu - g["util_mean_pct"]) < 0.01 and abs(w["u_obs"] * 100 - g["util_mean_pct"]) > 3,
          "busy: mean utilization %.2f %% kept apart" % mu)
    rate, eff = rep["cost"]["params"]["cloud_hourly_rate"]["value"], rep["cost"]["params"]["cloud_efficiency"]["value"]
    hours = rate * w["busy_h"] / eff
    check(abs(w.get("cloud_hours_cost", -1) - hours) < 1e-5 and
          abs(w.get("cloud_job_charges", -1) - (w["cloud_cost"] - hours)) < 1e-5,
          "busy: cloud %.4f = hours %.4f + per-job %.4f" % (w["cloud_cost"], hours, w["cloud_cost"] - hours))
    txt = subprocess.run([BIN, "report", "--profile", "h200-vs-cloud", CAP], capture_output=True, text=True).stdout
    head = txt.split("Inputs")[0]
    pct = "%.1f %%" % (100 * use / cov)
    check(("How busy:  " + pct) in head and ("busy " + pct) in head, "busy: headline and verdict say " + pct)
    check("mean utilization %.1f %%" % g["util_mean_pct"] in head, "busy: mean utilization named as such")
    check("per-job charge" in head and "per-hour comparison" in head, "busy: the verdict says which comparison drives it")


def main():
    rows = dmon_rows()
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["TZ"] = "UTC"
        os.environ["LC_ALL"] = "C"
        for name, fn in [("throttle", lambda: case_throttle(tmp)), ("bursty", lambda: case_bursty(tmp, rows)),
                         ("long", lambda: case_long(tmp, rows)), ("busy", case_busy),
                         ("header", lambda: case_header(tmp))]:
            if not ONLY or name in ONLY:
                fn()
    if fails:
        print("cases: %d failed" % len(fails))
        sys.exit(1)
    print("cases: ok")


main()
