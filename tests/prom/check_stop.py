# The report of gen_stop.py's series against its expectations: each GPU's
# data ends at its last real sample (not up to 5 minutes of lookback later),
# the outage is a gap of its length, and energy and busy time are the
# samples' own.
#   check_stop.py REPORT.json EXPECT.json
import json, sys
from datetime import datetime, timezone

rep, want = (json.load(open(x)) for x in sys.argv[1:3])
fails = 0


def check(what, ok):
    global fails
    print("%s: %s" % ("ok" if ok else "FAIL", what))
    fails += not ok


def ts(s):
    return datetime.strptime(s, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc).timestamp()


gpus = {g["uuid"]: g for g in rep["gpus"]}
check("2 GPUs (%d)" % len(gpus), sorted(gpus) == sorted(want))
for u, w in sorted(want.items()):
    g = gpus.get(u)
    if not g:
        continue
    tag = u[-2:]
    check("GPU %s: data ends %+.0f s from its last sample + 1 s" % (tag, ts(g["end"]) - w["end"]), ts(g["end"]) == w["end"])
    check("GPU %s: covered %s s, want %d" % (tag, g["covered_s"], w["covered_s"]), abs(g["covered_s"] - w["covered_s"]) <= 1)
    check("GPU %s: gaps %s s, want %d" % (tag, g["gaps_s"], w["gaps_s"]), abs(g["gaps_s"] - w["gaps_s"]) <= 1)
    check("GPU %s: energy %.1f J, want %.1f" % (tag, g["energy_j"], w["energy_j"]),
          abs(g["energy_j"] - w["energy_j"]) <= 0.001 * w["energy_j"])
    check("GPU %s: busy %.2f s, want %.2f" % (tag, g["busy_s"], w["busy_s"]), abs(g["busy_s"] - w["busy_s"]) <= 0.01 * w["busy_s"])
sys.exit(1 if fails else 0)
