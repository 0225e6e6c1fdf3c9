# The fleet tables of `report --prometheus --html` and `--markdown` against
# the same report's --json: every fleet figure of the page is a data-key
# (tests/html/check.py compares each one with the JSON); here, that the page
# has every node in the JSON's order, the total, and every namespace and
# pod, and that the total is the nodes summed and prices the window
# (recounted here from the JSON's rows, not from the report's total).
#   check_fleet_html.py PAGE.html REPORT.json REPORT.md
import json, re, sys

page, doc, md = open(sys.argv[1]).read(), json.load(open(sys.argv[2])), open(sys.argv[3]).read()
f = doc["fleet"]
fails = 0


def check(name, cond):
    global fails
    print(("ok: " if cond else "FAIL: ") + name)
    fails += not cond


def near(a, b, rel=1e-6, slack=1e-3):
    return abs(a - b) <= rel * abs(b) + slack


m = re.search(r'<section id="fleet">(.*?)</section>', page, re.S)
check("the page has a fleet section", m is not None)
sec = m.group(1) if m else ""
rows = re.findall(r'<tr><td class="n">(\d+)</td><td><code>([^<]*)</code></td>(.*?)</tr>', sec, re.S)
names = [r[1] for r in rows]
want = [n["node"] for n in f["nodes"]] + [n["namespace"] for n in f["namespaces"]] + \
    [p["pod"] for p in f["pods"][:200]]
check("nodes, namespaces and pods in the JSON's order (%d rows, %d in the JSON)" % (len(names), len(want)),
      names == want)
for i, n in enumerate(f["nodes"]):
    check("node %s: rank %d shows its own cost" % (n["node"], i + 1),
          'data-key="fleet.nodes.%d.idle_cost"' % i in rows[i][2] if i < len(rows) else False)
check("the total row", re.search(r"<th>total</th>.*data-key=\"fleet.total.cost\"", sec, re.S) is not None)
t = f["total"]
for k in ("gpus", "covered_s", "gaps_s", "busy_s", "energy_j", "idle_s", "held_idle_s", "cost", "idle_cost"):
    s = sum(n[k] for n in f["nodes"])
    check("total %s %.3f is the nodes summed (%.3f)" % (k, t[k], s), near(t[k], s))
check("the nodes' cost %.3f is the window's local cost %.3f" % (t["cost"], doc["cost"]["window"]["local_cost"]),
      near(t["cost"], doc["cost"]["window"]["local_cost"], 1e-6, 0.01))
check("%d GPUs in the total, %d in gpus[]" % (t["gpus"], len(doc["gpus"])), t["gpus"] == len(doc["gpus"]))
check("nodes ranked by idle cost", [n["idle_cost"] for n in f["nodes"]] ==
      sorted((n["idle_cost"] for n in f["nodes"]), reverse=True))
# the Markdown: the same rows, the total in GPU-hours to 2 decimals
check("markdown total row", ("| **total** | %d | %.2f |" % (t["gpus"], t["covered_s"] / 3600)) in md)
for n in f["namespaces"]:
    check("markdown namespace %s" % n["namespace"], ("| %s | %.2f |" % (n["namespace"].replace("-", "-"),
                                                                     n["covered_s"] / 3600)) in md)
check("markdown lists the pods", all(("| %s | " % re.sub(r"([\\`*_{}\[\]()<>#+!|~&])", r"\\\1", p["pod"])) in md
                                     for p in f["pods"][:200]))
sys.exit(1 if fails else 0)
