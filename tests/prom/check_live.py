# Check report --prometheus --json of the live test against the scripted
# workload (tests/prom/run.sh writes work.txt: node gpu util% power_W) and
# the test's own clock: when the recorders ran, when node 3's died and came
# back.  Nothing here is taken from gputally's figures except what is checked.
#   check_live.py REPORT.json WORK.txt T_START T_KILL T_BACK T_END
import datetime, json, sys

rep = json.load(open(sys.argv[1]))
work = {}
for line in open(sys.argv[2]):
    n, g, u, p = line.split()
    work[(int(n), int(g))] = (float(u), float(p))
t_start, t_kill, t_back, t_end = (float(x) for x in sys.argv[3:7])
fails = 0


def check(name, cond):
    global fails
    print(("ok: " if cond else "FAIL: ") + name)
    fails += not cond


def ts(s):
    return datetime.datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()


def near(got, want, rel, slack=0.0):
    return abs(got - want) <= rel * abs(want) + slack


fleet = rep.get("fleet", {})
nodes = sorted(n["node"] for n in fleet.get("nodes", []))
check("3 nodes %s" % nodes, nodes == ["node1", "node2", "node3"])
check("6 GPUs (%d)" % len(rep["gpus"]), len(rep["gpus"]) == 6)
check("2 GPUs per node", all(n["gpus"] == 2 for n in fleet.get("nodes", [])))
by_node = {}
for g in rep["gpus"]:
    node, idx = int(g["uuid"][-6:-2]), int(g["uuid"][-2:])
    util, power = work[(node, idx)]
    # seconds the recorder ran: the expectation, from the test's clock
    alive = t_end - t_start if node != 3 else (t_kill - t_start) + (t_end - t_back)
    want_busy = util / 100 * alive
    want_e = power * alive
    tag = "node%d GPU %d" % (node, idx)
    print("info: %s starts %.2f s after the recorder, ends %.2f s before the end; energy from %s" %
          (tag, ts(g["start"]) - t_start, t_end - ts(g["end"]), g.get("energy_source")))
    # 5 %, plus the second a scrape may start late at each start of a recorder
    starts = 2 if node == 3 else 1
    check("%s: covered %.1f s vs %.1f s alive" % (tag, g["covered_s"], alive), near(g["covered_s"], alive, 0.05, starts))
    check("%s: busy %.2f s vs %.2f s scripted" % (tag, g["busy_s"], want_busy),
          near(g["busy_s"], want_busy, 0.05, util / 100 * starts))
    check("%s: energy %.1f J vs %.1f J scripted" % (tag, g["energy_j"], want_e), near(g["energy_j"], want_e, 0.05, power * starts))
    check("%s: busy share %.4f vs %.2f" % (tag, g["busy_s"] / g["covered_s"], util / 100),
          near(g["busy_s"] / g["covered_s"], util / 100, 0.01, 0.005))
    check("%s: mean power %.1f W vs %.0f W" % (tag, g["energy_j"] / g["covered_s"], power),
          near(g["energy_j"] / g["covered_s"], power, 0.05))
    by_node.setdefault(node, []).append(g)
    if node == 3:
        down = t_back - t_kill
        check("%s: gaps %.1f s vs %.1f s down" % (tag, g["gaps_s"], down), near(g["gaps_s"], down, 0.0, 2.5))
        gaps = [s for s in rep["segments"] if s["gpu"] == g["gpu"] and s["state"] == "gap"]
        check("%s: one gap segment" % tag, len(gaps) == 1)
        if gaps:
            check("%s: the gap starts when it died (%.1f s off)" % (tag, ts(gaps[0]["start"]) - t_kill),
                  abs(ts(gaps[0]["start"]) - t_kill) <= 2.0)
    else:
        check("%s: no gap (%.1f s)" % (tag, g["gaps_s"]), g["gaps_s"] == 0)
for n in fleet.get("nodes", []):
    node = int(n["node"][4:])
    gs = by_node.get(node, [])
    check("%s: totals are its GPUs' sums" % n["node"],
          near(n["busy_s"], sum(g["busy_s"] for g in gs), 1e-4, 0.01) and
          near(n["energy_j"], sum(g["energy_j"] for g in gs), 1e-4, 0.01))
lost = [n["idle_cost"] for n in fleet.get("nodes", [])]
check("nodes ranked by money lost to idle %s" % lost, lost == sorted(lost, reverse=True))
# node 1 has the one GPU at 0 %: it loses the most, and its loss is that
# GPU's idle and held-idle seconds at the waterfall's price per second
w = {s["state"]: s for s in rep["cost"]["waterfall"]}
n1 = [n for n in fleet.get("nodes", []) if n["node"] == "node1"]
check("node1 ranks first", bool(fleet.get("nodes")) and fleet["nodes"][0]["node"] == "node1" and lost[0] > 0)
if n1:
    n1 = n1[0]
    want = sum(n1["states"][s] * w[s]["cost"] / w[s]["seconds"] for s in ("idle", "held_idle") if w[s]["seconds"] > 0)
    check("node1 idle cost %.6f = its idle seconds x the waterfall's rate %.6f" % (n1["idle_cost"], want),
          near(n1["idle_cost"], want, 1e-6, 1e-6))
    idle0 = [g for g in rep["gpus"] if g["uuid"].endswith("000101")][0]
    check("node1's idle seconds are its idle GPU's covered time",
          near(n1["states"]["idle"] + n1["states"]["held_idle"], idle0["covered_s"], 0.02))
sys.exit(1 if fails else 0)
