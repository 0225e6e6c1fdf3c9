# The MIG test: report --prometheus over gen_mig.py's day against what
# gen_mig.py computed from the workload it wrote, and the slices' cost
# recounted here from the window's cost: a slice second costs its share
# (g/7) of a GPU second, and a GPU second costs the window's local cost over
# the covered GPU-seconds (cost-model.md: the waterfall prices by state time).
#   check_mig.py REPORT.json EXPECT_MIG.json
import json, sys

j, e = (json.load(open(x)) for x in sys.argv[1:3])
step = e["step"]
fails = 0


def check(name, cond):
    global fails
    print(("ok: " if cond else "FAIL: ") + name)
    fails += not cond


def near(a, b, rel, slack=0.0):
    return a is not None and b is not None and abs(a - b) <= rel * abs(b) + slack


f = j["fleet"]
check("two GPUs, the slices not among them (%s)" % [g["uuid"] for g in j["gpus"]],
      sorted(g["uuid"] for g in j["gpus"]) == sorted([e["gpu"], e["whole"]]))
check("one node of 2 GPUs", [(n["node"], n["gpus"]) for n in f["nodes"]] == [(e["node"], 2)])
mig = {m["gpu"]: m for m in f["mig"]}
check("one GPU in MIG mode: %s" % list(mig), list(mig) == [e["gpu"]])
m = mig.get(e["gpu"], {"slices": [], "sliced_share": 0, "cost": 0, "unsliced_cost": 0, "busy_s": 0})
got = {s["slice"]: s for s in m["slices"]}
check("its three slices, by GPU_I_ID: %s" % [s["gi"] for s in m["slices"]],
      [s["slice"] for s in m["slices"]] == sorted(e["slices"], key=lambda k: int(k.rsplit("gi", 1)[1])))
covered = sum(g["covered_s"] for g in j["gpus"])
rate = j["cost"]["window"]["local_cost"] / covered
for key, x in e["slices"].items():
    s = got.get(key)
    if not s:
        check("slice %s in the report" % key, False)
        continue
    check("%s: profile %s, share %.6f" % (key, s["profile"], s["share"]),
          s["profile"] == x["profile"] and near(s["share"], x["share"], 1e-6))
    check("%s: busy %.0f s as written (%.0f)" % (key, s["busy_s"], x["busy_s"]), near(s["busy_s"], x["busy_s"], 0.01, step))
    check("%s: covered %.0f s (%.0f)" % (key, s["covered_s"], x["covered_s"]), near(s["covered_s"], x["covered_s"], 0.01, step))
    check("%s: idle + held idle %.0f s = its time at 0 %% (%.0f)" % (key, s["idle_s"] + s["held_idle_s"], x["zero_s"]),
          near(s["idle_s"] + s["held_idle_s"], x["zero_s"], 0.01, step))
    want = x["share"] * s["covered_s"] * rate
    check("%s: cost %.4f = share x its seconds x the GPU-second's cost (%.4f)" % (key, s["cost"], want),
          near(s["cost"], want, 1e-5, 1e-4))
    want = x["share"] * (s["idle_s"] + s["held_idle_s"]) * rate
    check("%s: lost to idle %.4f (%.4f)" % (key, s["idle_cost"], want), near(s["idle_cost"], want, 1e-5, 1e-4))
gpu = {g["uuid"]: g for g in j["gpus"]}.get(e["gpu"], {"busy_s": 0, "covered_s": 0})
check("the GPU's busy %.0f s: its slices' weighted by share, GPU_UTIL's 0 ignored (%.0f)" %
      (gpu["busy_s"], e["parent_busy_s"]), near(gpu["busy_s"], e["parent_busy_s"], 0.01, step))
check("the whole GPU's busy as written", near({g["uuid"]: g for g in j["gpus"]}[e["whole"]]["busy_s"], e["whole_busy_s"], 0.01, step))
check("sliced share 6/7 (%.6f)" % m["sliced_share"], near(m["sliced_share"], 6 / 7.0, 1e-6))
check("GPU cost %.4f = its seconds x rate (%.4f)" % (m["cost"], gpu["covered_s"] * rate), near(m["cost"], gpu["covered_s"] * rate, 1e-5, 1e-4))
check("unsliced %.4f = the GPU's cost less its slices'" % m["unsliced_cost"],
      near(m["unsliced_cost"], m["cost"] - sum(s["cost"] for s in m["slices"]), 1e-6, 1e-4))
pods = {p["pod"]: p for p in f["pods"]}
p = pods.get("team-m/mig-pod")
x = e["slices"]["%s/gi13" % e["gpu"]]
check("the pod on GI 13 counts 1/7 of its %.0f s held (%.0f)" % (x["pod_held_s"], p["covered_s"] if p else -1),
      p is not None and near(p["covered_s"], x["pod_held_s"] / 7, 0.01, 2 * step))
check("the pod's idle time, 1/7 of its time at 0 %",
      p is not None and near(p["idle_s"] + p["held_idle_s"], x["pod_zero_s"] / 7, 0.01, 2 * step))
sys.exit(1 if fails else 0)
