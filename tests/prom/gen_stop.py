# A source that stops (issue 28 case 4): the H200 capture's gpu_monitor.sh
# rows (examples/h200-training, 1 s apart) replayed as gputally's recorder
# series for two GPUs of one node, as OpenMetrics for `promtool tsdb
# create-blocks-from openmetrics` (backfilled data has no staleness
# markers, so Prometheus's 5-minute lookback fills any silence):
#   GPU 0: the recorder is killed after row KILL: no sample after it;
#   GPU 1: the whole capture, with a 100-second scrape outage in the middle.
# The window asked for ends TAIL seconds after the capture.  Writes
# OUTDIR/stop.om and OUTDIR/expect.json (where each GPU's data must end,
# its covered time, gap, energy and busy time), and prints the window's
# first and last second.
#   gen_stop.py OUTDIR END_UNIX
import json, os, sys

out, end = sys.argv[1], int(sys.argv[2])
root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
cap = os.path.join(root, "examples", "h200-training", "gpu_monitor_h200_capture_20261129.csv")
rows = []
for line in open(cap).read().splitlines()[1:]:
    f = [x.strip() for x in line.split(",")]
    rows.append((float(f[4]), float(f[7])))   # utilization %, power W
KILL = 150          # GPU 0: rows after this one were never scraped
OUT = (80, 180)     # GPU 1: rows 80..179 were never scraped
TAIL = 120          # seconds asked for after the last row
t0 = end - TAIL - len(rows)
series = {"gputally_gpu_utilization_percent": [], "gputally_gpu_power_watts": []}
want = {}
for g in (0, 1):
    lab = 'gpu="%d",uuid="GPU-5700ab00-0000-4000-8000-00000000000%d",name="NVIDIA H200",host="stop-node"' % (g, g)
    kept = [k for k in range(len(rows)) if (k <= KILL if g == 0 else not (OUT[0] <= k < OUT[1]))]
    for k in kept:
        series["gputally_gpu_utilization_percent"].append("gputally_gpu_utilization_percent{%s} %g %d" % (lab, rows[k][0], t0 + k))
        series["gputally_gpu_power_watts"].append("gputally_gpu_power_watts{%s} %g %d" % (lab, rows[k][1], t0 + k))
    # each row holds one second: the data ends one second after the last
    # row read, and the outage is a gap of its length, from the last sample
    want["GPU-5700ab00-0000-4000-8000-00000000000%d" % g] = {
        "end": t0 + kept[-1] + 1, "covered_s": len(kept), "gaps_s": 0 if g == 0 else OUT[1] - OUT[0],
        "energy_j": sum(rows[k][1] for k in kept), "busy_s": sum(rows[k][0] / 100 for k in kept)}
with open(os.path.join(out, "stop.om"), "w") as om:
    for fam, lines in series.items():
        om.write("# TYPE %s gauge\n" % fam)
        om.write("\n".join(lines) + "\n")
    om.write("# EOF\n")
json.dump(want, open(os.path.join(out, "expect.json"), "w"), indent=1)
print(t0, t0 + len(rows) + TAIL)
