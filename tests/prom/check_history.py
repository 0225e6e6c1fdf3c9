# The 7-day history test: report --prometheus over the backfilled blocks
# against report over the same readings as gputally-csv files, and both
# against what gen_history.py computed from the workload it wrote.
#   check_history.py PROM.json FILES.json EXPECT.json
import json, sys

p, f, e = (json.load(open(x)) for x in sys.argv[1:4])
step = e["step"]
fails = 0


def check(name, cond):
    global fails
    print(("ok: " if cond else "FAIL: ") + name)
    fails += not cond


def near(a, b, rel, slack=0.0):
    return a is not None and b is not None and abs(a - b) <= rel * abs(b) + slack


check("24 GPUs from the server (%d) and from files (%d)" % (len(p["gpus"]), len(f["gpus"])),
      len(p["gpus"]) == 24 and len(f["gpus"]) == 24)
fg = {g["uuid"]: g for g in f["gpus"]}
worst = {"state": 0.0, "energy": 0.0, "busy": 0.0}
for g in p["gpus"]:
    h, x = fg.get(g["uuid"]), e["gpus"].get(g["uuid"])
    if not h or not x:
        check("GPU %s on both sides" % g["uuid"], False)
        continue
    for s, v in g["states"].items():
        d = abs(v["seconds"] - h["states"][s]["seconds"]) / h["covered_s"]
        worst["state"] = max(worst["state"], d)
    worst["energy"] = max(worst["energy"], abs(g["energy_j"] - h["energy_j"]) / h["energy_j"])
    worst["busy"] = max(worst["busy"], abs(g["busy_s"] - x["busy_s"]) / x["busy_s"])
    if x["node"] == "gpu-node-b":
        # from the last real sample: not 6900 s, the 5-minute lookback filling a step (issue 28)
        check("%s: the 2-hour outage is a gap (%.0f s)" % (g["uuid"], g["gaps_s"]), near(g["gaps_s"], 7200, 0, 1))
check("states equal within 1 %% of covered time (worst %.4f %%)" % (100 * worst["state"]), worst["state"] <= 0.01)
check("energy equal within 1 %% (worst %.4f %%)" % (100 * worst["energy"]), worst["energy"] <= 0.01)
check("busy seconds as written, profiling activity over GPU_UTIL (worst %.4f %%)" % (100 * worst["busy"]),
      worst["busy"] <= 0.01)
pc, fc = p["cost"]["window"]["local_cost"], f["cost"]["window"]["local_cost"]
check("window cost %.3f vs %.3f from files" % (pc, fc), near(pc, fc, 0.01))
nodes = sorted(n["node"] for n in p["fleet"]["nodes"])
check("nodes by Hostname, host, else instance: %s" % nodes, nodes == ["10.0.0.3:9400", "gpu-node-a", "gpu-node-b"])
srcs = {g["uuid"][:12]: g["energy_source"] for g in p["gpus"]}
check("energy from counters where the exporter has one: %s" % srcs,
      srcs.get("GPU-00000001") == "counter+power" and srcs.get("GPU-00000002") == "counter+power" and
      srcs.get("GPU-00000003") == "power")
pods = {x["pod"]: x for x in p["fleet"]["pods"]}
check("every pod (%d of %d)" % (len(pods), len(e["pods"])), set(pods) == set(e["pods"]))
bad = []
for name, x in e["pods"].items():
    got = pods.get(name)
    # 1 %, and the lookback step at a series' end that backfilled data (no staleness markers) keeps
    if not got or not near(got["covered_s"], x["held_s"], 0.01, 2 * step) or \
            not near(got["idle_s"] + got["held_idle_s"], x["zero_util_s"], 0.01, 2 * step):
        bad.append(name)
check("pods' GPU time and time at 0 %% as written (%s)" % bad[:3], not bad)
for ns in p["fleet"]["namespaces"]:
    want = sum(x["held_s"] for k, x in e["pods"].items() if k.startswith(ns["namespace"] + "/"))
    check("namespace %s: %.0f GPU-s vs %.0f" % (ns["namespace"], ns["covered_s"], want), near(ns["covered_s"], want, 0.01))
gnum = {g["gpu"]: g["uuid"] for g in p["gpus"]}
xp = [gnum[x["gpu"]] for x in p["findings"] if x["kind"] == "xid_error"]
fnum = {g["gpu"]: g["uuid"] for g in f["gpus"]}
xf = [fnum[x["gpu"]] for x in f["findings"] if x["kind"] == "xid_error"]
want = sorted(u for u, x in e["gpus"].items() if x["xids"])
check("the Xid on node b's GPU 3 is a finding, as from files (%s, %s)" % (xp, xf), sorted(xp) == want and sorted(xf) == want)
lost = [n["idle_cost"] for n in p["fleet"]["nodes"]]
check("nodes ranked by idle cost", lost == sorted(lost, reverse=True) and lost[0] > 0)
sys.exit(1 if fails else 0)
