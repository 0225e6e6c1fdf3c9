#!/bin/sh
# SPDX-License-Identifier: MIT
# gputally scale against figures worked out by hand in ../shared/docs/sources.md
# (article 003: the 4/16/64 thread table, the 1 -> 4 GPU ResNet-50 case, the
# 4/16/64 A100 cost table) and against a brute-force least-squares fit done
# here in Python, independently of the C code.  Then bad tables.
#   tests/scale/run.sh BIN
bin=$1
export LC_ALL=C TZ=UTC
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
fail=0
bad() { echo "scale: FAIL: $*"; fail=1; }

printf 'gpus,throughput\n1,1\n4,2.65\n16,5.38\n64,7.92\n' >"$T/measured.csv"
printf 'gpus,throughput\n64,12.5\n1,1\n16,7.41\n4,3.20\n' >"$T/theoretical.csv"	# any order
printf 'gpus,throughput\n1,128\n4,492\n' >"$T/resnet.csv"
printf '# article 003, its table read as in sources.md\ngpus,hours,cost,iterations\n4,18.2,218,58900\n16,15.6,928,61100\n64,17.1,2876,61100\n' >"$T/a100.csv"
for f in measured theoretical resnet; do
	"$bin" scale --json "$T/$f.csv" >"$T/$f.json" || bad "$f: exit $?"
done
"$bin" scale --json --deadline 17h --max-cost-per-speedup 1000 --set cloud_hourly_rate=2.99 \
	--set hardware_price=15000 --set electricity_price=0.2 --set busy_power_w=400 "$T/a100.csv" >"$T/a100.json" ||
	bad "a100: exit $?"

python3 - "$T" <<'PY' || fail=1
import json, sys
T = sys.argv[1]
def load(n): return json.load(open("%s/%s.json" % (T, n)))
bad = []
def near(what, got, want, tol):
    if got is None or abs(got - want) > tol:
        bad.append("%s: %r, want %r +/- %g" % (what, got, want, tol))

def amdahl(f, n0, n): return (f + (1 - f) / n0) / (f + (1 - f) / n)
def brute_f(runs):  # least squares over the speedups, on a 1e-5 grid
    n0, x0 = runs[0]
    best = min((sum((x / x0 - amdahl(i / 1e5, n0, n)) ** 2 for n, x in runs[1:]), i / 1e5) for i in range(100001))
    return best[1]

# sources.md: F implied by the measured speedups 0.170 / 0.132 / 0.112
m = load("measured")
for r, want in zip(m["runs"][1:], (0.170, 0.132, 0.112)):
    near("measured implied F at %d" % r["gpus"], r["implied_serial_fraction"], want, 0.0006)
near("measured least-squares F", m["amdahl"]["serial_fraction"], brute_f([(1, 1), (4, 2.65), (16, 5.38), (64, 7.92)]), 2e-5)
# the article's theoretical column: F 1/12, 0.0773, 0.0654 row by row; one F of about 0.067 gives 3.33/7.98/12.25
t = load("theoretical")
if [r["gpus"] for r in t["runs"]] != [1, 4, 16, 64]: bad.append("runs not sorted by GPU count")
for r, want in zip(t["runs"][1:], (1 / 12, 0.0773, 0.0654)):
    near("theoretical implied F at %d" % r["gpus"], r["implied_serial_fraction"], want, 0.0001)
near("theoretical least-squares F", t["amdahl"]["serial_fraction"], 0.067, 0.0006)
for r, want in zip(t["runs"][1:], (3.33, 7.98, 12.25)):
    near("speedup of F=0.067 at %d" % r["gpus"], r["amdahl_speedup"], want, 0.02)
# 128 img/s on 1 GPU, 492 on 4: 96 % efficiency (3.84x)
r = load("resnet")
near("resnet speedup", r["runs"][1]["speedup"], 492 / 128, 1e-6)
near("resnet efficiency", r["runs"][1]["efficiency"], 492 / 128 / 4, 1e-6)
if r["usl"] is not None: bad.append("a USL fit from two runs")
# the A100 table at 2.99 per GPU-hour: 4 x 18.2 x 2.99 = 217.672 rented (the article's 218)
a = load("a100")
near("rented 4 GPUs", a["runs"][0]["rented_cost"], 4 * 18.2 * 2.99, 1e-6)
near("rented 64 GPUs", a["runs"][2]["rented_cost"], 64 * 17.1 * 2.99, 1e-6)
own = 15000 / 3 / 8760 + 0.2 / 1000 * 400
near("owned per GPU-hour", a["cost"]["owned_per_gpu_hour"], own, 1e-6)
near("owned 16 GPUs", a["runs"][1]["owned_cost"], 16 * 15.6 * own, 1e-6)
near("owned per 1k at 16", a["runs"][1]["owned_cost_per_1k_iterations"], 16 * 15.6 * own / 61.1, 1e-6)
near("speedup 16 vs 4", a["runs"][1]["speedup"], (61100 / 15.6) / (58900 / 18.2), 1e-6)
# marginal on the given cost: (928 - 218) / (speedup16 - 1) > 1000, so only the 4-GPU run is worth it
s16 = (61100 / 15.6) / (58900 / 18.2)
near("marginal 4->16", a["runs"][1]["marginal_cost_per_speedup"], (928 - 218) / (s16 - 1), 1e-3)
if a["max_cost_per_speedup"]["worth_up_to_gpus"] != 4: bad.append("worth up to %r, want 4" % a["max_cost_per_speedup"])
if a["deadline"]["fewest_gpus"] != 16 or a["deadline"]["cheapest_owned_gpus"] != 16:
    bad.append("deadline 17 h: %r, want 16 GPUs (18.2 h misses it, 15.6 h is cheaper than 17.1 h)" % a["deadline"])
if not any("slower than the one before" in w for w in a["warnings"]): bad.append("no warning for 64 GPUs slower than 16")
for b in bad: print("scale: FAIL: " + b)
print("scale: %d figures against sources.md and an independent fit%s" % (21, "" if not bad else ", %d wrong" % len(bad)))
sys.exit(1 if bad else 0)
PY

# bad tables: a clear file:line:col and exit 3, never a crash
check_bad() {	# name, table text, expected message part
	printf "$2" >"$T/$1.csv"
	"$bin" scale "$T/$1.csv" >"$T/out" 2>"$T/err"
	rc=$?
	[ $rc -eq 3 ] || bad "$1: exit $rc, want 3"
	grep -q "$3" "$T/err" || { bad "$1: message lacks '$3'"; cat "$T/err"; }
}
check_bad zero 'gpus,hours\n1,2\n0,1\n' "$T/zero.csv:3:1: gpus must be above 0"
check_bad negative 'gpus,hours\n1,2\n2,-1\n' "$T/negative.csv:3:3: hours must be above 0"
check_bad text 'gpus,throughput\n1,fast\n' "$T/text.csv:2:3: 'fast' is not a number"
check_bad dup 'gpus,hours\n2,2\n2,1\n' "a second run with 2 GPUs"
check_bad nohdr '' "the table is empty"
check_bad column 'gpus,speed\n1,2\n' "unknown column 'speed'"
check_bad cells 'gpus,hours\n1,2,3\n' "expected 2 cells"
check_bad fraction 'gpus,hours\n1.5,2\n' "not a whole GPU count"
printf 'gpus,hours\n4,10\n' >"$T/one.csv"
"$bin" scale "$T/one.csv" >"$T/out" 2>&1 || bad "one run: exit $?"
grep -q "no fit, it needs at least two runs" "$T/out" || bad "one run: no 'needs at least two runs'"
printf 'gpus,throughput\n1,100\n2,250\n' >"$T/super.csv"
"$bin" scale "$T/super.csv" >"$T/out" 2>&1 || bad "superlinear: exit $?"
grep -q "faster than linear" "$T/out" || bad "superlinear: no warning"
# runs found in logs: synthetic dmon + pmon + app log whose plan (and so the
# expected windows, hours and throughputs) gen_logs.py writes itself
L="$T/logs"; mkdir -p "$L"
python3 "$(dirname "$0")/gen_logs.py" "$L" || bad "gen_logs.py failed"
"$bin" scale --logs --json --app-log "$L/app_log.jsonl" "$L/dmon.log" "$L/pmon.log" >"$T/logs.json" 2>"$T/logs.err" ||
	bad "--logs: exit $?"
grep -q "app_log.jsonl:$(grep -c '' "$L/app_log.jsonl"):" "$T/logs.err" || bad "--logs: the broken app-log line is not named file:line"
"$bin" scale --logs --json "$L/dmon.log" "$L/pmon.log" >"$T/logs-hours.json" || bad "--logs hours: exit $?"
"$bin" scale --logs --json "$L/dmon.log" >"$T/logs-noproc.json" || bad "--logs dmon only: exit $?"
"$bin" scale --logs --json --task other "$L/pmon.log" "$L/dmon.log" >"$T/logs-other.json" || bad "--task other: exit $?"
"$bin" scale --logs --task nope "$L/pmon.log" >/dev/null 2>"$T/err"; rc=$?
[ $rc -eq 3 ] && grep -q "no process named 'nope'" "$T/err" || bad "--task nope: exit $rc, $(cat "$T/err")"
"$bin" scale --logs --min-run 1h "$L/pmon.log" >/dev/null 2>"$T/err"; rc=$?
[ $rc -eq 3 ] && grep -q "shorter than --min-run" "$T/err" || bad "--min-run 1h: exit $rc, $(cat "$T/err")"
"$bin" scale --app-log "$L/app_log.jsonl" "$T/one.csv" >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] || bad "--app-log without --logs: exit $rc, want 2"
python3 - "$T" "$L/expect.json" <<'PY' || fail=1
import json, sys, calendar
T, exp = sys.argv[1], json.load(open(sys.argv[2]))
bad = []
def near(what, got, want, tol):
    if got is None or abs(got - want) > tol:
        bad.append("%s: %r, want %r +/- %g" % (what, got, want, tol))
def secs(s): return calendar.timegm(__import__("time").strptime(s, "%Y-%m-%dT%H:%M:%SZ"))
def windows(j): return [[secs(w["start"]), secs(w["end"]), w["gpus"]] for w in j["logs"]["windows"]]
j = json.load(open(T + "/logs.json"))
if j["logs"]["task"] != "train": bad.append("task %r, want the busiest, train" % j["logs"]["task"])
if windows(j) != exp["windows"]: bad.append("windows %r, want %r" % (windows(j), exp["windows"]))
if [w["run"] for w in j["logs"]["windows"]] != [True] * 4 + [False]: bad.append("the 20 s blip is not the only non-run")
if j["logs"]["app_steps"] != exp["app_steps"]: bad.append("app steps %r, want %r" % (j["logs"]["app_steps"], exp["app_steps"]))
if j["logs"]["app_steps_without_throughput"] != exp["app_no_rate"]: bad.append("steps without throughput %r" % j["logs"]["app_steps_without_throughput"])
if j["logs"]["app_lines_skipped"] != exp["app_bad"]: bad.append("app lines skipped %r" % j["logs"]["app_lines_skipped"])
if j["throughput_from"] != "throughput": bad.append("throughput_from %r" % j["throughput_from"])
if [r["gpus"] for r in j["runs"]] != [1, 2, 4]: bad.append("runs %r, want 1, 2, 4 GPUs" % [r["gpus"] for r in j["runs"]])
x = exp["throughput"]
for r in j["runs"]:
    g = str(r["gpus"])
    near("throughput at %s" % g, r["throughput"], x[g], 1e-6)
    near("hours at %s" % g, r["hours"], exp["hours"][g], 1e-6)
    near("speedup at %s" % g, r["speedup"], x[g] / x["1"], 1e-6)
# without an app log: the same work at each count, speedup = hours(1) / hours(n)
h = json.load(open(T + "/logs-hours.json"))
if h["throughput_from"] != "1/hours": bad.append("hours basis: throughput_from %r" % h["throughput_from"])
for r in h["runs"]:
    near("hours speedup at %d" % r["gpus"], r["speedup"], exp["hours"]["1"] / exp["hours"][str(r["gpus"])], 1e-6)
# no process data: windows of work, "other" (5 min on GPU 3) joins the 1-GPU runs
n = json.load(open(T + "/logs-noproc.json"))
want = sorted(exp["windows"] + [exp["other_window"]])
if n["logs"]["task"] is not None or windows(n) != want: bad.append("no-process windows %r, want %r" % (windows(n), want))
near("no-process 1-GPU hours", n["runs"][0]["hours"], (1200 + 300) / 2 / 3600, 1e-6)
o = json.load(open(T + "/logs-other.json"))
if windows(o) != [exp["other_window"]]: bad.append("--task other windows %r" % windows(o))
for b in bad: print("scale --logs: FAIL: " + b)
print("scale --logs: windows, hours and throughput of a synthetic 1/2/4-GPU plan%s" % ("" if not bad else ", %d wrong" % len(bad)))
sys.exit(1 if bad else 0)
PY
# ---- the README's scale example, run as it is written, from the top of the tree ----
root=$(cd "$(dirname "$0")/../.." && pwd)
line=$(grep '^gputally scale [^#]*examples/scale/runs\.csv' "$root/README.md" | head -1 | sed 's/ *#.*//')
if [ -z "$line" ]; then
	bad "README.md has no 'gputally scale ... examples/scale/runs.csv' example"
else
	bindir=$(cd "$(dirname "$bin")" && pwd)
	# shellcheck disable=SC2086
	(cd "$root" && PATH="$bindir:$PATH" eval "$line") >"$T/readme.out" 2>"$T/readme.err"
	rc=$?
	[ $rc -eq 0 ] || bad "README's '$line' exits $rc: $(head -3 "$T/readme.err")"
	for want in "3 runs from examples/scale/runs.csv" "    16       1.088    1.210      30.3 %" \
		"Deadline 16.00 h: fewest GPUs that finish in time: 16" "marginal/speedup" "3377.04"; do
		grep -qF -- "$want" "$T/readme.out" || bad "README's scale example: no '$want' in its output"
	done
	grep -q 'slower than the one before it' "$T/readme.out" || bad "README's scale example: no warning that 64 GPUs were slower"
	[ $fail -eq 0 ] && echo "scale: the README's example ran as written: $line"
fi
[ $fail -eq 0 ] && echo "scale: all passed"
exit $fail
