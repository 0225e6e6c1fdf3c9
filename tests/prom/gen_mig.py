# A day of dcgm-exporter metrics for one node with two H200s, GPU 0 in MIG
# mode (three slices: 3g.71gb, 2g.35gb, 1g.18gb; a seventh of the GPU in no
# slice), GPU 1 whole, as OpenMetrics for promtool, and what the report must
# find, computed here from the workload written (expect_mig.json).
# dcgm-exporter's MIG series carry the GPU's UUID plus GPU_I_ID and
# GPU_I_PROFILE; the whole-GPU series (power, energy) carry neither, and
# DCGM_FI_DEV_GPU_UTIL reads 0 in MIG mode (NVML does not measure it there).
#   gen_mig.py OUTDIR END_UNIX [HOURS] [INTERVAL_S]
import json, os, random, sys

out, end = sys.argv[1], int(sys.argv[2])
hours = float(sys.argv[3]) if len(sys.argv) > 3 else 24
step = int(sys.argv[4]) if len(sys.argv) > 4 else 60
end -= end % step
n = int(hours * 3600 / step)
t0 = end - (n - 1) * step
NODE = "gpu-node-m"
UUID = ["GPU-0000000m-0000-4000-8000-%012d" % g for g in range(2)]
SLICES = [(1, "3g.71gb", 3, 71 * 1024), (5, "2g.35gb", 2, 35 * 1024), (13, "1g.18gb", 1, 18 * 1024)]
TOTAL_MIB = 143771
blk = int(3600 / step)

fams = {}


def sample(fam, labels, v, t):
    lab = ",".join('%s="%s"' % kv for kv in labels.items())
    fams.setdefault(fam, []).append("%s{%s} %s %d" % (fam, lab, v, t))


def blocks(seed, choices):
    rnd = random.Random(seed)
    cur, res = None, []
    for k in range(n):
        if k % blk == 0:
            cur = rnd.choice(choices)
        res.append(cur)
    return res


expect = {"step": step, "node": NODE, "gpu": UUID[0], "whole": UUID[1], "slices": {}, "parent_busy_s": 0.0}
base = {"instance": "10.0.0.9:9400", "job": "gpu", "modelName": "NVIDIA H200", "Hostname": NODE}
work = {gi: blocks(gi, [(0, 500), (0, 9000), (40, 9000), (100, 12000)]) for gi, _, _, _ in SLICES}
whole = blocks(99, [(0, 500), (70, 60000)])
pod_k = (int(n * 0.25), int(n * 0.75))   # GI 13 held by a pod for the middle half
energy = [1e6, 2e6]
parent_busy = [0.0] * n
for gi, prof, g, mib in SLICES:
    e = {"profile": prof, "share": g / 7.0, "busy_s": 0.0, "zero_s": 0.0, "covered_s": n * step,
         "pod_held_s": 0.0, "pod_zero_s": 0.0}
    for k in range(n):
        t = t0 + k * step
        u, m = work[gi][k]
        lab = dict(base, gpu="0", UUID=UUID[0], GPU_I_ID=str(gi), GPU_I_PROFILE=prof)
        if gi == 13:
            held = pod_k[0] <= k < pod_k[1]
            lab.update(namespace="team-m" if held else "", pod="mig-pod" if held else "", container="main" if held else "")
            if held:
                e["pod_held_s"] += step
                e["pod_zero_s"] += step if u == 0 else 0
        sample("DCGM_FI_PROF_GR_ENGINE_ACTIVE", lab, "%.4f" % (u / 100.0), t)
        sample("DCGM_FI_DEV_FB_USED", lab, m, t)
        sample("DCGM_FI_DEV_FB_FREE", lab, mib - m, t)
        e["busy_s"] += u / 100.0 * step
        e["zero_s"] += step if u == 0 else 0
        parent_busy[k] += g / 7.0 * u / 100.0
    expect["slices"]["%s/gi%d" % (UUID[0], gi)] = e
expect["parent_busy_s"] = sum(parent_busy) * step
expect["whole_busy_s"] = sum(u / 100.0 * step for u, _ in whole)
for k in range(n):
    t = t0 + k * step
    for g in range(2):
        lab = dict(base, gpu=str(g), UUID=UUID[g])
        p = 90.0 + 500.0 * (parent_busy[k] if g == 0 else whole[k][0] / 100.0)
        energy[g] += p * step
        sample("DCGM_FI_DEV_POWER_USAGE", lab, "%.2f" % p, t)
        sample("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", lab, "%d" % round(energy[g] * 1000), t)
        if g == 0:
            sample("DCGM_FI_DEV_GPU_UTIL", lab, 0, t)   # not measured in MIG mode
        else:
            sample("DCGM_FI_PROF_GR_ENGINE_ACTIVE", lab, "%.4f" % (whole[k][0] / 100.0), t)
            sample("DCGM_FI_DEV_FB_USED", lab, whole[k][1], t)
            sample("DCGM_FI_DEV_FB_FREE", lab, TOTAL_MIB - whole[k][1], t)
with open(os.path.join(out, "mig.om"), "w") as om:
    for fam, lines in fams.items():
        om.write("# TYPE %s gauge\n" % fam)
        om.write("\n".join(lines) + "\n")
    om.write("# EOF\n")
json.dump(expect, open(os.path.join(out, "expect_mig.json"), "w"), indent=1)
print(t0, end)
