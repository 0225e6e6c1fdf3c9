#!/bin/sh
# report --prometheus against a real Prometheus scraping three
# `gputally record --listen` on the fake NVML (2 GPUs each, a scripted
# workload), and against a fake server that misbehaves (tests/prom/badserver.py).
#   sh tests/prom/run.sh BIN BUILD_DIR
# PROM_LIVE_SECONDS (default 30) sets how long Prometheus scrapes.
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
obuild=$(cd "$2" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
fake=$obuild/fake-nvml/libnvidia-ml.so.1
live=${PROM_LIVE_SECONDS:-30}
pass=0 fail=0
export LC_ALL=C TZ=UTC
unset GPUTALLY_NVML_LIB
tmp=$(mktemp -d)
pids=""
cleanup() { for p in $pids; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; [ -n "$PROM_KEEP" ] && echo "kept $tmp" || rm -rf "$tmp"; }
trap cleanup EXIT
trap 'exit 1' INT TERM

ok() { pass=$((pass + 1)); [ -z "$PROM_VERBOSE" ] || echo "ok: $*"; }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
check() { if eval "$2"; then ok "$1"; else bad "$1"; fi; }
now_s() { date +%s.%N; }

if ! command -v prometheus >/dev/null; then
	echo "prom-tests: prometheus is not installed (scripts/install-deps.sh test)" >&2
	exit 1
fi
set -- $(python3 "$here/freeports.py" 5)
pport=$1 bport=$2 r1=$3 r2=$4 r3=$5

# The workloads: per node, per GPU, a constant utilization (%) and power (W);
# the fake's energy counter is the integral of its power.
# node GPU util power
cat >"$tmp/work.txt" <<EOW
1 0 80 300
1 1 0 90
2 0 50 250
2 1 100 400
3 0 30 200
3 1 60 350
EOW
for n in 1 2 3; do
	{
		echo "devices 2"
		echo "node $n"
		awk -v n=$n '$1 == n { printf "set %d util_gpu %d\nset %d power %d\nenergy %d power\n", $2, $3, $2, $4 * 1000, $2 }' "$tmp/work.txt"
	} >"$tmp/scen$n.txt"
done
start_rec() {	# NODE PORT
	FAKE_NVML_SCENARIO=$tmp/scen$1.txt "$bin" record -q --interval 1s --dir "$tmp/rec$1" --task t --host "node$1" \
		--listen "127.0.0.1:$2" --nvml-lib "$fake" 2>>"$tmp/rec$1.err" &
	eval "rec$1=$!"
	pids="$pids $!"
}

cat >"$tmp/prom.yml" <<EOY
global:
  scrape_interval: 1s
  scrape_timeout: 900ms
scrape_configs:
  - job_name: gputally
    static_configs:
      - targets: ['127.0.0.1:$r1', '127.0.0.1:$r2', '127.0.0.1:$r3']
EOY
prometheus --config.file="$tmp/prom.yml" --storage.tsdb.path="$tmp/tsdb" --web.listen-address="127.0.0.1:$pport" \
	--log.level=warn >"$tmp/prom.log" 2>&1 &
ppid=$!
pids="$pids $ppid"
purl=http://127.0.0.1:$pport
i=0
while [ $i -lt 100 ] && ! curl -sf -m 1 "$purl/-/ready" >/dev/null 2>&1; do sleep 0.2; i=$((i + 1)); done
check "prometheus is up" "curl -sf -m 2 $purl/-/ready >/dev/null"
# Prometheus hands targets to its scrapers some seconds after it is ready:
# start the recorders once all three have been tried (and found down)
i=0
while [ $i -lt 100 ] && [ "$(curl -s -m 1 "$purl/api/v1/targets" | grep -o '"health":"down"' | wc -l)" -lt 3 ]; do
	sleep 0.2
	i=$((i + 1))
done

t_start=$(now_s)
start_rec 1 "$r1"
start_rec 2 "$r2"
start_rec 3 "$r3"
# node 3's recorder dies a third of the way in and comes back at two thirds
sleep $((live / 3))
kill -9 "$rec3"
t_kill=$(now_s)
sleep $((live / 3))
start_rec 3 "$r3"
t_back=$(now_s)
sleep $((live - 2 * (live / 3)))
# one last scrape of everything, then stop the recorders
sleep 1.5
t_end=$(now_s)
kill "$rec1" "$rec2" "$rec3" 2>/dev/null
since=$(date -u -d "@$(echo "$t_start" | cut -d. -f1)" +%Y-%m-%dT%H:%M:%SZ)
until=$(date -u -d "@$(($(echo "$t_end" | cut -d. -f1) + 1))" +%Y-%m-%dT%H:%M:%SZ)
"$bin" report --prometheus "$purl" --since "$since" --until "$until" --step 1s --profile h200-vs-cloud --json >"$tmp/live.json" 2>"$tmp/live.err"
rc=$?
check "report --prometheus --json exits 0 ($(head -c 300 $tmp/live.err))" "[ $rc -eq 0 ]"
python3 "$here/check_live.py" "$tmp/live.json" "$tmp/work.txt" "$t_start" "$t_kill" "$t_back" "$t_end" >"$tmp/live.out" 2>&1
rc=$?
[ -n "$PROM_VERBOSE" ] && cat "$tmp/live.out"
check "live: 3 nodes, 6 GPUs, busy and energy within 5 %, the dead recorder a gap ($(grep -c '^ok' $tmp/live.out) ok; $(grep '^FAIL' $tmp/live.out | head -3 | tr '\n' ' '))" "[ $rc -eq 0 ]"
"$bin" report --prometheus "$purl" --since "$since" --until "$until" >"$tmp/live.txt" 2>&1
check "text report has the fleet table" "grep -q '^Fleet (' $tmp/live.txt && grep -q 'node3' $tmp/live.txt"
"$bin" report --prometheus "$purl" --since "$since" --until "$until" --markdown >"$tmp/live.md" 2>&1
check "markdown report has the fleet table" "grep -q '^## Fleet' $tmp/live.md"
"$bin" report --prometheus "$purl" --since "$since" --until "$until" --html "$tmp/live.html" --json >"$tmp/live2.json" 2>&1
check "html report: every figure equals the JSON's, no address but the server's as text" \
	"python3 $here/../html/check.py $tmp/live.html $tmp/live2.json --text-url $purl >$tmp/live.check 2>&1"
check "html report has the fleet table with the three nodes" \
	"grep -q '<section id=\"fleet\">' $tmp/live.html && [ \$(sed -n '/<section id=\"fleet\">/,/<\/section>/p' $tmp/live.html | grep -c '<code>node[123]</code>') -eq 3 ]"
"$bin" report --prometheus "$purl" --since "$since" --until "$until" --match '{host="node2"}' --json >"$tmp/m.json" 2>&1
check "--match narrows to one node" "python3 -c 'import json,sys; d=json.load(open(\"$tmp/m.json\")); sys.exit(not (len(d[\"fleet\"][\"nodes\"]) == 1 and d[\"fleet\"][\"nodes\"][0][\"node\"] == \"node2\"))'"
"$bin" report --prometheus "$purl" --since "$since" --until "$until" --match 'up' >/dev/null 2>"$tmp/m2.err"
check "--match without braces: usage error" "[ $? -ne 0 ] && grep -q 'selector in braces' $tmp/m2.err"
kill "$ppid" 2>/dev/null
wait "$ppid" 2>/dev/null

# The misbehaving servers
python3 "$here/badserver.py" "$bport" >"$tmp/bad.log" 2>&1 &
pids="$pids $!"
i=0
while [ $i -lt 50 ] && ! curl -sf -m 1 "http://127.0.0.1:$bport/ok/api/v1/targets" >/dev/null 2>&1; do sleep 0.1; i=$((i + 1)); done
printf 's3cr3t-token\n' >"$tmp/token"
printf 'pa55word\n' >"$tmp/pw"
b=http://127.0.0.1:$bport
rb() {	# NAME MODE [options]: report against the fake server in MODE
	name=$1 mode=$2
	shift 2
	"$bin" report --prometheus "$b/$mode" --since 2026-11-29T00:00:00Z --until 2026-11-29T00:10:00Z --step 10s \
		--timeout 3s --bearer-token-file "$tmp/token" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
	echo $? >"$tmp/$name.rc"
}
secret_free() { ! grep -q 's3cr3t-token\|pa55word' "$tmp/$1.out" "$tmp/$1.err"; }
rb ok ok --json
check "fake server: a good answer reads (2 GPUs)" "[ \$(cat $tmp/ok.rc) -eq 0 ] && python3 -c 'import json,sys; d=json.load(open(\"$tmp/ok.json\" if False else \"$tmp/ok.out\")); sys.exit(len(d[\"gpus\"]) != 2)'"
check "fake server: the token was sent" "grep -q 'auth=Bearer s3cr3t-token' $tmp/bad.log"
check "fake server: NaN, +Inf and a non-number are no reading, counted" \
	"python3 -c 'import json,sys; d=json.load(open(\"$tmp/ok.out\")); sys.exit(d[\"fleet\"][\"bad_values\"] != 3)'"
check "fake server: the token is in no output" "secret_free ok"
check "fake server: every sample on a step" "python3 -c 'import json,sys; sys.exit(json.load(open(\"$tmp/ok.out\"))[\"fleet\"][\"off_step_values\"] != 0)'"
rb notprom notprom
check "not Prometheus: exit 1, names the query" "[ \$(cat $tmp/notprom.rc) -eq 1 ] && grep -q '/api/v1/series' $tmp/notprom.err && grep -qi 'prometheus server' $tmp/notprom.err"
rb e404 e404
check "404: clear error" "[ \$(cat $tmp/e404.rc) -eq 1 ] && grep -q 'HTTP 404' $tmp/e404.err"
rb apierr apierr
check "API error: the server's message is shown" "[ \$(cat $tmp/apierr.rc) -eq 1 ] && grep -q 'bad_data: invalid parameter' $tmp/apierr.err"
rb trunc trunc --json
check "truncated JSON in a chunk: a gap, said, no crash" "[ \$(cat $tmp/trunc.rc) -eq 0 ] && grep -q 'is a gap for every GPU' $tmp/trunc.err && \
	python3 -c 'import json,sys; d=json.load(open(\"$tmp/trunc.out\")); sys.exit(d[\"fleet\"][\"failed_chunks\"] < 1)'"
rb e503 e503 --json
check "503 every time: retried, then a gap" "[ \$(cat $tmp/e503.rc) -eq 0 ] && grep -q 'HTTP 503.*after 3 tries' $tmp/e503.err && \
	[ \$(grep -c 'GET /e503/api/v1/query ' $tmp/bad.log) -ge 3 ]"
rb flaky flaky --json
check "503 once, then good: retried, no gap" "[ \$(cat $tmp/flaky.rc) -eq 0 ] && \
	python3 -c 'import json,sys; d=json.load(open(\"$tmp/flaky.out\")); f=d[\"fleet\"]; sys.exit(not (f[\"failed_chunks\"] == 0 and f[\"retries\"] >= 1))'"
# peak RSS of the refused pull (the answer is buffered up to its 64 MiB bound)
python3 -c '
import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$bin" report --prometheus "$b/huge" --since 1h --step 10s >"$tmp/huge.rss"
rb huge huge
check "a 1 GB body is refused clearly, in bounded memory ($(cat $tmp/huge.rss) KiB)" \
	"grep -q 'larger than 64 MiB: refused' $tmp/huge.err && [ \$(cat $tmp/huge.rss) -lt 200000 ]"
rb offstep offstep --json
check "samples outside the range asked for: counted, not read" \
	"python3 -c 'import json,sys; d=json.load(open(\"$tmp/offstep.out\")); sys.exit(not (d[\"fleet\"][\"off_step_values\"] > 0 and not d[\"gpus\"]))'"
start=$(date +%s)
rb slow slow
el=$(($(date +%s) - start))
check "a slow body times out (${el} s)" "grep -qi 'timeout\|timed out' $tmp/slow.err && [ $el -lt 30 ]"
rb redir redir
check "a redirect to another host is not followed, no credential sent there" \
	"[ \$(cat $tmp/redir.rc) -eq 1 ] && grep -q 'redirect to http://elsewhere.invalid' $tmp/redir.err && ! grep -q 'elsewhere' $tmp/bad.log && secret_free redir"
"$bin" report --prometheus "http://bob:pa55word@127.0.0.1:$bport/e404" --since 1h >"$tmp/cred.out" 2>"$tmp/cred.err"
check "credentials in the URL are redacted in errors" "grep -q 'http://\*\*\*@127.0.0.1' $tmp/cred.err && ! grep -q pa55word $tmp/cred.err"
rb basic ok --user bob --password-file "$tmp/pw" --json
check "basic auth from a password file, never printed" "[ \$(cat $tmp/basic.rc) -eq 0 ] && grep -q 'auth=Basic' $tmp/bad.log && secret_free basic"
"$bin" report --prometheus "$b/ok" --since 1h --bearer-token-file "$tmp/nofile" >/dev/null 2>"$tmp/nof.err"
check "a missing token file: clear error" "[ $? -ne 0 ] && grep -q 'bearer token file' $tmp/nof.err"
"$bin" report --since 1h examples/ >/dev/null 2>"$tmp/u.err"
check "--since without --prometheus: usage error" "[ $? -eq 2 ]"

# https: refused without the CA, read with --cacert or --insecure
if command -v openssl >/dev/null; then
	openssl req -x509 -newkey rsa:2048 -nodes -keyout "$tmp/key.pem" -out "$tmp/cert.pem" -days 2 \
		-subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 >/dev/null 2>&1
	set -- $(python3 "$here/freeports.py" 1)
	tport=$1
	python3 "$here/badserver.py" "$tport" "$tmp/cert.pem" "$tmp/key.pem" >"$tmp/tls.log" 2>&1 &
	pids="$pids $!"
	sleep 1
	tu=https://127.0.0.1:$tport/ok
	tls() { "$bin" report --prometheus "$tu" --since 2026-11-29T00:00:00Z --until 2026-11-29T00:10:00Z --step 10s "$@"; }
	tls >/dev/null 2>"$tmp/tls1.err"
	check "https with an unknown CA: refused, naming the query" "[ $? -eq 1 ] && grep -q '/api/v1/series' $tmp/tls1.err && grep -qi 'certificate' $tmp/tls1.err"
	tls --cacert "$tmp/cert.pem" --json >"$tmp/tls2.json" 2>"$tmp/tls2.err"
	check "https with --cacert" "[ $? -eq 0 ] && grep -q '\"prometheus-api\"' $tmp/tls2.json"
	tls --insecure --json >/dev/null 2>"$tmp/tls3.err"
	check "https with --insecure" "[ $? -eq 0 ]"
fi

# Seven days of 3 nodes x 8 GPUs in the three exporters' names (a restart, a
# counter reset, a 2-hour outage, Kubernetes labels), backfilled with
# promtool: the same audit as from the same readings written as files
if [ "${PROM_HISTORY:-1}" != 0 ] && command -v promtool >/dev/null; then
	h=$tmp/hist
	mkdir -p "$h"
	hend=$(($(date +%s) - 600))
	set -- $(python3 "$here/gen_history.py" "$h" "$hend" 7 300)
	hs=$(date -u -d "@$1" +%Y-%m-%dT%H:%M:%SZ) he=$(date -u -d "@$2" +%Y-%m-%dT%H:%M:%SZ)
	promtool tsdb create-blocks-from openmetrics "$h/history.om" "$h/tsdb" >"$h/promtool.log" 2>&1
	check "promtool backfills the week" "[ $? -eq 0 ]"
	rm -f "$h/history.om"
	printf 'global:\n  scrape_interval: 5m\n' >"$h/prom.yml"
	set -- $(python3 "$here/freeports.py" 1)
	hport=$1
	prometheus --config.file="$h/prom.yml" --storage.tsdb.path="$h/tsdb" --web.listen-address="127.0.0.1:$hport" \
		--log.level=warn >"$h/prom.log" 2>&1 &
	hpid=$!
	pids="$pids $hpid"
	hurl=http://127.0.0.1:$hport
	i=0
	while [ $i -lt 100 ] && ! curl -sf -m 1 "$hurl/-/ready" >/dev/null 2>&1; do sleep 0.2; i=$((i + 1)); done
	"$bin" report --prometheus "$hurl" --since "$hs" --until "$he" --step 5m --profile h200-vs-cloud --json \
		>"$h/prom.json" 2>"$h/prom.err"
	rc=$?
	check "history: report --prometheus exits 0 ($(head -c 200 $h/prom.err))" "[ $rc -eq 0 ]"
	"$bin" report --profile h200-vs-cloud --json "$h"/*.csv >"$h/files.json" 2>"$h/files.err"
	check "history: report on the files exits 0" "[ $? -eq 0 ]"
	python3 "$here/check_history.py" "$h/prom.json" "$h/files.json" "$h/expect.json" >"$h/check.out" 2>&1
	rc=$?
	[ -n "$PROM_VERBOSE" ] && cat "$h/check.out"
	check "history: states, energy and cost as from files within 1 %, pods and outage as written ($(grep -c '^ok' $h/check.out) ok; $(grep '^FAIL' $h/check.out | head -3 | tr '\n' ' '))" "[ $rc -eq 0 ]"
	# the fleet tables of the page and the Markdown: the JSON's rows, the total recounted
	"$bin" report --prometheus "$hurl" --since "$hs" --until "$he" --step 5m --profile h200-vs-cloud \
		--html "$h/prom.html" --markdown >"$h/prom.md" 2>"$h/html.err"
	check "history: --html and --markdown exit 0" "[ $? -eq 0 ]"
	check "history: every figure of the page equals the JSON's ($(python3 "$here/../html/check.py" "$h/prom.html" "$h/prom.json" --text-url "$hurl" 2>&1 | tail -1))" \
		"python3 $here/../html/check.py $h/prom.html $h/prom.json --text-url $hurl >/dev/null"
	python3 "$here/check_fleet_html.py" "$h/prom.html" "$h/prom.json" "$h/prom.md" >"$h/fleet.out" 2>&1
	rc=$?
	[ -n "$PROM_VERBOSE" ] && cat "$h/fleet.out"
	check "history: the page's and the Markdown's fleet tables ($(grep -c '^ok' $h/fleet.out) ok; $(grep '^FAIL' $h/fleet.out | head -3 | tr '\n' ' '))" "[ $rc -eq 0 ]"
	browser=$(command -v chromium || command -v chromium-browser)
	if [ -n "$browser" ]; then
		# rendered with no network and no script: the fleet table is in the DOM
		timeout 120 "$browser" --headless --disable-gpu --no-sandbox --no-first-run --disable-extensions \
			"--host-resolver-rules=MAP * ~NOTFOUND" --proxy-server=127.0.0.1:9 --enable-logging=stderr --v=0 \
			--dump-dom "file://$h/prom.html" >"$h/prom.dom.html" 2>"$h/chromium.log"
		check "history: chromium renders the fleet section, no request, no console message" \
			"grep -q '<section id=\"fleet\">' $h/prom.dom.html && ! grep -i 'Refused to\|net::ERR\|CONSOLE' $h/chromium.log | grep -q ."
	else
		echo "prom-tests: SKIP the browser check of the fleet page: chromium is not installed"
	fi
	# files and the server in one run: node b from the server, a and c from
	# their files; each GPU as in the server-only and the files-only report
	"$bin" report --prometheus "$hurl" --since "$hs" --until "$he" --step 5m --profile h200-vs-cloud \
		--match '{Hostname="gpu-node-b"}' --json "$h/gpu-node-a.csv" "$h/gpu-node-c.csv" >"$h/mix.json" 2>"$h/mix.err"
	rc=$?
	check "history: files and --prometheus in one run exit 0 ($(head -c 200 $h/mix.err))" "[ $rc -eq 0 ]"
	"$bin" report --prometheus "$hurl" --since "$hs" --until "$he" --step 5m --profile h200-vs-cloud \
		--match '{Hostname="gpu-node-b"}' --json >"$h/b.json" 2>/dev/null
	python3 - "$h/mix.json" "$h/b.json" "$h/files.json" >"$h/mix.out" 2>&1 <<'EOF2'
import json, sys
m, b, f = (json.load(open(x)) for x in sys.argv[1:4])
ref = {g["uuid"]: g for g in f["gpus"] if not g["uuid"].startswith("GPU-00000002")}
ref.update({g["uuid"]: g for g in b["gpus"]})
bad = [g["uuid"] for g in m["gpus"] if g["uuid"] not in ref or g["busy_s"] != ref[g["uuid"]]["busy_s"] or
       g["energy_j"] != ref[g["uuid"]]["energy_j"] or g["states"] != ref[g["uuid"]]["states"]]
nodes = sorted((n["node"], n["gpus"]) for n in m["fleet"]["nodes"])
ok = len(m["gpus"]) == 24 and len(ref) == 24 and not bad and nodes == [("(files)", 16), ("gpu-node-b", 8)]
print("%d GPUs, nodes %s, differing %s" % (len(m["gpus"]), nodes, bad[:2]))
sys.exit(not ok)
EOF2
	rc=$?
	check "history: mixed run, every GPU's states, busy and energy as read alone ($(cat $h/mix.out))" "[ $rc -eq 0 ]"
	"$bin" report --prometheus "$hurl" --since "$hs" --until "$he" --step 5m "$h/gpu-node-a.csv" >/dev/null 2>"$h/twice.err"
	check "history: a GPU both in a file and on the server is refused, named" \
		"[ $? -eq 2 ] && grep -q 'GPU GPU-00000001-0000-4000-8000-000000000000 is both in the files and on' $h/twice.err"
	printf 'timestamp, index, utilization.gpu [%%], power.draw [W]\n2026/11/29 10:00:00.000, 0, 50 %%, 300.00 W\n' >"$h/nouuid.csv"
	"$bin" report --prometheus "$hurl" --since "$hs" --until "$he" --step 5m "$h/nouuid.csv" >/dev/null 2>"$h/nouuid.err"
	check "history: a file GPU without a UUID beside a server is refused" "[ $? -eq 2 ] && grep -q 'needs a UUID' $h/nouuid.err"
	# many small chunks (a tiny memory bound) give the very same report
	GPUTALLY_PROM_CHUNK_BYTES=100000 "$bin" report --prometheus "$hurl" --since "$hs" --until "$he" --step 5m \
		--profile h200-vs-cloud --json >"$h/small.json" 2>&1
	check "history: 100 kB chunks give the same GPUs, segments, findings and fleet" "python3 -c '
import json, sys
a, b = (json.load(open(x)) for x in sys.argv[1:3])
sys.exit(not (b[\"fleet\"][\"chunks\"] > 50 and all(a[k] == b[k] for k in (\"gpus\", \"segments\", \"findings\")) and
              all(a[\"fleet\"][k] == b[\"fleet\"][k] for k in (\"nodes\", \"namespaces\", \"pods\"))))' $h/prom.json $h/small.json"
	kill "$hpid" 2>/dev/null
	wait "$hpid" 2>/dev/null
fi

# A source that stops (issue 28 case 4): the capture's rows replayed for two
# GPUs, one recorder killed, one 100-second outage, backfilled (no staleness
# markers): each GPU's data ends at its last real sample, not up to 5 minutes
# of lookback later, and the outage is a gap of its length
if [ "${PROM_HISTORY:-1}" != 0 ] && command -v promtool >/dev/null; then
	sp=$tmp/stop
	mkdir -p "$sp"
	set -- $(python3 "$here/gen_stop.py" "$sp" $(($(date +%s) - 600)))
	ss=$(date -u -d "@$1" +%Y-%m-%dT%H:%M:%SZ) se=$(date -u -d "@$2" +%Y-%m-%dT%H:%M:%SZ)
	promtool tsdb create-blocks-from openmetrics "$sp/stop.om" "$sp/tsdb" >"$sp/promtool.log" 2>&1
	check "stop: promtool backfills the capture" "[ $? -eq 0 ]"
	printf 'global:\n  scrape_interval: 1s\n' >"$sp/prom.yml"
	set -- $(python3 "$here/freeports.py" 1)
	surl=http://127.0.0.1:$1
	prometheus --config.file="$sp/prom.yml" --storage.tsdb.path="$sp/tsdb" --web.listen-address="127.0.0.1:$1" \
		--log.level=warn >"$sp/prom.log" 2>&1 &
	spid=$!
	pids="$pids $spid"
	i=0
	while [ $i -lt 100 ] && ! curl -sf -m 1 "$surl/-/ready" >/dev/null 2>&1; do sleep 0.2; i=$((i + 1)); done
	"$bin" report --prometheus "$surl" --since "$ss" --until "$se" --step 1s --json >"$sp/stop.json" 2>"$sp/stop.err"
	rc=$?
	check "stop: report --prometheus exits 0 ($(head -c 200 $sp/stop.err))" "[ $rc -eq 0 ]"
	python3 "$here/check_stop.py" "$sp/stop.json" "$sp/expect.json" >"$sp/check.out" 2>&1
	rc=$?
	[ -n "$PROM_VERBOSE" ] && cat "$sp/check.out"
	check "stop: data ends at the last real sample, the outage a gap of its length ($(grep -c '^ok' $sp/check.out) ok; $(grep '^FAIL' $sp/check.out | head -3 | tr '\n' ' '))" "[ $rc -eq 0 ]"
	kill "$spid" 2>/dev/null
	wait "$spid" 2>/dev/null
fi

# A day of dcgm-exporter with MIG: one H200 cut into 3g, 2g and 1g slices (a
# pod on the 1g one), one whole; each slice its own row under its GPU, its
# cost its share of the GPU's (tests/prom/check_mig.py recounts it)
if [ "${PROM_HISTORY:-1}" != 0 ] && command -v promtool >/dev/null; then
	mg=$tmp/mig
	mkdir -p "$mg"
	set -- $(python3 "$here/gen_mig.py" "$mg" $(($(date +%s) - 600)) 24 60)
	ms=$(date -u -d "@$1" +%Y-%m-%dT%H:%M:%SZ) me=$(date -u -d "@$2" +%Y-%m-%dT%H:%M:%SZ)
	promtool tsdb create-blocks-from openmetrics "$mg/mig.om" "$mg/tsdb" >"$mg/promtool.log" 2>&1
	check "mig: promtool backfills the day" "[ $? -eq 0 ]"
	printf 'global:\n  scrape_interval: 1m\n' >"$mg/prom.yml"
	set -- $(python3 "$here/freeports.py" 1)
	murl=http://127.0.0.1:$1
	prometheus --config.file="$mg/prom.yml" --storage.tsdb.path="$mg/tsdb" --web.listen-address="127.0.0.1:$1" \
		--log.level=warn >"$mg/prom.log" 2>&1 &
	mpid=$!
	pids="$pids $mpid"
	i=0
	while [ $i -lt 100 ] && ! curl -sf -m 1 "$murl/-/ready" >/dev/null 2>&1; do sleep 0.2; i=$((i + 1)); done
	"$bin" report --prometheus "$murl" --since "$ms" --until "$me" --step 1m --profile h200-vs-cloud --json \
		--html "$mg/mig.html" >"$mg/mig.json" 2>"$mg/mig.err"
	rc=$?
	check "mig: report --prometheus exits 0 ($(head -c 200 $mg/mig.err))" "[ $rc -eq 0 ]"
	python3 "$here/check_mig.py" "$mg/mig.json" "$mg/expect_mig.json" >"$mg/check.out" 2>&1
	rc=$?
	[ -n "$PROM_VERBOSE" ] && cat "$mg/check.out"
	check "mig: slices under their GPU, busy and idle as written, cost by share ($(grep -c '^ok' $mg/check.out) ok; $(grep '^FAIL' $mg/check.out | head -3 | tr '\n' ' '))" "[ $rc -eq 0 ]"
	check "mig: the page's figures equal the JSON's, the MIG table shown" \
		"python3 $here/../html/check.py $mg/mig.html $mg/mig.json --text-url $murl >/dev/null && grep -q '<h3>MIG slices</h3>' $mg/mig.html && grep -q 'data-key=\"fleet.mig.0.slices.2.cost\"' $mg/mig.html"
	"$bin" report --prometheus "$murl" --since "$ms" --until "$me" --step 1m --profile h200-vs-cloud --markdown >"$mg/mig.md" 2>&1
	check "mig: the Markdown lists the slices under their GPU" \
		"grep -q '^| \*\*GPU-0000000m-0000-4000-8000-000000000000\*\* | unsliced' $mg/mig.md && grep -q '^| GI 13 | 1g.18gb | 0.143 |' $mg/mig.md"
	GPUTALLY_PROM_CHUNK_BYTES=100000 "$bin" report --prometheus "$murl" --since "$ms" --until "$me" --step 1m \
		--profile h200-vs-cloud --json >"$mg/small.json" 2>&1
	check "mig: 100 kB chunks give the same GPUs, slices and pods" "python3 -c '
import json, sys
a, b = (json.load(open(x)) for x in sys.argv[1:3])
sys.exit(not (b[\"fleet\"][\"chunks\"] > 5 and a[\"gpus\"] == b[\"gpus\"] and
              all(a[\"fleet\"][k] == b[\"fleet\"][k] for k in (\"mig\", \"pods\", \"nodes\"))))' $mg/mig.json $mg/small.json"
	kill "$mpid" 2>/dev/null
	wait "$mpid" 2>/dev/null
fi

echo "prom-tests: $pass passed, $fail failed"
[ $fail -eq 0 ]
