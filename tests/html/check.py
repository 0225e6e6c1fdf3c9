#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Check a `gputally report --html` page against the same report's --json.

usage: check.py PAGE.html REPORT.json [--dom] [--max-bytes N] [--charts N] [--text-url URL]

  * no network reference: no http(s)://, no src=, no href other than #...,
    no @import, no url( other than url(#...), no <link>, no <script src>
    (--text-url URL: that one address may be text, never an attribute, as
    report --prometheus names its server);
  * every number marked data-key equals the JSON's value at that path (the
    JSON's own text, parsed), and the number shown is that value x data-scale
    rounded to data-dec decimals;
  * every chart is an <svg class="chart"> with a <title> and a <desc>;
  * --dom: the file is Chromium's --dump-dom of a test copy whose script
    wrote each chart's rendered size into data-rendered-w/-h: all non-zero.
"""
import json
import re
import sys
from html.parser import HTMLParser


def fail(msg):
    print("check.py: FAIL: " + msg)
    sys.exit(1)


class Page(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.values = []      # [key, json text, scale, dec, shown text]
        self.cur = None
        self.charts = []      # attrs of svg.chart
        self.chart_has = None
        self.in_title = False
        self.attrs_seen = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.attrs_seen.append((tag, a))
        if tag == "span" and "data-key" in a:
            self.cur = [a["data-key"], a["data-value"], float(a["data-scale"]), int(a["data-dec"]), ""]
        if tag == "svg" and "chart" in (a.get("class") or "").split():
            self.chart_has = {"attrs": a, "title": "", "desc": False}
            self.charts.append(self.chart_has)
        if tag == "title" and self.chart_has is not None and not self.chart_has["title"]:
            self.in_title = True
        if tag == "desc" and self.chart_has is not None:
            self.chart_has["desc"] = True

    def handle_endtag(self, tag):
        if tag == "span" and self.cur is not None:
            self.values.append(self.cur)
            self.cur = None
        if tag == "title":
            self.in_title = False
        if tag == "svg":
            self.chart_has = None

    def handle_data(self, data):
        if self.cur is not None:
            self.cur[4] += data
        if self.in_title and self.chart_has is not None:
            self.chart_has["title"] += data


def lookup(doc, key):
    v = doc
    for part in key.split("."):
        if isinstance(v, list):
            v = v[int(part)]
        else:
            v = v[part]
    return v


def main():
    args = sys.argv[1:]
    dom = "--dom" in args
    max_bytes = None
    want_charts = None
    if "--max-bytes" in args:
        max_bytes = int(args[args.index("--max-bytes") + 1])
    if "--charts" in args:
        want_charts = int(args[args.index("--charts") + 1])
    text_url = None
    if "--text-url" in args:
        text_url = args[args.index("--text-url") + 1]
        args.remove(text_url)
    page_path, json_path = [a for a in args if not a.startswith("--") and not a.isdigit()][:2]
    raw = open(page_path, "rb").read()
    text = raw.decode("utf-8")
    if text_url:
        # the one address allowed, as text (attributes are checked below)
        if "<code>" + text_url not in text:
            fail("--text-url %s: the page never names it" % text_url)
        text = text.replace(text_url, "")
    doc = json.load(open(json_path))

    if max_bytes is not None and len(raw) > max_bytes:
        fail("%s is %d bytes, over %d" % (page_path, len(raw), max_bytes))
    # no network reference of any kind
    for pat, what in ((r"https?://", "an http(s) address"), (r"@import", "a CSS @import"),
                      (r"url\(\s*(?!#)", "a url() that is not a local #fragment"),
                      (r"<link\b", "a <link> element"), (r"<script\b[^>]*\bsrc\s*=", "a <script src>"),
                      (r"<(img|iframe|object|embed|audio|video|source)\b", "an element that loads something")):
        if not dom or what != "a <script src>":
            m = re.search(pat, text, re.I)
            if m:
                fail("%s has %s at byte %d: %r" % (page_path, what, m.start(), text[max(0, m.start() - 40):m.start() + 60]))
    if not dom and re.search(r"<script\b", text, re.I):
        fail("%s has a script: the page must read the same without one" % page_path)
    p = Page()
    p.feed(text)
    for tag, a in p.attrs_seen:
        if text_url and any(text_url in (v or "") for v in a.values()):
            fail("<%s> names %s in an attribute: it may only be text" % (tag, text_url))
        for k in ("src", "srcset", "action", "formaction", "poster", "data"):
            if k in a:
                fail("<%s %s=%r>: nothing may be loaded" % (tag, k, a[k]))
        if "href" in a and not a["href"].startswith("#"):
            fail("<%s href=%r>: only #links" % (tag, a["href"]))
    if 'default-src \'none\'' not in text:
        fail("no Content-Security-Policy default-src 'none'")

    # every number against the JSON
    if not p.values:
        fail("no numbers marked with data-key")
    for key, jtext, scale, dec, shown in p.values:
        try:
            want = lookup(doc, key)
        except (KeyError, IndexError, ValueError):
            fail("data-key %s is not in the JSON" % key)
        if jtext == "null":
            if want is not None:
                fail("%s: the page says unknown, the JSON %r" % (key, want))
            if shown.strip() != "n/a":
                fail("%s: unknown shown as %r" % (key, shown))
            continue
        if want is None or float(jtext) != float(want):
            fail("%s: page %s, JSON %r" % (key, jtext, want))
        expect = "%.*f" % (dec, float(want) * scale)
        if expect in ("-0", "-0.0", "-0.00", "-0.000", "-0.0000"):
            expect = expect[1:]
        if shown.strip() != expect:
            fail("%s: shown %r, JSON %r x %g to %d decimals is %r" % (key, shown, want, scale, dec, expect))
    # the summary numbers must be among them
    keys = {v[0] for v in p.values}
    for k in () if "start" not in doc else ("cost.window.covered_h", "cost.window.busy_h", "cost.window.u_obs", "cost.window.energy_j"):
        if k not in keys:
            fail("summary figure %s missing" % k)

    # the charts
    for i, c in enumerate(p.charts):
        if not c["title"].strip() or not c["desc"]:
            fail("chart %d has no <title> or no <desc>" % i)
        if dom:
            w = float(c["attrs"].get("data-rendered-w", "0"))
            h = float(c["attrs"].get("data-rendered-h", "0"))
            if w <= 0 or h <= 0:
                fail("chart %d (%s) rendered %gx%g" % (i, c["title"], w, h))
    if want_charts is not None and len(p.charts) < want_charts:
        fail("%d charts, want at least %d" % (len(p.charts), want_charts))
    print("check.py: %s: %d bytes, %d numbers equal to the JSON's, %d charts%s" %
          (page_path, len(raw), len(p.values), len(p.charts), ", all rendered" if dom else ""))


main()
