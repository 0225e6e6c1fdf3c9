#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The same report through every writer: the same numbers (issue 30).

  check.py BIN NAME [report arguments...]

Runs `BIN report` with the arguments four times (--json, text, --markdown,
--html FILE) and checks that each figure a writer shows is the JSON's value,
rounded to the decimals the writer printed:

  * busy (useful) share, busy and covered GPU-hours, mean utilization,
    energy and its source, owned and rented cost (text, Markdown, HTML);
  * the verdict, word for word (text, Markdown, HTML);
  * per GPU: utilization mean and p95, energy (text, Markdown, HTML);
  * the findings: their count, the tally by kind (text), their order
    (text: the ones in full, then one line per severity and kind in the
    order they first come; Markdown and HTML: every row), and the first
    screen's three (text);
  * per process: its owned cost in the Processes tables (Markdown, HTML,
    processes[].local_cost) is its who-spent-it row's, and the processes
    with "no process seen" add up to the window's owned cost.

Prints "writers: NAME: ok (N figures)" or each disagreement, and exits 1.
"""
import html
import html.parser
import json
import re
import subprocess
import sys
import tempfile

bad = []
nchecked = 0


def fail(msg):
    bad.append(msg)


def run(bin_, args):
    p = subprocess.run([bin_, "report"] + args, capture_output=True, text=True)
    if p.returncode not in (0, 1):
        fail("report %s: exit %d: %s" % (" ".join(args), p.returncode, p.stderr.strip()[:200]))
    return p.stdout


def same(where, shown, value):
    """shown (a number as a writer printed it) is value rounded to its decimals."""
    global nchecked
    nchecked += 1
    s = shown.replace(",", "")
    if value is None:
        if s not in ("-", "n/a", "unknown", ""):
            fail("%s: shows %r, the JSON has no value" % (where, shown))
        return
    try:
        x = float(s)
    except ValueError:
        fail("%s: %r is not a number (JSON %r)" % (where, shown, value))
        return
    dec = len(s.split(".")[1]) if "." in s else 0
    if abs(x - value) > 0.5 * 10 ** -dec + 1e-9 * max(1, abs(value)):
        fail("%s: shows %s, the JSON says %r" % (where, shown, value))


def same_text(where, shown, want):
    global nchecked
    nchecked += 1
    if shown != want:
        fail("%s: %r\n    the JSON says %r" % (where, shown, want))


def grab(where, pattern, text, flags=0):
    m = re.search(pattern, text, flags)
    if not m:
        fail("%s: no line matches %r" % (where, pattern))
    return m


def md_plain(s):
    return re.sub(r"\\(.)", r"\1", s)


class Html(html.parser.HTMLParser):
    """data-key figures, the verdict cell and the findings table's rows."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.keys = {}
        self.verdict = None
        self.rows = []
        self._key = None
        self._in_verdict = False
        self._row = None
        self._cell = None
        self._in_findings = False
        self.items = []     # every <li>'s text
        self._li = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "li":
            self._li = ""
        if tag == "span" and "data-key" in a:
            self._key = [a["data-key"], ""]
        if tag == "td" and a.get("class") == "verdict":
            self._in_verdict = True
            self.verdict = ""
        if tag == "section" and a.get("id") == "findings":
            self._in_findings = True
        if self._in_findings and tag == "tr":
            self._row = []
        if self._row is not None and tag == "td":
            self._cell = ""

    def handle_endtag(self, tag):
        if tag == "li" and self._li is not None:
            self.items.append(self._li)
            self._li = None
        if tag == "span" and self._key:
            self.keys.setdefault(self._key[0], self._key[1])
            self._key = None
        if tag == "td" and self._in_verdict:
            self._in_verdict = False
        if tag == "td" and self._cell is not None:
            self._row.append(self._cell)
            self._cell = None
        if tag == "tr" and self._row is not None:
            if len(self._row) >= 3:
                self.rows.append(self._row)
            self._row = None
        if tag == "section":
            self._in_findings = False

    def handle_data(self, data):
        if self._li is not None:
            self._li += data
        if self._key:
            self._key[1] += data
        if self._in_verdict:
            self.verdict += data
        if self._cell is not None:
            self._cell += data


USEFUL_STATES = ("compute_bound", "memory_bound", "throttled")


def dur_s(s):
    """seconds of a duration as time_human_dur prints it (1d02h03m, 1h02m03s, 2m03s, 4s)"""
    m = re.fullmatch(r"(-?)(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?", s)
    if not m or s in ("", "-"):
        return None
    v = sum(int(x or 0) * k for x, k in zip(m.groups()[1:], (86400, 3600, 60, 1)))
    return -v if m.group(1) else v


def near(where, a, b, tol):
    """two figures that should be one, each rounded as printed"""
    global nchecked
    nchecked += 1
    if a is None or b is None or abs(a - b) > tol + 1e-9:
        fail("%s: %r against %r (more than %g apart)" % (where, a, b, tol))


def one_busy(text, md, h, w, verdict, gpus, j_cost):
    if w.get("u_obs") is None:
        return
    u = 100 * w["u_obs"]
    busy_s = 3600 * w["busy_h"]
    m = re.search(r"^How busy:  ([\d.]+) % of covered time in useful work", text, re.M)
    head = float(m.group(1)) if m else None
    near("headline useful share against u_obs", head, u, 0.05)
    m = re.search(r"\bbusy ([\d.]+) %", verdict)
    if m:
        near("verdict's busy share against the headline's", float(m.group(1)), head, 0.1)
    # the waterfall: each useful row's share, and the traces' line
    wsec = text.split("\nWhere the GPU time went", 1)[1].split("\n\n", 1)[0] if "\nWhere the GPU time went" in text else ""
    tot, n = 0.0, 0
    for m in re.finditer(r"^  (\w+) .*?\s([-+]?[\d.]+)%\s+\S+(?: \S+)?$", wsec, re.M):
        if m.group(1) in USEFUL_STATES or m.group(1) == "trace_kernels":
            tot += float(m.group(2))
            n += 1
    if n:
        near("text waterfall's useful rows against the headline", tot, head, 0.05 * (n + 1))
    # over joined traces the useful states are not the busy time: the
    # waterfall says by how much (a line each in text and Markdown, JSON's
    # cost.waterfall_useful), and its useful total is the headline's
    traced = bool(w.get("busy_sources"))
    for where, sec in (("text", wsec), ("markdown", md)):
        has = re.search(r"^(?:\| |  )trace_kernels ", sec, re.M) is not None
        if has != traced:
            fail("%s waterfall: %s a trace_kernels line, and busy_sources is %s" %
                 (where, "has" if has else "has no", "there" if traced else "absent"))
    wu = j_cost.get("waterfall_useful")
    if wu is None:
        fail("json: no cost.waterfall_useful")
    else:
        states_s = sum(x["seconds"] for x in j_cost["waterfall"] if x["useful"])
        near("json waterfall_useful.states_s against the useful states", wu["states_s"], states_s, 0.003)
        near("json waterfall_useful: states - replaced + kernels against its seconds",
             wu["states_s"] - wu["trace_replaced_s"] + wu["trace_kernels_s"], wu["seconds"], 0.001)
        near("json waterfall_useful.seconds against busy_h", wu["seconds"], busy_s, 0.01)
    tot, n = 0.0, 0
    for st, share in re.findall(r"^\| (\w+) \| [^|]+ \| [-+\d.]+ \| ([-+]?[\d.]+) % \| [^|]+ \|$", md, re.M):
        if st in USEFUL_STATES or st == "trace_kernels":
            tot += float(share)
            n += 1
    if n:
        near("markdown waterfall's useful rows against the headline", tot, head, 0.05 * (n + 1))
    # the GPU tables: the useful column sums to the headline's busy GPU-hours
    gsec = text.split("\nGPUs\n", 1)[1].split("\n\n", 1)[0] if "\nGPUs\n" in text else ""
    lines = gsec.splitlines()
    if not lines or lines[0].split()[3:4] != ["useful"]:
        fail("text: the GPU table's fourth column is not \"useful\": %r" % (lines[:1],))
    vals = []
    for line in lines[1:]:
        cells = line[25:].split()
        if line[2:24].strip() and len(cells) == 12:
            vals.append(dur_s(cells[2]))
    if None in vals or len(vals) != len(gpus):
        fail("text: GPU table's useful column %r" % vals)
    else:
        near("text GPU table's useful column summed against busy_h", sum(vals), busy_s, 0.5 * len(vals) + 0.5)
    for i, g in enumerate(gpus):
        near("JSON gpus[%d].useful_s, summed" % i, sum(x["useful_s"] for x in gpus), busy_s, 0.01)
        break
    hdr = re.search(r"^\| GPU \| covered h \| gaps h \| useful h \|", md, re.M)
    if not hdr:
        fail("markdown: the GPU table's fourth column is not \"useful h\"")
    else:
        mgs = md.split("\n## GPUs\n", 1)[1].split("\n## ", 1)[0] if "\n## GPUs\n" in md else ""
        mdv = re.findall(r"^\| GPU [^|]* \| [^|]+ \| [^|]+ \| ([\d.]+) \|", mgs, re.M)
        near("markdown GPU table's useful h summed against busy_h", sum(float(x) for x in mdv), w["busy_h"],
             0.0005 * len(mdv) + 0.0005)
    hv = [h.keys.get("gpus.%d.useful_s" % i) for i in range(len(gpus))]
    if None in hv:
        fail("html: the GPU table has no figure marked gpus.N.useful_s")
    else:
        near("html GPU table's useful summed against busy_h", sum(float(x.replace(",", "")) for x in hv), w["busy_h"],
             0.0005 * len(hv) + 0.0005)
    if "cost.waterfall_useful.seconds" in h.keys:
        same("html waterfall's useful in all", h.keys["cost.waterfall_useful.seconds"], w["busy_h"])


def main():
    bin_, name, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    j = json.loads(run(bin_, args + ["--json"]))
    text = run(bin_, args)
    md = run(bin_, args + ["--markdown"])
    with tempfile.NamedTemporaryFile(suffix=".html") as f:
        run(bin_, args + ["--html", f.name, "--json"])
        page = open(f.name, encoding="utf-8").read()
    h = Html()
    h.feed(page)

    w = j["cost"]["window"]
    cur = j["cost"].get("currency") or ""
    verdict = j["cost"]["verdict"]
    # text and HTML say before the verdict that it rests on assumed prices
    # (Markdown in its label); the JSON says so in cost.assumed
    pre = "(assumed prices) " if (j["cost"].get("assumed") or {}).get("known") else ""
    gpus = j["gpus"]
    finds = j["findings"]
    nfind = len(finds) + j["findings_dropped"]

    # ---- the summary ----
    m = grab("text How busy", r"^How busy:  ([\d.]+) % of covered time in useful work \(([\d.]+) busy GPU-hours "
             r"of ([\d.]+)\); mean utilization ([\d.]+) %", text, re.M)
    if m:
        same("text busy share %", m.group(1), 100 * w["u_obs"])
        same("text busy GPU-hours", m.group(2), w["busy_h"])
        same("text covered GPU-hours", m.group(3), w["covered_h"])
        same("text mean utilization", m.group(4), w["mean_utilization_pct"])
    m = grab("text Energy", r"^Energy:    ([\d.]+) kWh \(([^)]*)\)", text, re.M)
    if m:
        same("text energy kWh", m.group(1), w["energy_j"] / 3.6e6)
        same_text("text energy source", m.group(2), w["energy_source"])
    m = re.search(r"^Cost:      ([\d.,]+) \S+ to own for this window, ([\d.,]+) \S+ to rent", text, re.M)
    if m:
        same("text owned cost", m.group(1), w["local_cost"])
        same("text rented cost", m.group(2), w["cloud_cost"])
    m = grab("text Verdict", r"^Verdict:   (.*)$", text, re.M)
    if m:
        same_text("text verdict", m.group(1), pre + verdict)

    m = grab("markdown Useful share", r"^\| Useful share \| ([\d.]+) % busy \(([\d.]+) busy GPU-hours\); "
             r"mean utilization ([\d.]+) % \|", md, re.M)
    if m:
        same("markdown busy share %", m.group(1), 100 * w["u_obs"])
        same("markdown busy GPU-hours", m.group(2), w["busy_h"])
        same("markdown mean utilization", m.group(3), w["mean_utilization_pct"])
    m = grab("markdown Covered", r"^\| Covered \| ([\d.]+) GPU-hours", md, re.M)
    if m:
        same("markdown covered GPU-hours", m.group(1), w["covered_h"])
    m = grab("markdown Energy", r"^\| Energy \| ([\d.]+) kWh \(([^)]*)\)", md, re.M)
    if m:
        same("markdown energy kWh", m.group(1), w["energy_j"] / 3.6e6)
        same_text("markdown energy source", m.group(2), w["energy_source"])
    m = re.search(r"^\| Cost \| ([\d.,]+) \S+ to own, ([\d.,]+) \S+ to rent", md, re.M)
    if m:
        same("markdown owned cost", m.group(1), w["local_cost"])
        same("markdown rented cost", m.group(2), w["cloud_cost"])
    m = grab("markdown Verdict", r"^\*\*Verdict%s:\*\* (.*)$" % (" \\(assumed prices\\)" if pre else ""), md, re.M)
    if m:
        same_text("markdown verdict", md_plain(m.group(1)).rstrip(), verdict)

    for key, value in (("cost.window.u_obs", 100 * w["u_obs"]), ("cost.window.busy_h", w["busy_h"]),
                       ("cost.window.covered_h", w["covered_h"]), ("cost.window.energy_j", w["energy_j"] / 3.6e6),
                       ("cost.window.mean_utilization_pct", w["mean_utilization_pct"]),
                       ("cost.window.local_cost", w["local_cost"]), ("cost.window.cloud_cost", w["cloud_cost"])):
        if key in h.keys:
            same("html " + key, h.keys[key], value)
        elif key not in ("cost.window.local_cost", "cost.window.cloud_cost") or cur:
            fail("html: no figure marked %s" % key)
    same_text("html verdict", (h.verdict or "").strip(), pre + verdict)

    # ---- where the time went: each state's share and cost ----
    wf = {x["state"]: x for x in j["cost"]["waterfall"]}
    tot = sum(x["seconds"] for x in wf.values())
    wsec = text.split("\nWhere the GPU time went", 1)[1].split("\n\n", 1)[0] if "\nWhere the GPU time went" in text else ""
    nrow = 0
    for m in re.finditer(r"^  (\w+) .*?\s(\S+)%\s+(\S+)(?: \S+)?$", wsec, re.M):
        st = m.group(1)
        if st not in wf:
            continue
        nrow += 1
        same("text %s share %%" % st, m.group(2), 100 * wf[st]["seconds"] / tot if tot > 0 else None)
        if m.group(3) != "-":
            same("text %s cost" % st, m.group(3), wf[st]["cost"])
    mrows = re.findall(r"^\| (\w+) \| [^|]+ \| [\d.]+ \| ([\d.]+) % \| ([^|]+) \|$", md, re.M)
    for st, share, cost in mrows:
        if st in wf:
            nrow += 1
            same("markdown %s share %%" % st, share, 100 * wf[st]["seconds"] / tot)
            c = cost.split()[0]
            if c != "-":
                same("markdown %s cost" % st, c, wf[st]["cost"])
    shown = sum(1 for x in wf.values() if x["seconds"] > 0)
    if nrow < 2 * shown:
        fail("text and Markdown show %d rows of the states' shares, the JSON has %d states with time (each twice)"
             % (nrow, shown))

    # ---- one busy figure (issue 30) ----
    # The headline's useful share, the verdict's busy share, the waterfall's
    # useful rows (the useful states, and the joined traces' net kernel time
    # where there is one) and the GPU tables' useful column all say the same,
    # within what each printed figure's rounding allows.
    one_busy(text, md, h, w, verdict, gpus, j["cost"])

    # ---- per GPU ----
    gsec = text.split("\nGPUs\n", 1)[1].split("\n\n", 1)[0] if "\nGPUs\n" in text else ""
    rows = []
    for line in gsec.splitlines()[1:]:
        cells = line[25:].split()
        if line[2:24].strip() and len(cells) == 12:	# a row: the label is %-22.22s
            rows.append([line[2:24].strip()] + cells[3:8])
    if len(rows) != len(gpus):
        fail("text: %d rows in the GPU table, the JSON has %d GPUs" % (len(rows), len(gpus)))
    for i, (label, mean, p50, p95, kj, src) in enumerate(rows[:len(gpus)]):
        g = gpus[i]
        same("text GPU %d util mean" % i, mean, g["util_mean_pct"])
        same("text GPU %d util p50" % i, p50, g["util_p50_pct"])
        same("text GPU %d util p95" % i, p95, g["util_p95_pct"])
        same("text GPU %d energy kJ" % i, kj, None if g["energy_j"] is None else g["energy_j"] / 1e3)
        same_text("text GPU %d energy source" % i, src, g["energy_source"])
    mdrows = re.findall(r"^\| (GPU [^|]*) \| ([^|]+) \| ([^|]+) \| ([^|]+) \| ([^|]+) \| ([^|]+) \| [^|]+ \| [^|]+ \| [^|]+ \| [^|]+ \|$",
                        md, re.M)
    if len(mdrows) != len(gpus):
        fail("markdown: %d rows in the GPU table, the JSON has %d GPUs" % (len(mdrows), len(gpus)))
    for i, r in enumerate(mdrows[:len(gpus)]):
        same("markdown GPU %d util mean" % i, r[4], gpus[i]["util_mean_pct"])
        same("markdown GPU %d energy kWh" % i, r[5], None if gpus[i]["energy_j"] is None else gpus[i]["energy_j"] / 3.6e6)
    for i, g in enumerate(gpus):
        for key, value in (("util_mean_pct", g["util_mean_pct"]), ("util_p95_pct", g["util_p95_pct"]),
                           ("energy_j", None if g["energy_j"] is None else g["energy_j"] / 3.6e6)):
            k = "gpus.%d.%s" % (i, key)
            if k not in h.keys:
                fail("html: no figure marked %s" % k)
            else:
                same("html " + k, h.keys[k], value)

    # ---- findings: count, tally, order ----
    def gpu_name(gi):
        if gi is None or gi < 0:
            return "host"
        ix = gpus[gi].get("index")
        return "GPU %s" % (ix if ix is not None and ix >= 0 else "?")

    want = [(f["severity"], f["kind"], gpu_name(f["gpu"])) for f in finds]
    m = grab("text Findings", r"^Findings \((\d+), ", text, re.M)
    if m:
        same("text findings count", m.group(1), nfind)
    tally = []
    for f in finds:
        for t in tally:
            if t[1] == f["kind"]:
                t[0] += 1
                break
        else:
            tally.append([1, f["kind"]])
    if len(finds) > 1:
        m = grab("text by kind", r"^  by kind: (.*)$", text, re.M)
        if m:
            same_text("text tally by kind", m.group(1), ", ".join("%d %s" % (n, k) for n, k in tally))
    sec = text.split("\nFindings (", 1)[1].split("\n\n", 1)[0] if "\nFindings (" in text else ""
    full = re.findall(r"^  \[(\w+)\] (\S+)  (GPU \S+|host)  ", sec, re.M)
    grouped = re.findall(r"^  \[(\w+)\] (\S+)  ?(?:GPU|host)[^:]*: ", sec, re.M)
    global nchecked
    nchecked += 1
    if [tuple(x) for x in full] != want[:len(full)]:
        fail("text: the findings in full are not the JSON's first %d:\n    %s\n    %s" % (len(full), full, want[:len(full)]))
    rest, seen = [], set()
    for sev, kind, _ in want[len(full):]:
        if (sev, kind) not in seen:
            seen.add((sev, kind))
            rest.append((sev, kind))
    nchecked += 1
    if [tuple(x) for x in grouped] != rest:
        fail("text: the lines per severity and kind %s are not the JSON's kinds after the first %d: %s"
             % (grouped, len(full), rest))
    # the grouped lines are the JSON's finding_groups: GPUs, findings, stretches, time and cost
    fg = j.get("finding_groups", [])
    if rest and not fg:
        fail("json: %d groups of findings in the text, no finding_groups" % len(rest))
    if fg and j["findings_in_full"] != len(full):
        fail("json: findings_in_full %d, the text gives %d in full" % (j["findings_in_full"], len(full)))
    glines = [re.match(r"  \[(\w+)\] (\S+)  ?((?:GPU|host).*?)(?: and (\d+) more GPUs)?: (.*)$", x).groups()
              for x in sec.split("\n") if re.match(r"  \[\w+\] \S+  ?(?:GPU|host)", x)
              and not re.match(r"  \[\w+\] \S+  (?:GPU \S+|host)  ", x)]
    for i, g in enumerate(fg):
        if i >= len(glines):
            fail("text: no line for finding_groups[%d] (%s %s)" % (i, g["severity"], g["kind"]))
            break
        sev, kind, names, more, tail = glines[i]
        same_text("text finding group %d" % i, (sev, kind), (g["severity"], g["kind"]))
        same_text("text finding group %d GPUs" % i, names,
                  ", ".join(gpu_name(x if x is not None else -1) for x in g["gpus"]))
        same("text finding group %d more GPUs" % i, more or "0", g["gpus_count"] - len(g["gpus"]))
        m = re.match(r"(\d+) (?:stretches|gaps), (\S+) in all(?:, cost ([\d.,]+)(?: \S+)?)?$", tail)
        if g["stretches"]:
            if not m:
                fail("text finding group %d: %r is not its stretches" % (i, tail))
                continue
            same("text finding group %d stretches" % i, m.group(1), g["stretches"])
            near("text finding group %d time" % i, dur_s(m.group(2)), g["total_s"], 1)
            if g["cost"] is not None:
                same("text finding group %d cost" % i, m.group(3) or "", g["cost"])
        elif g["findings"] > 1:
            same("text finding group %d findings" % i, (re.match(r"(\d+) findings$", tail) or [0, ""])[1],
                 g["findings"])
        else:
            same_text("text finding group %d message" % i, tail, finds[g["first"]]["message"])
    top = re.findall(r"^(?:Findings:  |           )\[(\w+)\] (.*)$", text, re.M)
    same_text("text first screen's findings", [t[1] for t in top], [f["message"] for f in finds[:3]])

    mdf = re.findall(r"^\| (critical|warning|info) \| ([^|]+) \| ([^|]*) \|", md, re.M)
    nchecked += 1
    mdf = [(s, md_plain(k), g.strip()) for s, k, g in mdf]
    mwant = [(f["severity"], f["kind"], "-" if f["gpu"] is None or f["gpu"] < 0 else str(gpus[f["gpu"]].get("index")))
             for f in finds]
    if [(a, b) for a, b, _ in mdf] != [(a, b) for a, b, _ in mwant[:len(mdf)]] or not mdf and finds:
        fail("markdown: the findings' order is not the JSON's:\n    %s\n    %s" % (mdf[:8], mwant[:8]))
    hf = [(r[0].strip(), r[1].strip()) for r in h.rows if r[0].strip() in ("critical", "warning", "info")]
    nchecked += 1
    if hf != [(f["severity"], f["kind"]) for f in finds[:len(hf)]] or not hf and finds:
        fail("html: the findings' order is not the JSON's:\n    %s\n    %s" % (hf[:8], [(f["severity"], f["kind"]) for f in finds[:8]]))

    # the HTML's largest findings: a value in its unit, or none where the
    # message says it already; never the JSON's raw number ("(value 3775115.207)")
    for v in re.findall(r"\(value (.*?)\)</span></li>", page):
        nchecked += 1
        plain = re.sub(r"<[^>]*>", "", v)
        if re.fullmatch(r"[-\d.,]+", plain.strip()):
            fail("html: a finding's value shown raw, with no unit: (value %s)" % plain)

    # ---- per process: one owned cost, its who-spent-it row (issue 31) ----
    procs = j.get("processes") or []
    att = j.get("attribution")
    if procs and att:
        def att_row(p):
            if p["kind"] == "task":
                rows = [r for r in att["by_task"] if r["key"] == p["name"] and not r["none"]]
            else:
                tail = " pid %d%s" % (p["pid"], " " + p["name"] if p["name"] else "")
                rows = [r for r in att["by_process"] if r["key"].startswith("GPU ") and r["key"].endswith(tail)]
            return rows[0] if len(rows) == 1 else None
        mdp = md.split("\n## Processes\n", 1)[1].split("\n## ", 1)[0] if "\n## Processes\n" in md else ""
        mrows = re.findall(r"^\| \S+ \| (\d+|task) \| ([^|]+) \| [^|]+ \| [^|]+ \| [^|]+ \| ([^|]+) \| [^|]+ \|$",
                           mdp, re.M)
        psum = 0
        for i, p in enumerate(procs):
            r = att_row(p)
            if r is None:
                fail("processes[%d] (%s %s): no single who-spent-it row" % (i, p["kind"], p["pid"]))
                continue
            same("json processes[%d].local_cost against its who-spent-it row" % i, "%.6f" % p["local_cost"], r["cost"])
            if p["kind"] == "process":
                psum += p["local_cost"]
            if i < len(mrows):
                same("markdown Processes row %d owned cost" % i, mrows[i][2].split()[0], r["cost"])
            k = "processes.%d.local_cost" % i
            if k in h.keys:
                same("html " + k, h.keys[k], r["cost"])
            else:
                fail("html: no figure marked %s" % k)
        if len(mrows) != len(procs):
            fail("markdown: %d Processes rows, the JSON has %d processes" % (len(mrows), len(procs)))
        none = [r for r in att["by_process"] if r["none"]]
        # each figure is rounded to 6 decimals in the JSON
        if abs(psum + none[0]["cost"] - w["local_cost"]) > 1e-6 * (len(procs) + 2):
            fail("json: the processes' local_cost and no process seen add up to %.6f, local_cost is %.6f"
                 % (psum + none[0]["cost"], w["local_cost"]))

    # ---- the skipped lines, by file and reason: the JSON's groups, in its order, in every writer ----
    groups = j.get("skipped_groups", [])
    if len(j["skipped"]) and not groups:
        fail("json: %d skipped lines kept, no skipped_groups" % len(j["skipped"]))
    if sum(g["lines"] for g in groups) != len(j["skipped"]):
        fail("json: the skipped_groups hold %d lines, skipped has %d"
             % (sum(g["lines"] for g in groups), len(j["skipped"])))
    tlines = re.findall(r"^  (\S+:\d+:\d+: .*)$", text.split("\nSkipped lines (", 1)[1], re.M) \
        if "\nSkipped lines (" in text else []
    mlines = [md_plain(x[0] + ": " + x[1]) for x in re.findall(r"^- `([^`]+)`: (.*)$", md, re.M)]
    hlines = [x for x in h.items if re.match(r"\S+:\d+:\d+: ", x)]
    for i, g in enumerate(groups[:20]):
        want = "%s:%d:%d: %s" % (g["path"], g["line"], g["col"], g["reason"])
        if g["lines"] > 1:
            want += " (%d lines, the first at line %d)" % (g["lines"], g["line"])
        for where, got in (("text", tlines), ("markdown", mlines), ("html", hlines)):
            same_text("%s skipped group %d" % (where, i), got[i] if i < len(got) else None, want)
    for where, got in (("text", tlines), ("markdown", mlines), ("html", hlines)):
        if len(got) != min(len(groups), 20 if where != "html" else 50):
            fail("%s: %d skipped groups listed, the JSON has %d" % (where, len(got), len(groups)))

    if bad:
        for b in bad:
            print("writers: %s: FAIL: %s" % (name, b))
        return 1
    print("writers: %s: ok (%d figures the same in text, Markdown, HTML and JSON)" % (name, nchecked))
    return 0


if __name__ == "__main__":
    sys.exit(main())
