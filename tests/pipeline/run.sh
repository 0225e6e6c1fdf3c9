#!/bin/sh
# One bad-line policy for every command that reads logs (man gputally, BAD
# INPUT LINES; src/pipeline/pipeline.h): the same input with bad lines gives
# the same file:line:col lines, the same count line and, under --strict, the
# same stop and exit status, whichever command reads it.
# The background is the real H200 capture (examples/h200-training), with a
# utilization cell spoiled in 25 of its rows.
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$(cd "$(dirname "$0")/../.." && pwd)
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
export LC_ALL=C TZ=UTC
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1

src="$root/examples/h200-training/query_gpu_units_500ms.csv"
# every 10th data row from the 5th on, 25 of them: "utilization.gpu" becomes x1 %, x2 % ...
awk -F', ' 'BEGIN { OFS = ", " } NR == 1 { print; next } { n++ } n % 10 == 5 && k < 25 { k++; $7 = "x" k " %" } { print }' \
	"$src" >bad.csv
awk -F', ' 'BEGIN { OFS = ", " } NR == 1 { print; next } { n++ } n == 7 { $7 = "oops %" } { print }' \
	"$src" >one.csv
[ "$(grep -c ', x[0-9]* %, ' bad.csv)" = 25 ] && ok || bad "the input does not hold 25 bad rows"

NOW=2026-11-29T23:00:00Z
# name|command line (the input is appended)|exit status without --strict|under --strict
cat >cmds <<EOT
report|report|0|3
report-json|report --json|0|3
report-markdown|report --markdown|0|3
alert|alert --now $NOW|0|2
scale|scale --logs|0|3
trace|trace|0|3
dump|dump|0|3
ingest|ingest --db s.db|0|3
EOT

positions() { grep -E '^[^ ]+:[0-9]+:[0-9]+: ' "$1"; }

# --- lenient: the first 20 with their position, then the count ---
"$bin" report bad.csv >/dev/null 2>ref.err
positions ref.err >ref.pos
[ "$(wc -l <ref.pos)" = 20 ] && ok || bad "report shows $(wc -l <ref.pos) bad lines, want the first 20"
head -1 ref.pos | grep -q '^bad.csv:[0-9]*:[0-9]*: ' && ok || bad "no file:line:col: $(head -1 ref.pos)"
want_count="gputally: 25 input line(s) skipped (the first 20 above; 'gputally report' lists 1000)"
while IFS='|' read -r name cmd rc_ok rc_strict; do
	rm -f s.db
	# shellcheck disable=SC2086
	"$bin" $cmd bad.csv >"$name.out" 2>"$name.err"
	rc=$?
	[ "$rc" = "$rc_ok" ] && ok || bad "$name: exit $rc, want $rc_ok: $(head -3 "$name.err")"
	positions "$name.err" | grep -v ' lines, [0-9]* records' >"$name.pos"
	cmp -s ref.pos "$name.pos" && ok || bad "$name: other bad lines than report's: $(diff ref.pos "$name.pos" | head -4)"
	[ "$(grep -c 'input line(s) skipped' "$name.err")" = 1 ] && grep -qxF "$want_count" "$name.err" && ok ||
		bad "$name: count line: $(grep 'skipped' "$name.err")"

	# --- --strict: the first bad line, the stop, one exit status ---
	rm -f s.db
	# shellcheck disable=SC2086
	"$bin" $cmd --strict bad.csv >"$name.sout" 2>"$name.serr"
	rc=$?
	[ "$rc" = "$rc_strict" ] && ok || bad "$name --strict: exit $rc, want $rc_strict"
	positions "$name.serr" >"$name.spos"
	head -1 ref.pos | cmp -s - "$name.spos" && ok || bad "$name --strict: $(cat "$name.spos")"
	grep -q '^gputally: error: stopping at the first bad line (--strict)' "$name.serr" && ok ||
		bad "$name --strict: no stop message: $(cat "$name.serr")"
	grep -q 'input line(s) skipped' "$name.serr" && bad "$name --strict: a count after the stop" || ok
done <cmds

# --- one bad line: shown, and "(above)" ---
for cmd in "report" "alert --now $NOW" "scale --logs" "dump"; do
	# shellcheck disable=SC2086
	"$bin" $cmd one.csv >/dev/null 2>one.err
	[ "$(positions one.err | grep -cv ' lines, ')" = 1 ] && grep -qx 'gputally: 1 input line(s) skipped (above)' one.err && ok ||
		bad "$cmd with one bad line: $(cat one.err)"
done

# --- what is kept: all 25 counted, the report lists them; the store counts them ---
python3 - report-json.out <<'PY' && ok || bad "report --json does not keep the 25 bad lines"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["skipped_lines"] == 25, j["skipped_lines"]
assert len(j["skipped"]) == 25 and j["skipped"][0]["path"] == "bad.csv", j["skipped"][:1]
PY
rm -f s.db
"$bin" ingest --db s.db bad.csv >/dev/null 2>&1
"$bin" report --db s.db --json >db.out 2>db.err
rc=$?
[ $rc = 0 ] && python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
assert [i["skipped"] for i in j["inputs"]] == [25], j["inputs"]
' db.out && ok || bad "report --db: exit $rc, the stored file's 25 skipped lines: $(head -3 db.err)"
# under --strict, ingest stores nothing of the run
rm -f s.db
"$bin" ingest --db s.db --strict bad.csv >/dev/null 2>&1
"$bin" report --db s.db --json 2>/dev/null | python3 -c '
import json, sys
assert json.load(sys.stdin)["inputs"] == []' && ok || bad "ingest --strict stored the run"

# --- scale --app-log: the application log's bad lines go by the same policy ---
# the capture's own app log, "samples_per_s" spoiled in 25 of its step rows
# (every 10th step from the 5th on); the GPU logs themselves are clean
E="$root/examples/h200-training"
awk '/"event": "step"/ { n++; if (n % 10 == 5 && k < 25) { k++; sub(/"samples_per_s": [0-9.e+-]*/, "\"samples_per_s\": \"x" k "\"") } } { print }' \
	"$E/app_log.jsonl" >app.jsonl
[ "$(grep -c '"samples_per_s": "x' app.jsonl)" = 25 ] && ok || bad "the app log does not hold 25 bad rows"
"$bin" scale --logs --app-log app.jsonl "$E/pmon_um_DT.log" "$E/dmon_pucvmet_DT.log" >app.out 2>app.err
rc=$?
[ $rc = 0 ] && ok || bad "scale --app-log: exit $rc: $(head -3 app.err)"
positions app.err >app.pos
[ "$(wc -l <app.pos)" = 20 ] && [ "$(grep -c '^app.jsonl:[0-9]*:[0-9]*: the throughput is not a number$' app.pos)" = 20 ] && ok ||
	bad "scale --app-log shows $(wc -l <app.pos) bad lines, want the first 20 as file:line:col: $(head -2 app.pos)"
first=$(grep -n '"samples_per_s": "x1"' app.jsonl | cut -d: -f1)
head -1 app.pos | grep -q "^app.jsonl:$first:[0-9]*: " && ok || bad "scale --app-log: first is not line $first: $(head -1 app.pos)"
[ "$(grep -c 'skipped' app.err)" = 1 ] && grep -qxF "$want_count" app.err && ok ||
	bad "scale --app-log count line: $(grep 'skipped' app.err)"
"$bin" scale --logs --strict --app-log app.jsonl "$E/pmon_um_DT.log" "$E/dmon_pucvmet_DT.log" >app.sout 2>app.serr
rc=$?
[ $rc = 3 ] && ok || bad "scale --app-log --strict: exit $rc, want 3"
[ "$(positions app.serr)" = "$(head -1 app.pos)" ] && ok || bad "scale --app-log --strict: $(positions app.serr)"
grep -q '^gputally: error: stopping at the first bad line (--strict)' app.serr && ok ||
	bad "scale --app-log --strict: no stop message: $(cat app.serr)"
grep -q 'skipped' app.serr && bad "scale --app-log --strict: a count after the stop" || ok

echo "pipeline: $pass passed, $fail failed"
[ $fail -eq 0 ]
