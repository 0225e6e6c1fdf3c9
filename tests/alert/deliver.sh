#!/bin/sh
# gputally alert --alertmanager and --webhook: delivery to a real Alertmanager
# (Debian's prometheus-alertmanager, started here on loopback) that routes to
# a local receiver, and straight to that receiver as JSON, Slack and Teams
# bodies; retries, the time limit, and no credential in any message.
#   sh tests/alert/deliver.sh BIN
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
here=$(cd "$(dirname "$0")" && pwd)
d=$here/data
pass=0 fail=0
export LC_ALL=C TZ=UTC
tmp=$(mktemp -d)
pids=""
cleanup() { for p in $pids; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
check() { if eval "$2"; then ok; else bad "$1"; fi; }

if ! command -v prometheus-alertmanager >/dev/null; then
	echo "alert-deliver: prometheus-alertmanager is not installed (scripts/install-deps.sh test)" >&2
	exit 1
fi
set -- $(python3 "$here/../prom/freeports.py" 5)
am=$1 hook=$2 direct=$3 flaky=$4 slow=$5

# the receiver Alertmanager routes to, and one for direct posts
python3 "$here/receiver.py" "$hook" "$tmp/hook.log" & pids="$pids $!"
python3 "$here/receiver.py" "$direct" "$tmp/direct.log" & pids="$pids $!"
cat >"$tmp/am.yml" <<YML
route:
  receiver: hook
  group_by: [alertname, gpu]
  group_wait: 1s
  group_interval: 1s
  repeat_interval: 1h
receivers:
  - name: hook
    webhook_configs:
      - url: http://127.0.0.1:$hook/am
        send_resolved: true
YML
prometheus-alertmanager --config.file="$tmp/am.yml" --storage.path="$tmp/am-data" \
	--web.listen-address="127.0.0.1:$am" --cluster.listen-address= >"$tmp/am.out" 2>&1 &
pids="$pids $!"
i=0
while [ $i -lt 100 ] && ! curl -sf -m 1 "http://127.0.0.1:$am/-/ready" >/dev/null 2>&1; do sleep 0.2; i=$((i + 1)); done
check "alertmanager is up ($(tail -3 "$tmp/am.out"))" "curl -sf -m 2 http://127.0.0.1:$am/-/ready >/dev/null"

P="--profile h200-vs-cloud"
T=2026-11-29T10:00

# 1. Alertmanager: xid.csv fires gpu_down twice and xid_fatal twice (tests/alert/run.sh
# works them out). Its data end at 10:01:40 (the Xid 48): the GPU down from :30 to
# then and the Xid 48 are still firing, posted without endsAt; the first down
# [:02, :03) and the Xid 79 burst [:02, :30] are over, posted with endsAt, and
# Alertmanager's API lists only the active ones.
"$bin" alert $P --now ${T}:05Z --alertmanager "http://127.0.0.1:$am" --label team=ml "$d/xid.csv" \
	>"$tmp/am1.out" 2>"$tmp/am1.err"
rc=$?
check "alertmanager: exit 1 (fired, delivered) ($(cat "$tmp/am1.err"))" "[ $rc -eq 1 ]"
curl -sf "http://127.0.0.1:$am/api/v2/alerts?active=true&silenced=true&inhibited=true&unprocessed=true" >"$tmp/am-active.json"
python3 - "$tmp/am-active.json" <<'PY' && ok || bad "alertmanager: the active alerts and their labels"
import json, sys
a = json.load(open(sys.argv[1]))
got = sorted((x["labels"]["alertname"], x["labels"]["gpu"], x["labels"]["severity"], x["labels"]["team"],
              x["annotations"]["value"]) for x in a)
want = [("GputallyGpuDown", "gpu0", "critical", "ml", "70"), ("GputallyXidFatal", "gpu0", "critical", "ml", "48")]
assert got == want, got
x = {x["labels"]["alertname"]: x for x in a}["GputallyXidFatal"]
assert x["startsAt"].startswith("2026-11-29T10:01:40"), x["startsAt"]
PY
# the body as posted: the receiver stands in for Alertmanager
"$bin" alert $P --now ${T}:05Z --alertmanager "http://127.0.0.1:$direct/" "$d/xid.csv" >/dev/null 2>&1
python3 - "$tmp/direct.log" <<'PY' && ok || bad "alertmanager body: path, endsAt only on what is over"
import json, sys
r = [json.loads(l) for l in open(sys.argv[1])][-1]
assert r["path"] == "/api/v2/alerts", r["path"]
got = [(x["labels"]["alertname"], x["annotations"]["value"], x["startsAt"][:19], x.get("endsAt", "")[:19]) for x in json.loads(r["body"])]
want = [("GputallyGpuDown", "1", "2026-11-29T10:00:02", "2026-11-29T10:00:03"),
        ("GputallyXidFatal", "79", "2026-11-29T10:00:02", "2026-11-29T10:00:30"),
        ("GputallyGpuDown", "70", "2026-11-29T10:00:30", ""),
        ("GputallyXidFatal", "48", "2026-11-29T10:01:40", "")]
assert got == want, got
assert json.loads(r["body"])[1]["annotations"]["count"] == "2"
PY
: >"$tmp/direct.log"
# and Alertmanager routed the active one to its receiver
i=0
while [ $i -lt 50 ] && ! grep -q GputallyXidFatal "$tmp/hook.log" 2>/dev/null; do sleep 0.2; i=$((i + 1)); done
check "alertmanager routed the alert to its webhook receiver" "grep -q '\"/am\"' $tmp/hook.log && grep -q GputallyXidFatal $tmp/hook.log"

# 2. a silence in Alertmanager holds the next run's alert back
amtool --alertmanager.url="http://127.0.0.1:$am" silence add alertname=GputallyXidFatal \
	--comment=test --author=gputally-tests --duration=1h >/dev/null 2>&1
"$bin" alert $P --now ${T}:05Z --alertmanager "http://127.0.0.1:$am" "$d/xid.csv" >/dev/null 2>&1
curl -sf "http://127.0.0.1:$am/api/v2/alerts?active=true&silenced=true" >"$tmp/am-sil.json"
python3 -c 'import json,sys; a=json.load(open(sys.argv[1])); s=[x["status"]["state"] for x in a if x["labels"]["alertname"]=="GputallyXidFatal"]; assert s==["suppressed"]*len(s) and s, s' \
	"$tmp/am-sil.json" && ok || bad "alertmanager: the silence suppresses it ($(head -c 300 "$tmp/am-sil.json"))"

# 3. nothing fired: nothing posted, exit 0
before=$(wc -l <"$tmp/direct.log" 2>/dev/null || echo 0)
"$bin" alert $P --now ${T}:12Z --webhook "http://127.0.0.1:$direct/q" "$d/quiet.csv" >/dev/null 2>&1
rc=$?
check "quiet: exit 0" "[ $rc -eq 0 ]"
check "quiet: nothing posted" "[ $(wc -l <"$tmp/direct.log" 2>/dev/null || echo 0) -eq $before ]"

# 4. webhook bodies: the --json document, Slack and Teams
"$bin" alert $P --now ${T}:05Z --json "$d/xid.csv" >"$tmp/xid.json" 2>/dev/null
for f in json slack teams; do
	"$bin" alert $P --now ${T}:05Z --webhook "http://127.0.0.1:$direct/$f" --webhook-format $f "$d/xid.csv" \
		>/dev/null 2>"$tmp/$f.err"
	rc=$?
	check "webhook $f: exit 1 ($(cat "$tmp/$f.err"))" "[ $rc -eq 1 ]"
done
python3 - "$tmp/direct.log" "$tmp/xid.json" <<'PY' && ok || bad "webhook bodies"
import json, sys
reqs = {json.loads(l)["path"]: json.loads(l) for l in open(sys.argv[1])}
want = json.load(open(sys.argv[2]))
j = json.loads(reqs["/json"]["body"])
assert j == want, "json body differs from alert --json"
assert reqs["/json"]["headers"].get("Content-Type") == "application/json"
s = json.loads(reqs["/slack"]["body"])["text"].split("\n")
assert s[0] == "gputally: 4 alerts fired", s[0]
assert any(l.startswith("- CRITICAL xid_fatal gpu0: ") and "(still firing)" in l for l in s), s
assert sum(l.startswith("- ") for l in s) == 4, s
assert sum("(still firing)" in l for l in s) == 2, s
t = json.loads(reqs["/teams"]["body"])
c = t["attachments"][0]
assert t["type"] == "message" and c["contentType"] == "application/vnd.microsoft.card.adaptive"
texts = [b["text"] for b in c["content"]["body"]]
assert texts[0] == "gputally: 4 alerts fired" and len(texts) == 5, texts
PY

# 5. retries: a receiver that answers 503 twice is reached on the third try
python3 "$here/receiver.py" "$flaky" "$tmp/flaky.log" 2 & pids="$pids $!"
sleep 0.5
"$bin" alert $P --now ${T}:05Z --webhook "http://127.0.0.1:$flaky/x" --retry-wait 0.1 "$d/xid.csv" >/dev/null 2>"$tmp/flaky.err"
rc=$?
check "retries: delivered on the third attempt (exit 1) ($(cat "$tmp/flaky.err"))" "[ $rc -eq 1 ] && [ \$(wc -l <$tmp/flaky.log) -eq 3 ]"
"$bin" alert $P --now ${T}:05Z --webhook "http://127.0.0.1:$flaky/x" --retries 0 "$d/xid.csv" >/dev/null 2>&1
# (the receiver's failures are spent: one attempt, delivered)
check "retries 0: one attempt" "[ \$(wc -l <$tmp/flaky.log) -eq 4 ]"

# 6. a receiver slower than --send-timeout: exit 2 after 1 + retries attempts, the alerts still printed
python3 "$here/receiver.py" "$slow" "$tmp/slow.log" 0 5 & pids="$pids $!"
sleep 0.5
start=$(date +%s)
"$bin" alert $P --now ${T}:05Z --webhook "http://127.0.0.1:$slow/x" --send-timeout 0.5 --retries 1 --retry-wait 0.1 \
	"$d/xid.csv" >"$tmp/slow.out" 2>"$tmp/slow.err"
rc=$?
took=$(( $(date +%s) - start ))
check "timeout: exit 2 ($rc: $(cat "$tmp/slow.err"))" "[ $rc -eq 2 ]"
check "timeout: two attempts, bounded ($took s)" "[ \$(wc -l <$tmp/slow.log) -eq 2 ] && [ $took -lt 5 ]"
check "timeout: the alerts are still printed" "[ \$(wc -l <$tmp/slow.out) -eq 4 ]"
check "timeout: the message says what failed" "grep -q 'webhook http://127.0.0.1:$slow/...: .*[Tt]imeout' $tmp/slow.err"

# 7. no credential printed: user, password, path and query stay out of every message
"$bin" alert $P --now ${T}:05Z --retries 0 --webhook "http://bob:s3cret@127.0.0.1:1/services/T0/B0/tok3n?key=k3y" \
	--alertmanager "http://amuser:amp4ss@127.0.0.1:1" "$d/xid.csv" >"$tmp/cred.out" 2>"$tmp/cred.err"
rc=$?
check "credentials: refused connection is exit 2" "[ $rc -eq 2 ]"
check "credentials: both destinations named ($(cat "$tmp/cred.err"))" "grep -q 'alertmanager http://127.0.0.1:1:' $tmp/cred.err && grep -q 'webhook http://127.0.0.1:1/...:' $tmp/cred.err"
check "credentials: none printed" "! grep -qE 's3cret|bob|tok3n|k3y|amuser|amp4ss' $tmp/cred.err $tmp/cred.out"

# 8. usage errors
"$bin" alert --webhook-format xml "$d/xid.csv" >/dev/null 2>&1; rc=$?
check "--webhook-format xml: usage error" "[ $rc -eq 2 ]"
"$bin" alert --label 'bad-key=1' "$d/xid.csv" >/dev/null 2>&1; rc=$?
check "--label with a bad name: usage error" "[ $rc -eq 2 ]"
"$bin" alert --prometheus-rules --webhook http://127.0.0.1:1 >/dev/null 2>&1; rc=$?
check "--prometheus-rules with --webhook: usage error" "[ $rc -eq 2 ]"

echo "alert-deliver: $pass passed, $fail failed"
[ $fail -eq 0 ]
