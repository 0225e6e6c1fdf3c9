#!/bin/sh
# SPDX-License-Identifier: MIT
# The HTML and Markdown reports: offline, equal to the JSON, valid on odd
# inputs, and rendered by a real browser (Chromium, headless, no network).
#   tests/html/run.sh BIN OUTDIR
# Screenshots and pages are left in OUTDIR (build artifacts).
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
out=${2:-build/html-test}
root=$(cd "$(dirname "$0")/../.." && pwd)
export LC_ALL=C TZ=UTC
mkdir -p "$out"
out=$(cd "$out" && pwd)
check="python3 $root/tests/html/check.py"
fail=0
say() { echo "html: $*"; }
bad() { echo "html: FAIL: $*"; fail=1; }

# ---- the bundled H200 capture ----
cd "$root/examples/h200-training" || exit 2
"$bin" report --profile h200-vs-cloud --html "$out/h200.html" --json . >"$out/h200.json" || bad "h200 report failed"
"$bin" report --profile h200-vs-cloud --markdown . >"$out/h200.md" || bad "h200 markdown failed"
"$bin" report --profile h200-vs-cloud --html - . >"$out/h200-stdout.html" || bad "--html - failed"
cmp -s "$out/h200.html" "$out/h200-stdout.html" || bad "--html - and --html FILE differ"
$check "$out/h200.html" "$out/h200.json" --charts 7 || fail=1

# Markdown: no HTML inside, and its summary figures are the JSON's, rounded
if grep -n '\(^\|[^\\]\)<[A-Za-z/!]' "$out/h200.md" | head -3 | grep .; then bad "markdown has an HTML tag"; fi
python3 - "$out/h200.md" "$out/h200.json" <<'EOF' || fail=1
import json, re, sys
md = open(sys.argv[1]).read(); j = json.load(open(sys.argv[2]))
w = j["cost"]["window"]
want = ["| Covered | %.3f GPU-hours" % w["covered_h"], "| Useful share | %.1f %% busy (%.3f busy" % (100 * w["u_obs"], w["busy_h"]),
        "| Energy | %.3f kWh" % (w["energy_j"] / 3.6e6), "break-even utilization: %.1f %%" % (100 * j["cost"]["break_even"]["utilization"])]
for s in want:
    if s.lower() not in md.lower():
        print("html: FAIL: markdown lacks %r" % s); sys.exit(1)
for line in md.splitlines():
    if line.startswith("|") and line.count("|") - line.count("\\|") < 3:
        print("html: FAIL: broken table row %r" % line); sys.exit(1)
print("html: markdown summary equals the JSON's")
EOF

# ---- the cloud rate from a catalogue (docs/prices.md): its row holds the JSON's figures ----
"$bin" report --now 2026-12-06T00:00:00Z --cloud-catalog "$root/tests/catalog/nebius-vms.csv" --html "$out/catalog.html" \
	--json . >"$out/catalog.json" || bad "catalog report failed"
$check "$out/catalog.html" "$out/catalog.json" || fail=1
grep -q '<tr><th>Cloud rate</th><td><span class="v" data-key="cost.catalog.median" data-value="3.5"' "$out/catalog.html" ||
	bad "catalog: no Cloud rate row with cost.catalog.median 3.5"
grep -q '<code>nebius-vms.csv</code>' "$out/catalog.html" || bad "catalog: the row does not name the file"

# ---- a log string is text, never markup ----
mkdir -p "$out/esc"
cp query_gpu_units_500ms.csv "$out/esc/"
sed 's/python3 *$/<script>x|y/' pmon_um_DT.log >"$out/esc/pmon.log"
grep -q '<script>' "$out/esc/pmon.log" || bad "test setup: no <script> process name in the pmon copy"
cd "$out/esc" || exit 2
# (the outputs go beside the input directory, never into it)
"$bin" report --html ../esc.html --json . >../esc.json || bad "escape report failed"
"$bin" report --markdown . >../esc.md || bad "escape markdown failed"
grep -q '&lt;script&gt;x|y' ../esc.html || bad "the <script> process name is not shown escaped in the HTML"
grep -q '\\<script\\>x\\|y' ../esc.md || bad "the <script> process name is not escaped in the Markdown"
$check ../esc.html ../esc.json || fail=1

# ---- odd inputs: each a valid page that says what is missing ----
odd() {	# name, then the report arguments
	n=$1; shift
	"$bin" report --html "$out/$n.html" --json "$@" >"$out/$n.json" 2>"$out/$n.err"
	rc=$?
	[ $rc -lt 124 ] || bad "$n: crashed ($rc)"
	$check "$out/$n.html" "$out/$n.json" >/dev/null || { bad "$n"; $check "$out/$n.html" "$out/$n.json"; }
}
hdr='timestamp, index, uuid, utilization.gpu [%], utilization.memory [%], memory.used [MiB], memory.total [MiB], power.draw [W], temperature.gpu, clocks.current.sm [MHz]'
mkdir -p "$out/odd"
printf '%s\n2026/11/29 10:00:00.000, 0, GPU-a, 50 %%, 20 %%, 1000 MiB, 80000 MiB, 300.00 W, 50, 1900 MHz\n' "$hdr" >"$out/odd/one.csv"
odd one-sample "$out/odd/one.csv"
awk -v h="$hdr" 'BEGIN { print h; for (s = 0; s < 3; s++) printf "2026/11/29 10:00:%02d.000, 0, GPU-a, 50 %%, 20 %%, 1000 MiB, 80000 MiB, 300.00 W, 50, 1900 MHz\n", s }' >"$out/odd/3s.csv"
odd three-seconds "$out/odd/3s.csv"
odd three-seconds-priced --profile h200-vs-cloud "$out/odd/3s.csv"
grep -q 'No prices given' "$out/three-seconds.html" || bad "no profile: the page does not say there are no prices"
awk -v h="$hdr" 'BEGIN { print h; for (g = 0; g < 64; g++) for (s = 0; s < 120; s += 10)
	printf "2026/11/29 10:%02d:%02d.000, %d, GPU-%d, %d %%, 20 %%, 1000 MiB, 80000 MiB, %d.00 W, 50, 1900 MHz\n", int(s / 60), s % 60, g, g, (g * 7) % 100, 100 + g }' >"$out/odd/64.csv"
odd sixty-four-gpus --profile h200-vs-cloud "$out/odd/64.csv"
awk -v h="$hdr" 'BEGIN { print h; print "2026/01/01 00:00:00.000, 0, GPU-a, 50 %, 20 %, 1000 MiB, 80000 MiB, 300.00 W, 50, 1900 MHz";
	print "2026/01/01 00:00:01.000, 0, GPU-a, 50 %, 20 %, 1000 MiB, 80000 MiB, 300.00 W, 50, 1900 MHz";
	print "2027/02/05 00:00:00.000, 0, GPU-a, 10 %, 20 %, 1000 MiB, 80000 MiB, 200.00 W, 50, 1900 MHz";
	print "2027/02/05 00:00:01.000, 0, GPU-a, 10 %, 20 %, 1000 MiB, 80000 MiB, 200.00 W, 50, 1900 MHz" }' >"$out/odd/400d.csv"
odd four-hundred-days --profile h200-vs-cloud "$out/odd/400d.csv"
# a GPU that is lost from the start (all down), and one seen only twice, 10 minutes apart (all gap)
awk -v h="$hdr" 'BEGIN { print h; for (s = 0; s < 600; s += 5) {
	printf "2026/11/29 10:%02d:%02d.000, 0, GPU-a, 50 %%, 20 %%, 1000 MiB, 80000 MiB, 300.00 W, 50, 1900 MHz\n", int(s / 60), s % 60
	printf "2026/11/29 10:%02d:%02d.000, 1, GPU-b, [GPU is lost], [GPU is lost], [GPU is lost], [GPU is lost], [GPU is lost], [GPU is lost], [GPU is lost]\n", int(s / 60), s % 60
	if (s == 0 || s == 595) printf "2026/11/29 10:%02d:%02d.000, 2, GPU-c, 0 %%, 0 %%, 0 MiB, 80000 MiB, 60.00 W, 30, 300 MHz\n", int(s / 60), s % 60 } }' >"$out/odd/down-gap.csv"
odd all-down-and-all-gap --profile h200-vs-cloud "$out/odd/down-gap.csv"
grep -q 'gpu_down' "$out/all-down-and-all-gap.html" || bad "all down: the page does not name the gpu_down finding"
mkdir -p "$out/odd/nothing"
printf 'not a gpu log\n' >"$out/odd/nothing/a.txt"
printf 'nor this\n' >"$out/odd/nothing/b.txt"
odd nothing-readable "$out/odd/nothing"
grep -q 'nothing to chart' "$out/nothing-readable.html" || bad "nothing readable: the page does not say why there is no chart"

# ---- 30 days of 8 GPUs (a minute apart: the page's size does not grow with the sample rate) ----
mkdir -p "$out/month"
awk -v h="$hdr" 'BEGIN {
	print h
	for (m = 0; m < 30 * 1440; m++) {
		d = int(m / 1440); hh = int(m % 1440 / 60); mi = m % 60
		for (g = 0; g < 8; g++) {
			if (g == 3 && d == 12 && hh < 6) continue	# an outage: a gap
			u = (hh >= 8 && hh < 20) ? 60 + (m * 7 + g * 13) % 40 : (g == 5 ? 0 : (m + g) % 3)
			printf "2026/10/%02d %02d:%02d:00.000, %d, GPU-%d, %d %%, %d %%, %d MiB, 143771 MiB, %d.00 W, %d, %d MHz\n",
				d + 1, hh, mi, g, g, u, u / 2, (u > 0 ? 40000 + g * 1000 : 500), 80 + u * 6, 35 + u / 4, (u > 0 ? 1980 : 345)
		}
	}
}' >"$out/month/query.csv"
"$bin" report --profile h200-vs-cloud --html "$out/month.html" --json "$out/month/query.csv" >"$out/month.json" ||
	bad "month report failed"
$check "$out/month.html" "$out/month.json" --max-bytes 5000000 --charts 15 || fail=1
# the month at a glance: 30 days x 8 GPUs whose parts add up to the window (issue 31)
python3 - "$out/month.json" <<'PY' || bad "month: the days do not add up to the window"
import json, sys
j = json.load(open(sys.argv[1]))
days = j["days"]
assert len(days) == 30 and all(len(d["gpus"]) == 8 for d in days), len(days)
cost = sum(g["cost"] for d in days for g in d["gpus"])
cov = sum(g["covered_s"] for d in days for g in d["gpus"])
w = j["cost"]["window"]
assert abs(cost - w["local_cost"]) <= 1e-6 * w["local_cost"], (cost, w["local_cost"])
assert abs(cov / 3600 - w["covered_h"]) <= 1e-6 * w["covered_h"], (cov, w["covered_h"])
d13 = days[12]["gpus"][3]	# the outage: 6 h without data on GPU 3
assert abs(d13["covered_s"] - 18 * 3600) < 120, d13
# the hours x days grid: the outage's hours are empty, the others whole; GPU 5 works 08-20 only
assert all(c == 0 for c in d13["hours_covered_s"][:6]) and abs(d13["hours_covered_s"][7] - 3600) < 61, d13
g5 = days[3]["gpus"][5]
assert sum(g5["hours_useful_s"][:8]) == 0 and sum(g5["hours_useful_s"][20:]) == 0 and g5["hours_useful_s"][12] > 0, g5
PY
grep -q '<section id="month">' "$out/month.html" || bad "month: no By day heatmap"
"$bin" report --profile h200-vs-cloud "$out/month/query.csv" | grep -c '^  2026-10-' | grep -qx 30 || bad "month: the text has not 30 days"

# ---- the fleet section of report --prometheus, from the fake server of the prom tests ----
# (a few lines of Python on loopback: no Prometheus needed; tests/prom has the real one)
set -- $(python3 "$root/tests/prom/freeports.py" 1)
fu=http://127.0.0.1:$1
python3 "$root/tests/prom/badserver.py" "$1" >"$out/fleet-server.log" 2>&1 &
fpid=$!
i=0
while [ $i -lt 50 ] && ! curl -sf -m 1 "$fu/ok/api/v1/targets" >/dev/null 2>&1; do sleep 0.1; i=$((i + 1)); done
"$bin" report --prometheus "$fu/ok" --since 2026-11-29T00:00:00Z --until 2026-11-29T00:10:00Z --step 10s \
	--profile h200-vs-cloud --html "$out/fleet.html" --json >"$out/fleet.json" 2>"$out/fleet.err" || bad "fleet report failed"
kill "$fpid" 2>/dev/null
wait "$fpid" 2>/dev/null
$check "$out/fleet.html" "$out/fleet.json" --text-url "$fu/ok" || fail=1
grep -q '<section id="fleet">' "$out/fleet.html" && grep -q 'data-key="fleet.total.idle_cost"' "$out/fleet.html" &&
	grep -q '<code>fakehost</code>' "$out/fleet.html" || bad "fleet: no fleet section with its node and total"

# ---- an outage after a fatal Xid: the waterfall's down step shows its part ----
# (the input and prices of golden 5031: the outage is 19.5 s at 3.6 an hour, 0.0195)
g=$root/tests/golden/5031-report-outage-json
"$bin" report --html "$out/outage.html" --json --set other_fixed_per_year=31536 --set hours_on_per_day=24 \
	--set electricity_price=0 --set hardware_price=0 --set maintenance_hours_per_year=0 --set cooling_w=0 \
	"$g/node7.csv" >"$out/outage.json" 2>"$out/outage.err" || bad "outage report failed"
$check "$out/outage.html" "$out/outage.json" || fail=1
[ "$(grep -c '<rect class="outage"' "$out/outage.html")" = 1 ] || bad "outage: no dashed outage box in the waterfall"
grep -q 'title>of which outage after fatal events: -0.0195 ' "$out/outage.html" || bad "outage: the box's title is not the outage's cost, 0.0195"
grep -q 'data-key="cost.outage.cost" data-value="0.0195"' "$out/outage.html" || bad "outage: the waterfall's caption lacks cost.outage.cost"

# ---- a real browser ----
browser=$(command -v chromium || command -v chromium-browser)
if [ -z "$browser" ]; then
	say "SKIP browser test: chromium is not installed and scripts/install-deps.sh test could not install it"
else
	# no name resolves and every connection goes to a closed port: nothing can be fetched
	browse() {
		timeout 120 "$browser" --headless --disable-gpu --no-sandbox --hide-scrollbars --no-first-run \
			--disable-extensions --disable-background-networking --disable-component-update \
			"--host-resolver-rules=MAP * ~NOTFOUND" --proxy-server=127.0.0.1:9 \
			--enable-logging=stderr --v=0 "$@"
	}
	for page in h200 month sixty-four-gpus fleet; do
		# a test copy whose one script writes each chart's rendered size into the DOM
		sed -e "s/default-src 'none';/default-src 'none'; script-src 'unsafe-inline';/" \
		    -e 's|</body>|<script>var c=document.querySelectorAll("svg.chart");c.forEach(function(s){var r=s.getBoundingClientRect();s.setAttribute("data-rendered-w",r.width);s.setAttribute("data-rendered-h",r.height)});console.log("gputally-check "+c.length+" charts")</script></body>|' \
		    "$out/$page.html" >"$out/$page.probe.html"
		t0=$(date +%s%N)
		browse --window-size=1100,900 --virtual-time-budget=5000 --dump-dom \
			"file://$out/$page.probe.html" >"$out/$page.dom.html" 2>"$out/$page.chromium.log"
		t1=$(date +%s%N)
		browse --window-size=1100,2400 --screenshot="$out/$page.png" \
			"file://$out/$page.html" >/dev/null 2>>"$out/$page.chromium.log"
		grep -q 'gputally-check [0-9]* charts' "$out/$page.chromium.log" ||
			bad "$page: the browser's console was not captured (see $out/$page.chromium.log)"
		if grep 'CONSOLE' "$out/$page.chromium.log" | grep -v 'gputally-check' | grep .; then
			bad "$page: console messages in the browser"
		fi
		if grep -i 'Refused to\|net::ERR' "$out/$page.chromium.log" | grep .; then bad "$page: a request was attempted"; fi
		[ -s "$out/$page.png" ] || bad "$page: no screenshot"
		extra=
		[ "$page" = fleet ] && extra="--text-url $fu/ok"
		$check "$out/$page.dom.html" "$out/$page.json" --dom $extra || bad "$page: the rendered DOM"
		say "$page: rendered by $(basename "$browser") in $(( (t1 - t0) / 1000000 )) ms (load, layout, DOM dump); screenshot $out/$page.png"
	done
fi
[ $fail -eq 0 ] && say "all passed"
exit $fail
