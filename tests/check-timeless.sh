#!/bin/sh
# The bundled capture as a new user reads it: every file of it (the demo's
# timed logs plus the time-less ones in tests/capture-timeless/) copied fresh,
# every file time set to now, read as one directory.  The time-less logs must
# be placed by content or left out, so that the window, states, energy and
# idle floors match the demo's file list within 1 %, and energy is within 2 %
# of the GPU counter's 63.0 kJ (README of the capture).
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export LC_ALL=C TZ=UTC
mkdir "$tmp/cap"
cp "$root"/examples/h200-training/* "$root"/tests/capture-timeless/* "$tmp/cap/"
touch "$tmp"/cap/*
"$bin" report --json "$root/examples/h200-training" >"$tmp/demo.json" 2>/dev/null
"$bin" report --json "$tmp/cap" >"$tmp/all.json" 2>/dev/null
python3 - "$tmp/demo.json" "$tmp/all.json" <<'PY' || exit 1
import json, sys
from datetime import datetime
a, b = (json.load(open(p)) for p in sys.argv[1:3])
bad = []
def t(s): return datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()
def near(what, x, y, rel):
    if x is None or y is None or abs(x - y) > rel * max(abs(x), 1e-9):
        bad.append("%s: %s against %s" % (what, y, x))
span = t(a["end"]) - t(a["start"])
near("window start", 0, t(b["start"]) - t(a["start"]), 1); near("window length", span, t(b["end"]) - t(b["start"]), 0.01)
ga, gb = a["gpus"][0], b["gpus"][0]
for k in ("energy_j", "covered_s", "busy_s", "util_mean_pct", "idle_power_w", "held_idle_floor_w", "no_context_floor_w"):
    near(k, ga[k], gb[k], 0.01)
for st in set(ga["states"]) | set(gb["states"]):
    sa, sb = ga["states"].get(st), gb["states"].get(st)
    va = sa["seconds"] if isinstance(sa, dict) else sa
    vb = sb["seconds"] if isinstance(sb, dict) else sb
    if (va or 0) > 0.01 * span or (vb or 0) > 0.01 * span:
        near("state " + st, va, vb, 0.01 + 1.0 / max(va or 1, 1))
near("energy against the counter", 63000.0, gb["energy_j"], 0.02)
placed = [i for i in b["inputs"] if i["path"].endswith("dmon_default.log")][0]
if not placed["placed_against"] or "its samples match" not in (placed["time_basis"] or ""):
    bad.append("dmon_default.log not placed by content: %s" % placed["time_basis"])
if bad:
    print("check-timeless: FAIL\n  " + "\n  ".join(bad)); sys.exit(1)
print("check-timeless: ok (energy %.1f kJ, window %s .. %s)" % (gb["energy_j"] / 1000, b["start"], b["end"]))
PY
