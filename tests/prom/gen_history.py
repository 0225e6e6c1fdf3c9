# Seven days of GPU metrics for 3 nodes x 8 GPUs, each node in another
# exporter's names, written twice: as OpenMetrics for
# `promtool tsdb create-blocks-from openmetrics`, and as gputally-csv files
# with the same readings, for `report` to read from files.  Also writes the
# expectations computed here (expect.json): busy seconds per GPU and the
# seconds each pod held a GPU, and for how long at 0 %.
#   gen_history.py OUTDIR END_UNIX [DAYS] [INTERVAL_S]
# node a: gputally's recorder, restarted on day 2 (its energy counter starts again)
# node b: dcgm-exporter with Kubernetes labels, profiling activity besides
#         GPU_UTIL (which reads 20 points high: the profiling one must win),
#         energy in mJ reset on day 4, a 2-hour scrape outage on day 5, and
#         Xid 79 on GPU 3 on day 6
# node c: nvidia_gpu_exporter (ratios, bytes, uuid without "GPU-"; no energy counter)
import json, os, random, sys

out, end = sys.argv[1], int(sys.argv[2])
days = float(sys.argv[3]) if len(sys.argv) > 3 else 7
step = int(sys.argv[4]) if len(sys.argv) > 4 else 300
end -= end % step
n = int(days * 86400 / step)
t0 = end - (n - 1) * step
times = [t0 + k * step for k in range(n)]
NODES = ["gpu-node-a", "gpu-node-b", "gpu-node-c"]
NGPU = 8
TOTAL_MIB = 143771
restart_k = int(1.5 * 86400 / step)
reset_k = int(3.5 * 86400 / step)
outage = (int(4.5 * 86400 / step), int(4.5 * 86400 / step) + int(7200 / step))
xid_k = int(5.5 * 86400 / step)   # node b, GPU 3: Xid 79 for 5 samples


def uuid(node, g):
    return "GPU-%08d-0000-4000-8000-%012d" % (node + 1, g)


def workload(node, g):
    """Per sample: util %, memory MiB, pod (ns, pod) or None."""
    rnd = random.Random(node * 100 + g)
    util, mem, pods = [], [], []
    blk = int(3600 / step) or 1
    cur = None
    for k in range(n):
        if k % blk == 0:
            cur = rnd.choice([(0, 500), (0, 60000), (35, 60000), (90, 70000), (90, 70000)])
        util.append(cur[0])
        mem.append(cur[1])
        half_day = k * step // 43200
        r = random.Random(node * 1000 + g * 31 + half_day).random()
        pods.append(None if r < 0.3 else ("team-a", "train-%d-%d" % (g, half_day)) if r < 0.7
                    else ("team-b", "infer-%d" % (half_day % 3)))
    return util, mem, pods


def power(u, m):
    return 70.0 + 4.0 * u + (15.0 if m > 1000 else 0.0)


om = open(os.path.join(out, "history.om"), "w")
fams = {}   # family -> list of lines


def sample(fam, labels, v, t):
    lab = ",".join('%s="%s"' % kv for kv in labels.items())
    fams.setdefault(fam, []).append("%s{%s} %s %d" % (fam, lab, v, t))


expect = {"gpus": {}, "pods": {}, "start": t0, "end": end, "step": step}
for ni, node in enumerate(NODES):
    csv = open(os.path.join(out, "%s.csv" % node), "w")
    csv.write("# gputally-csv v1\n")
    csv.write("time,host,task,gpu,uuid,name,status,util_gpu_pct,util_mem_pct,mem_used_mib,mem_total_mib,"
              "mem_reserved_mib,power_w,energy_j,power_limit_w,temp_c,sm_clock_mhz,mem_clock_mhz,"
              "clock_event_reasons,pstate,pcie_gen,pcie_width,procs\n")
    rows = []
    for g in range(NGPU):
        util, mem, pods = workload(ni, g)
        u = uuid(ni, g)
        energy = 5e6 * (g + 1)   # J since driver load
        busy = 0.0
        prev = None
        for k, t in enumerate(times):
            if ni == 1 and outage[0] <= k < outage[1]:
                prev = None
                continue
            p = power(util[k], mem[k])
            if prev is not None:
                energy += p * step   # the counter grows with the power held since the last sample
            if ni == 0 and k == restart_k:
                energy = 0.0
            if ni == 1 and k == reset_k:
                energy = 0.0
            prev = k
            # busy: each reading holds one step (the last one too), as a report counts it
            busy += util[k] / 100.0 * step
            base = {"instance": "10.0.0.%d:9400" % (ni + 1), "job": "gpu"}
            if ni == 0:
                lab = dict(base, gpu=str(g), uuid=u, name="NVIDIA H200", host=node)
                sample("gputally_gpu_utilization_percent", lab, util[k], t)
                sample("gputally_gpu_power_watts", lab, p, t)
                sample("gputally_gpu_energy_joules_total", lab, "%.3f" % energy, t)
                sample("gputally_gpu_memory_used_bytes", lab, mem[k] * 1048576, t)
                sample("gputally_gpu_memory_total_bytes", lab, TOTAL_MIB * 1048576, t)
            elif ni == 1:
                lab = dict(base, gpu=str(g), UUID=u, modelName="NVIDIA H200", Hostname=node)
                if pods[k]:
                    lab.update(namespace=pods[k][0], pod=pods[k][1], container="main")
                sample("DCGM_FI_PROF_GR_ENGINE_ACTIVE", lab, "%.4f" % (util[k] / 100.0), t)
                sample("DCGM_FI_DEV_GPU_UTIL", lab, min(100, util[k] + 20), t)
                sample("DCGM_FI_DEV_POWER_USAGE", lab, p, t)
                sample("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", lab, "%d" % round(energy * 1000), t)
                sample("DCGM_FI_DEV_FB_USED", lab, mem[k], t)
                sample("DCGM_FI_DEV_FB_FREE", lab, TOTAL_MIB - mem[k], t)
                sample("DCGM_FI_DEV_XID_ERRORS", lab, 79 if g == 3 and xid_k <= k < xid_k + 5 else 0, t)
                if pods[k]:
                    key = "%s/%s" % pods[k]
                    e = expect["pods"].setdefault(key, {"held_s": 0.0, "zero_util_s": 0.0})
                    e["held_s"] += step
                    if util[k] == 0:
                        e["zero_util_s"] += step
            else:
                lab = dict(base, uuid=u[4:], name="NVIDIA H200")
                sample("nvidia_smi_utilization_gpu_ratio", lab, "%.2f" % (util[k] / 100.0), t)
                sample("nvidia_smi_power_draw_watts", lab, p, t)
                sample("nvidia_smi_memory_used_bytes", lab, mem[k] * 1048576, t)
                sample("nvidia_smi_memory_total_bytes", lab, TOTAL_MIB * 1048576, t)
            stamp = "%sZ" % __import__("datetime").datetime.utcfromtimestamp(t).strftime("%Y-%m-%dT%H:%M:%S.000000")
            e_cell = "%.3f" % energy if ni != 2 else ""
            if ni == 1 and g == 3 and k == xid_k:
                rows.append((t, g, "%s,%s,t,%d,%s,NVIDIA H200,xid:79%s" % (stamp, node, g, u, "," * 16)))
            rows.append((t, g, "%s,%s,t,%d,%s,NVIDIA H200,ok,%d,,%d,%d,,%.3f,%s,,,,,,,,," %
                         (stamp, node, g, u, util[k], mem[k], TOTAL_MIB, p, e_cell)))
        expect["gpus"][u] = {"node": node, "busy_s": busy, "xids": 1 if ni == 1 and g == 3 else 0}
    rows.sort()
    csv.write("\n".join(r[2] for r in rows) + "\n")
    csv.close()
for fam, lines in fams.items():
    om.write("# TYPE %s gauge\n" % fam)
    om.write("\n".join(lines) + "\n")
om.write("# EOF\n")
om.close()
json.dump(expect, open(os.path.join(out, "expect.json"), "w"), indent=1)
print(t0, end)
