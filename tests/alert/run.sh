#!/bin/sh
# gputally alert on hand-made logs (tests/alert/data), one per rule and one
# that trips none, against expectations worked out by hand below; the
# Prometheus rules (generated and contrib/) with promtool; the Grafana
# dashboard's JSON and metric names.
#   sh tests/alert/run.sh BIN
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
d=$here/data
prom=$root/contrib/prometheus
graf=$root/contrib/grafana
pass=0 fail=0
export LC_ALL=C TZ=UTC
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# check NAME RC FIELDS ARGS...: exit status RC, and stdout's first five
# fields (rule gpu start end value) exactly FIELDS, one alert a line.
check() {
	name=$1 want_rc=$2 want=$3
	shift 3
	"$bin" alert "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ "$rc" -eq "$want_rc" ] && ok || bad "$name: exit $rc, want $want_rc ($(head -c 300 "$tmp/err"))"
	got=$(awk '{ print $1, $2, $3, $4, $5 }' "$tmp/out")
	[ "$got" = "$want" ] && ok || bad "$name: got
$got
want
$want"
}

P="--profile h200-vs-cloud"	# u* = 0.273097 (gputally cost -p h200-vs-cloud)
T=2026-11-29T10:00
TH=2026-11-29T10

# quiet.csv: 10 samples 10:00:00..09, 1 s apart: util 50 % (> u* 27.31 %),
# 70 C, 133771 MiB free, 300 W.  The last covers 10:00:09..10, and at
# 10:00:12 it is 3 s old: not more than 3 intervals of 1 s.  Nothing fires.
check "quiet" 0 "" $P --now ${T}:12Z "$d/quiet.csv"
[ ! -s "$tmp/out" ] && ok || bad "quiet: printed something"
"$bin" alert $P --now ${T}:12Z --json "$d/quiet.csv" >"$tmp/q.json"; rc=$?
python3 - "$tmp/q.json" <<'PY' && [ $rc -eq 0 ] && ok || bad "quiet --json"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["alerts"] == [] and j["fired"] == 0, j
assert abs(j["u_star"] - 0.273097) < 1e-6, j["u_star"]
assert j["rules"] == 8 and j["rules_source"] == "(compiled-in defaults)"
PY

# recorder_stale: at 10:00:13 the last sample (10:00:09) is 4 s old > 3 x 1 s.
check "stale" 1 "recorder_stale - ${T}:09Z ${T}:13Z 4" $P --now ${T}:13Z "$d/quiet.csv"
grep -q "not updated for 4s, more than 3 intervals of 1s \[$d/quiet.csv\]" "$tmp/out" && ok ||
	bad "stale: message $(cat "$tmp/out")"
# rotated/: yesterday's daily file (samples 23:59:55..59) and today's
# (00:00:00..09) of the same GPU: yesterday's is superseded, not stale; at
# 00:00:12 today's is 3 s old (fine), at 00:00:13 4 s (stale).  Alone,
# yesterday's file is 13 s old at 00:00:12: stale.
check "rotated" 0 "" $P --now 2026-11-29T00:00:12Z "$d/rotated"
check "rotated stale" 1 "recorder_stale - 2026-11-29T00:00:09Z 2026-11-29T00:00:13Z 4" $P --now 2026-11-29T00:00:13Z "$d/rotated"
check "yesterday alone" 1 "recorder_stale - 2026-11-28T23:59:59Z 2026-11-29T00:00:12Z 13" $P --now 2026-11-29T00:00:12Z \
	"$d/rotated/node1_20261128.csv"
# a dmon log is not a recorder file: never stale, however old; its 93 C at
# 10:00:01 and :02 is temp_high from 10:00:01 to 10:00:03 (the second
# reading holds until the next sample).
check "dmon" 1 "temp_high gpu0 ${T}:01Z ${T}:03Z 93" $P --now 2026-12-05T00:00:00Z "$d/dmon_hot.log"

# temp.csv: 90 93 95 92 94 C at 10:00:00..04: above 92 (92 is not) on [01, 03) max 95
# and on [04, 05) (the last reading covers one interval) max 94.
# (--now: one interval after the last sample, so no file is stale)
check "temp" 1 "temp_high gpu0 ${T}:01Z ${T}:03Z 95
temp_high gpu0 ${T}:04Z ${T}:05Z 94" $P --now ${T}:05Z "$d/temp.csv"

# memfree.csv, one sample a minute from 10:00, free MiB 8000 1536 1024 1280
# 2000 1800 1900 4096 512: under 2048 MiB from 10:01 to 10:07 (6 min >= 5,
# min 1024 MiB = 1 GiB); 512 at 10:08 lasts 1 min < 5: no alert.
check "memfree" 1 "mem_free_low gpu0 ${TH}:01:00Z ${TH}:07:00Z 1" $P --now ${TH}:09:00Z "$d/memfree.csv"

# power.csv: 300 0 0 250 300 W at 10:00:00..04: 0 W on [01, 03).
check "power" 1 "power_zero gpu0 ${T}:01Z ${T}:03Z 0" $P --now ${T}:05Z "$d/power.csv"

# down.csv: ok at :00 :01, lost :02 :03, reset_required :04, ok :05 :06:
# down on [02, 05), 3 s; the lost rows carry no power, so no power_zero.
check "down" 1 "gpu_down gpu0 ${T}:02Z ${T}:05Z 3" $P --now ${T}:07Z "$d/down.csv"

# xid.csv: Xid 79 at :02 and :30 (one burst, within a minute: count 2),
# 13 at :03 (an application error: not fatal), 48 at 10:01:40.  A fatal Xid
# puts the GPU down to its next healthy row (docs/states.md): [:02, :03),
# 1 s; after :30 no healthy row comes, so down to the end of the data, the
# Xid 48 at 10:01:40: 70 s.
check "xid" 1 "gpu_down gpu0 ${T}:02Z ${T}:03Z 1
xid_fatal gpu0 ${T}:02Z ${T}:30Z 79
gpu_down gpu0 ${T}:30Z ${TH}:01:40Z 70
xid_fatal gpu0 ${TH}:01:40Z ${TH}:01:40Z 48" $P --now ${T}:05Z "$d/xid.csv"
grep -q "(x2)" "$tmp/out" && ok || bad "xid: burst not counted"

# util.csv, three GPUs a sample a minute 10:00..10:29 (each covers 1 min).
# The rule judges the useful share (docs/states.md "Busy"): gpu0 80 % for 20
# min (compute_bound) then 10 % for 10 (input_bound, not useful): 20 / 30 =
# 66.67 % > u*; gpu1 50 % (compute_bound) 100 %; gpu2 10 %, input_bound all
# the time: 0 % < 27.31 %: alert from 10:00 to 10:30, value 0 (mean
# utilization would have said 10).  No GPU is ever idle (each is in a state
# of work), so the rule for the time a job holds the GPU sees the same
# minutes and fires the same.
check "util" 1 "util_below_breakeven gpu2 ${TH}:00:00Z ${TH}:30:00Z 0
util_below_breakeven_in_job gpu2 ${TH}:00:00Z ${TH}:30:00Z 0" $P --now ${TH}:30:00Z "$d/util.csv"
# util_job.csv, the articles' rule "below break-even while a job runs": gpu0
# idle (0 %, 1 MiB, 70 W, no process) 10:00..10:22, then a job at 80 %
# (compute_bound) to 10:30: over the day 7 / 30 = 23.33 % useful < u*, but
# while the job held it 100 %: only the day rule fires.  gpu1 holds a job at
# 20 % (200 W, input_bound: not useful) all 30 minutes: both fire at 0.
check "util in job" 1 "util_below_breakeven gpu0 ${TH}:00:00Z ${TH}:30:00Z 23.3333
util_below_breakeven gpu1 ${TH}:00:00Z ${TH}:30:00Z 0
util_below_breakeven_in_job gpu1 ${TH}:00:00Z ${TH}:30:00Z 0" $P --now ${TH}:30:00Z "$d/util_job.csv"
grep -q "while a job held the GPU" "$tmp/out" && ok || bad "util in job: message"
printf '[j]\nkind = util_below\nthreshold = 50\nduring = sometimes\n' >"$tmp/during.ini"
"$bin" alert --rules "$tmp/during.ini" "$d/util_job.csv" >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] && grep -q "during wants all or job" "$tmp/err" && ok || bad "during: a bad value is an error ($rc)"
# without a profile there is no u*: the rule is skipped, and says so
check "util no profile" 0 "" --now ${TH}:30:00Z "$d/util.csv"
grep -q "needs the break-even utilization u\*" "$tmp/err" && ok || bad "util: no note without u*"

# util_unknown.csv: no utilization reading 10:00..10:19, then 80 % for 4 min
# (compute_bound) and 10 % for 6 (input_bound): unknown is not idle, so the
# day's useful share is 4 / 10 = 40 % (not 4 / 30 = 13.3 %): above u*, and
# below a threshold of 50 with value 40.
check "util unknown" 0 "" $P --now ${TH}:30:00Z "$d/util_unknown.csv"
printf '[half]\nkind = util_below\nthreshold = 50\n' >"$tmp/half.ini"
check "util unknown 50" 1 "half gpu0 ${TH}:00:00Z ${TH}:30:00Z 40" --rules "$tmp/half.ini" --now ${TH}:30:00Z "$d/util_unknown.csv"

# --rules: a 10-minute window (10:20..10:30, the minutes that end after
# 10:20) sees gpu0 at 10 % (useful share 0 < 25) too, and gpu2 from 10:20.
cat >"$tmp/r.ini" <<'INI'
; the last 10 minutes below 25 %
[idle_10m]
kind = util_below
threshold = 25
window = 10m
INI
check "rules file" 1 "idle_10m gpu0 ${TH}:20:00Z ${TH}:30:00Z 0
idle_10m gpu2 ${TH}:20:00Z ${TH}:30:00Z 0" --rules "$tmp/r.ini" --now ${TH}:30:00Z "$d/util.csv"

# --json: the values field by field.
"$bin" alert $P --now ${T}:05Z --json "$d/temp.csv" >"$tmp/t.json"; rc=$?
python3 - "$tmp/t.json" <<'PY' && [ $rc -eq 1 ] && ok || bad "temp --json"
import json, sys
j = json.load(open(sys.argv[1]))
a = j["alerts"]
assert j["fired"] == 2 and len(a) == 2, a
want = [("temp_high", 0, "2026-11-29T10:00:01Z", "2026-11-29T10:00:03Z", 95),
        ("temp_high", 0, "2026-11-29T10:00:04Z", "2026-11-29T10:00:05Z", 94)]
for x, w in zip(a, want):
    assert (x["rule"], x["gpu"], x["start"], x["end"], x["value"]) == w, x
    assert x["uuid"] == "GPU-0" and x["severity"] == "critical" and "above 92 C" in x["message"], x
PY
"$bin" alert $P --now ${T}:07Z --json "$d/xid.csv" "$d/down.csv" >"$tmp/x.json"
python3 - "$tmp/x.json" <<'PY' && ok || bad "xid --json"
import json, sys
a = json.load(open(sys.argv[1]))["alerts"]
got = sorted((x["rule"], x["start"], x["value"], x["count"]) for x in a)
# xid.csv and down.csv share GPU-0: the down time and the Xids are both there
# (down.csv's lost rows :02..:05 and the Xid 79 at :02 are one stretch of
# 3 s; the Xid 79 at :30 is down to the end of the data, 10:01:40: 70 s)
assert got == [("gpu_down", "2026-11-29T10:00:02Z", 3, 1),
               ("gpu_down", "2026-11-29T10:00:30Z", 70, 1),
               ("xid_fatal", "2026-11-29T10:00:02Z", 79, 2),
               ("xid_fatal", "2026-11-29T10:01:40Z", 48, 1)], got
assert all(x["gpu"] == 0 for x in a)
assert [x["source"] for x in a if x["rule"] == "xid_fatal"][0].endswith("xid.csv:6")
PY

# usage and input errors: exit 2, never 0 ("could not look" is not "fine")
for args in "" "--bogus $d/quiet.csv" "--now yesterday $d/quiet.csv" "--prometheus-rules $d/quiet.csv" \
	"$d/no-such-file.csv" "$tmp/empty-dir" "--rules $tmp/no-such.ini $d/quiet.csv"; do
	mkdir -p "$tmp/empty-dir"
	"$bin" alert $args >/dev/null 2>&1
	rc=$?
	[ $rc -eq 2 ] && ok || bad "alert $args: exit $rc, want 2"
done
# a bad line: counted (and the rest checked) by default, exit 2 under --strict
{ cat "$d/quiet.csv"; echo "2026-11-29T10:00:10.000Z,node1,t,0,GPU-0,NVIDIA H200,ok,fifty,10,10000,143771,512,300.000,,700.000,70,1980,3201,0x0,0,5,16,-"; } >"$tmp/badline.csv"
"$bin" alert $P --now ${T}:12Z "$tmp/badline.csv" >"$tmp/out" 2>"$tmp/err"
[ $? -eq 0 ] && grep -q "1 input line(s) skipped" "$tmp/err" && ok || bad "bad line not counted: $(cat "$tmp/err")"
"$bin" alert $P --now ${T}:12Z --strict "$tmp/badline.csv" >"$tmp/out" 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "badline.csv:13:" "$tmp/err" && ok || bad "--strict: $(cat "$tmp/err")"
printf '[a]\nkind = temp_above\nthreshold = hot\n' >"$tmp/bad.ini"
"$bin" alert --rules "$tmp/bad.ini" "$d/quiet.csv" 2>"$tmp/err" >/dev/null
[ $? -eq 2 ] && grep -q "bad.ini:3:.*threshold wants a number" "$tmp/err" && ok || bad "bad rules: $(cat "$tmp/err")"
# the defaults read back as a rules file give the same alerts
"$bin" alert --print-rules >"$tmp/def.ini"
check "print-rules" 1 "temp_high gpu0 ${T}:01Z ${T}:03Z 95
temp_high gpu0 ${T}:04Z ${T}:05Z 94" --rules "$tmp/def.ini" $P --now ${T}:05Z "$d/temp.csv"

# docs/alert.md shows the compiled-in rules: the same text
sed -n '/^```ini$/,/^```$/p' "$root/docs/alert.md" | sed '1d;$d' >"$tmp/doc.ini"
cmp -s "$tmp/doc.ini" "$tmp/def.ini" && ok || bad "docs/alert.md's rules differ from --print-rules"

# ---- Prometheus --------------------------------------------------------
if command -v promtool >/dev/null 2>&1; then
	"$bin" alert --prometheus-rules --profile h200-vs-cloud >"$tmp/gen.yml" && ok || bad "--prometheus-rules failed"
	promtool check rules "$tmp/gen.yml" >"$tmp/pc" 2>&1 && ok || bad "promtool check rules (generated): $(cat "$tmp/pc")"
	cmp -s "$tmp/gen.yml" "$prom/gputally-alerts.rules.yml" && ok ||
		bad "contrib/prometheus/gputally-alerts.rules.yml is not what 'gputally alert --prometheus-rules --profile h200-vs-cloud' prints"
	# the u* in the rule is the profile's: 100 x 0.273097
	grep -q "avg_over_time(gputally_gpu_utilization_percent\[1d\]) < 27.3097$" "$tmp/gen.yml" && ok || bad "u* not in the rules"
	"$bin" alert --prometheus-rules >"$tmp/gen0.yml" && promtool check rules "$tmp/gen0.yml" >/dev/null 2>&1 &&
		! grep -q "alert: GputallyUtilBelowBreakeven" "$tmp/gen0.yml" &&
		grep -q "# util_below_breakeven: no break-even" "$tmp/gen0.yml" &&
		ok || bad "--prometheus-rules without a profile"
	# a rules file of one's own: 'for' carried over, kinds with no metric left out with a comment
	printf '[hot]\nkind = temp_above\nthreshold = 85.5\nfor = 90s\n[held]\nkind = state\nstate = held_idle\n[x]\nkind = event\n' >"$tmp/own.ini"
	"$bin" alert --prometheus-rules --rules "$tmp/own.ini" >"$tmp/own.yml" &&
		promtool check rules "$tmp/own.yml" >"$tmp/pc" 2>&1 &&
		grep -q "expr: gputally_gpu_temperature_celsius > 85.5$" "$tmp/own.yml" && grep -q "for: 90s$" "$tmp/own.yml" &&
		grep -q "# held (kind state): no recorder metric" "$tmp/own.yml" && grep -q "# x (kind event)" "$tmp/own.yml" &&
		[ "$(grep -c -- '- alert:' "$tmp/own.yml")" -eq 1 ] && ok || bad "--prometheus-rules --rules: $(cat "$tmp/own.yml" "$tmp/pc")"
	for f in "$prom"/gputally-*.rules.yml; do
		promtool check rules "$f" >"$tmp/pc" 2>&1 && ok || bad "promtool check rules $f: $(cat "$tmp/pc")"
	done
	(cd "$prom" && promtool check config scrape-gputally.yml) >"$tmp/pc" 2>&1 && ok || bad "scrape config: $(cat "$tmp/pc")"
	(cd "$prom" && promtool test rules tests.yml) >"$tmp/pt" 2>&1 && ok || bad "promtool test rules: $(cat "$tmp/pt")"
else
	bad "promtool not installed (scripts/install-deps.sh test installs prometheus)"
fi

# ---- Grafana -----------------------------------------------------------
python3 -m json.tool "$graf/gputally-dashboard.json" >/dev/null && ok || bad "dashboard: not valid JSON"
# Every metric name in a query is one the recorder exports (the Prometheus
# names of tally_columns.def and the families sink_prom.c writes) or a
# recording rule of contrib/prometheus; every query parses (promtool, with
# the dashboard variables put in).
sed -n 's/^TCOL([^"]*"[^"]*", *[^,]*, *[^,]*, *"\(gputally_[a-z_]*\)".*/\1/p' "$root/src/formats/tally_columns.def" >"$tmp/names"
grep -o '"gputally_[a-z_]*"' "$root/src/record/sink_prom.c" | tr -d '"' >>"$tmp/names"
sed -n 's/^ *- record: *//p' "$prom/gputally-recording.rules.yml" >>"$tmp/names"
echo up >>"$tmp/names"
python3 - "$graf/gputally-dashboard.json" "$tmp/names" "$tmp/q.yml" <<'PY' && ok || bad "dashboard metric names"
import json, re, sys
dash = json.load(open(sys.argv[1]))
known = set(open(sys.argv[2]).read().split())
assert "gputally_gpu_up" in known and "gputally_gpu_power_watts" in known, known
exprs = []
def walk(p):
    for t in p.get("targets", []):
        exprs.append(t["expr"])
    for q in p.get("panels", []):
        walk(q)
for p in dash["panels"]:
    walk(p)
for v in dash["templating"]["list"]:
    if v["type"] == "query":
        exprs.append(v["definition"])
assert len(exprs) >= 15, len(exprs)
cells = {}
for p in dash["panels"]:
    g = p["gridPos"]
    assert g["x"] + g["w"] <= 24, p["title"]
    for x in range(g["x"], g["x"] + g["w"]):
        for y in range(g["y"], g["y"] + g["h"]):
            assert (x, y) not in cells, (p["title"], cells[(x, y)])
            cells[(x, y)] = p["title"]
assert len({p["id"] for p in dash["panels"]}) == len(dash["panels"]), "panel ids repeat"
assert dash["uid"] and "id" not in dash, "a provisioned dashboard has a uid and no id"
bad = set()
words = {"sum", "by", "avg", "avg_over_time", "count", "vector", "and", "or", "on", "bool", "label_values",
         "instance", "job", "host", "gpu", "uuid", "name", "d"}
for e in exprs:
    body = re.sub(r'\$\w+', '', re.sub(r'\{[^}]*\}', '', e))
    for n in re.findall(r'[A-Za-z_:][A-Za-z0-9_:]*', body):
        if n.startswith("gputally") and n not in known:
            bad.add(n)
        elif not n.startswith("gputally") and n not in words and not n.startswith("$"):
            bad.add(n)
assert not bad, bad
with open(sys.argv[3], "w") as f:
    f.write("groups:\n  - name: dashboard\n    rules:\n")
    for i, e in enumerate(exprs):
        if e.startswith("label_values"):
            continue
        e = e.replace("$host", ".*").replace("$ustar", "0.27").replace("$gpu_hour_cost", "1.33")
        f.write("      - record: dashboard:q%d\n        expr: %s\n" % (i, json.dumps(e)))
PY
# and so do the alerting and recording rules
for f in "$prom"/gputally-*.rules.yml; do
	unknown=$(sed -n 's/^ *expr: //p' "$f" | sed 's/{[^}]*}//g' | grep -o 'gputally[a-z0-9_:]*' | sort -u |
		while read -r n; do grep -qx "$n" "$tmp/names" || echo "$n"; done)
	[ -z "$unknown" ] && ok || bad "$f: metric names the recorder does not export: $unknown"
done

# the dashboard's defaults are the h200-vs-cloud figures: u*, and the cost
# of an idle GPU-hour F / H + k x P_idle = 11500 / 8760 + 0.000195 x 90
"$bin" cost --profile h200-vs-cloud --json >"$tmp/cost.json"
python3 - "$graf/gputally-dashboard.json" "$tmp/cost.json" <<'PY' && ok || bad "dashboard defaults"
import json, sys
v = {x["name"]: x for x in json.load(open(sys.argv[1]))["templating"]["list"]}
c = json.load(open(sys.argv[2]))
assert abs(float(v["ustar"]["query"]) - c["break_even"]["utilization"]) < 1e-6
assert abs(float(v["gpu_hour_cost"]["query"]) - (11500 / 8760 + 0.000195 * 90)) < 1e-4
l = c["local"]
assert (l["fixed_per_year"], l["hours_per_year"], l["energy_cost_per_wh"], l["idle_power_w"]) == (11500, 8760, 0.000195, 90), l
PY

if command -v promtool >/dev/null 2>&1; then
	promtool check rules "$tmp/q.yml" >"$tmp/pc" 2>&1 && ok || bad "dashboard queries do not parse: $(cat "$tmp/pc")"
fi

echo "alert: $pass passed, $fail failed"
[ $fail -eq 0 ]
