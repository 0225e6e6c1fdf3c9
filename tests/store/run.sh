#!/bin/sh
# The history store end to end (docs/store.md): ingest, idempotence, grown
# and compressed files, refusals, migration, a kill during ingest, a reader
# during ingest, and trend / report --db against figures recounted here in
# Python from the inputs themselves (never from the program's own output).
# Usage: sh tests/store/run.sh BIN GEN-LOGS INJECT-LIB
set -eu
BIN=$1
GEN=$2
INJECT=$(cd "$(dirname "$3")" && pwd)/$(basename "$3")
EX=examples/h200-training
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT INT TERM
export TZ=UTC
fails=0
pass() { echo "ok   $1"; }
fail() { echo "FAIL $1"; fails=$((fails + 1)); }
check() {	# check NAME COMMAND...: pass when the command succeeds
	name=$1
	shift
	if "$@" >"$T/out" 2>&1; then pass "$name"; else fail "$name"; sed 's/^/     /' "$T/out"; fi
}
count() { sqlite3 "$1" "$2"; }

# ---- 1. the bundled capture: report --db equals report on the files ----------
"$BIN" ingest --db "$T/h.db" "$EX" >"$T/ingest1.txt"

# trend --cloud-catalog: report's rule on the store's GPU model (NVIDIA H200:
# the 6 H200 rows of the Nebius catalogue, each 3.50 per GPU-hour)
CAT=tests/golden/5053-report-cloud-catalog/nebius-vms-2025-06-01.csv
"$BIN" trend --db "$T/h.db" --cloud-catalog "$CAT" >"$T/trend-cat.txt"
check "trend --cloud-catalog: the rate, its rows and the store's model in the text" grep -qx \
	"cloud: 3.50 per GPU-hour from nebius-vms-2025-06-01.csv (2025-06-01, from the file name): median of 6 H200 row(s), 3.50-3.50, for NVIDIA H200" \
	"$T/trend-cat.txt"
"$BIN" trend --db "$T/h.db" --json --set cloud_catalog="$CAT" >"$T/trend-cat.json"
"$BIN" trend --db "$T/h.db" --json --set cloud_hourly_rate=3.5 >"$T/trend-35.json"
"$BIN" trend --db "$T/h.db" --json --set cloud_hourly_rate=7 >"$T/trend-7.json"
"$BIN" trend --db "$T/h.db" --json --set cloud_catalog="$CAT" --set cloud_hourly_rate=7 >"$T/trend-cat-set.json"
check "trend --cloud-catalog: rented as with --set cloud_hourly_rate=3.5; a --set rate wins" python3 - "$T/trend-cat.json" "$T/trend-7.json" "$T/trend-cat-set.json" "$T/trend-35.json" <<'EOF2'
import json, sys
c, s, cs, s35 = (json.load(open(f)) for f in sys.argv[1:5])
k = c["catalog"]
assert (k["gpu_name"], k["accelerator"], k["matched_rows"], k["median"], k["used"]) == ("NVIDIA H200", "H200", 6, 3.5, True), k
assert cs["catalog"]["used"] is False and s["catalog"] is None
r, r7 = c["total"]["rented_cost"], s["total"]["rented_cost"]
assert r == s35["total"]["rented_cost"] and r7 > r > 0, (r, r7)
assert [b["rented_cost"] for b in c["buckets"]] == [b["rented_cost"] for b in s35["buckets"]]
assert cs["total"]["rented_cost"] == r7, (cs["total"]["rented_cost"], r7)
EOF2
"$BIN" trend --db "$T/h.db" --csv --set cloud_catalog="$CAT" >"$T/trend-cat.csv"
"$BIN" trend --db "$T/h.db" --csv --by task --profile h200-vs-cloud >"$T/trend-nocat.csv"
check "trend --csv: every row carries the JSON's catalogue, profile and powers" python3 - "$T/trend-cat.json" "$T/trend-cat.csv" "$T/trend-nocat.csv" <<'EOF2'
import csv, json, sys
j = json.load(open(sys.argv[1]))
rows = list(csv.DictReader(open(sys.argv[2])))
assert len(rows) == len(j["buckets"]) > 0, (len(rows), len(j["buckets"]))
k = j["catalog"]
for r, b in zip(rows, j["buckets"]):
    assert r["label"] == b["label"] and float(r["owned_cost"]) == b["owned_cost"], (r, b)
    for key in ("file", "date", "date_from", "rows", "bad_rows", "gpu_name", "accelerator", "matched_rows"):
        assert r["catalog_" + key] == str(k[key]), (key, r["catalog_" + key], k[key])
    for key in ("median", "min", "max"):
        assert float(r["catalog_" + key]) == k[key], key
    assert r["catalog_used"] == str(k["used"]).lower(), r["catalog_used"]
    assert float(r["idle_power_w"]) == j["idle_power_w"] and float(r["busy_power_w"]) == j["busy_power_w"], r
    assert r["tz"] == j["tz"] and r["profile"] == (j["profile"] or "") and r["currency"] == (j["currency"] or ""), r
t = list(csv.DictReader(open(sys.argv[3])))
assert t and all(r["profile"] == "h200-vs-cloud" and r["catalog_file"] == "" and r["catalog_used"] == "" for r in t), t
EOF2
"$BIN" trend --db "$T/h.db" --cloud-catalog "$CAT" --gpu 5 >"$T/trend-cat-none.txt"
check "trend --cloud-catalog: no GPU in the window, no rate, said so" grep -q \
	"^cloud: nebius-vms-2025-06-01.csv (2025-06-01) has no accelerator matching the GPU (the store names no GPU model)" \
	"$T/trend-cat-none.txt"
"$BIN" report --json "$EX" >"$T/files.json"
"$BIN" report --db "$T/h.db" --json >"$T/db.json"
"$BIN" report --json --profile h200-vs-cloud "$EX" >"$T/files-cost.json"
"$BIN" report --db "$T/h.db" --json --profile h200-vs-cloud >"$T/db-cost.json"
"$BIN" trend --db "$T/h.db" --json --profile h200-vs-cloud >"$T/trend-cost.json"
check "report --db: the same cost, waterfall and verdict as report on the files" python3 - "$T/files-cost.json" "$T/db-cost.json" "$T/trend-cost.json" <<'EOF'
import json, sys
a, b, t = (json.load(open(p)) for p in sys.argv[1:4])
ca, cb = a["cost"], b["cost"]
for k in ("local_cost", "cloud_cost", "local_energy", "local_fixed"):
    assert abs(ca["window"][k] - cb["window"][k]) <= 0.005 * abs(ca["window"][k]) + 1e-9, (k, ca["window"][k], cb["window"][k])
for x, y in zip(ca["waterfall"], cb["waterfall"]):
    assert x["state"] == y["state"] and abs(x["cost"] - y["cost"]) <= 0.005 * x["cost"] + 1e-9, (x, y)
assert ca["verdict"] == cb["verdict"], (ca["verdict"], cb["verdict"])
# trend's total: owned = the window's local cost, idle money = local cost - useful cost
tot = t["total"]
assert abs(tot["owned_cost"] - ca["window"]["local_cost"]) <= 0.005 * ca["window"]["local_cost"], (tot, ca["window"])
idle = ca["window"]["local_cost"] - ca["useful_cost"]
assert abs(tot["idle_cost"] - idle) <= 0.005 * idle, (tot["idle_cost"], idle)
assert abs(tot["rented_cost"] - ca["window"]["cloud_cost"]) <= 0.005 * ca["window"]["cloud_cost"], (tot, ca["window"])
EOF
check "report --db: states and energy within 1 % of report on the files" python3 - "$T/files.json" "$T/db.json" <<'EOF'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
assert len(a["gpus"]) == len(b["gpus"]) == 1, (len(a["gpus"]), len(b["gpus"]))
def close(x, y, what):
    if abs(x - y) > 0.01 * max(abs(x), 1e-9) + 1e-3:
        raise SystemExit(f"{what}: files {x} store {y}")
for ga, gb in zip(a["gpus"], b["gpus"]):
    assert ga["uuid"] == gb["uuid"]
    for k in ("covered_s", "busy_s", "energy_j"):
        close(ga[k], gb[k], k)
    for s, v in ga["states"].items():
        close(v["seconds"], gb["states"][s]["seconds"], s + " seconds")
        close(v["energy_j"], gb["states"][s]["energy_j"], s + " energy")
ka = sorted((f["kind"], f["start"]) for f in a["findings"])
kb = sorted((f["kind"], f["start"]) for f in b["findings"])
assert ka == kb, (ka, kb)
EOF

# ---- 2. twice: nothing added -------------------------------------------------
before=$(count "$T/h.db" "SELECT count(*), sum(covered_ms) FROM minutes; SELECT count(*) FROM files; SELECT count(*) FROM findings")
"$BIN" ingest --db "$T/h.db" "$EX" >"$T/ingest2.txt"
after=$(count "$T/h.db" "SELECT count(*), sum(covered_ms) FROM minutes; SELECT count(*) FROM files; SELECT count(*) FROM findings")
check "ingest twice: the store is unchanged" test "$before" = "$after"
check "ingest twice: every log is 'already there'" grep -q "^ingest: 0 new, 0 grown, 7 already there" "$T/ingest2.txt"

# ---- 3. a file that grew adds only its new part; a gzip'ed copy is known ----
# dmon of the capture: the first 120 rows, then the whole file
src=$EX/dmon_pucvmet_DT.log
head -n 122 "$src" >"$T/grow.log"
"$BIN" ingest --db "$T/g.db" "$T/grow.log" >/dev/null
m1=$(count "$T/g.db" "SELECT count(*) FROM minutes")
cat "$src" >"$T/grow.log"
"$BIN" ingest --db "$T/g.db" "$T/grow.log" >"$T/grow.txt"
check "grown file: recognised as grown" grep -q "^grown " "$T/grow.txt"
"$BIN" ingest --db "$T/full.db" "$src" >/dev/null
check "grown file: the store equals one built from the whole file" python3 - "$T/g.db" "$T/full.db" "$m1" <<'EOF'
import sqlite3, sys
def rows(p):
    c = sqlite3.connect(p)
    return c.execute("SELECT t, covered_ms, busy_ms, e_counter_j + e_power_j FROM minutes ORDER BY t").fetchall()
g, f, m1 = rows(sys.argv[1]), rows(sys.argv[2]), int(sys.argv[3])
assert [r[0] for r in g] == [r[0] for r in f], (g, f)
for a, b in zip(g, f):
    for x, y in zip(a[1:], b[1:]):
        assert abs(x - y) <= 0.01 * max(abs(y), 1) + 1, (a, b)
assert len(f) > m1 >= 1, (len(f), m1)
EOF
gzip -c "$src" >"$T/rotated.log.1.gz"
before=$(count "$T/g.db" "SELECT count(*), sum(covered_ms) FROM minutes")
"$BIN" ingest --db "$T/g.db" "$T/rotated.log.1.gz" >"$T/gz.txt"
check "gzip'ed copy: already there" grep -q "^already .*rotated.log.1.gz" "$T/gz.txt"
check "gzip'ed copy: nothing added" test "$before" = "$(count "$T/g.db" "SELECT count(*), sum(covered_ms) FROM minutes")"
head -n 60 "$src" | gzip -c >"$T/old-part.gz"
"$BIN" ingest --db "$T/g.db" "$T/old-part.gz" >"$T/part.txt"
check "a shorter copy of a stored content adds nothing" \
	test "$before" = "$(count "$T/g.db" "SELECT count(*), sum(covered_ms) FROM minutes")"

# ---- 3b. large new files: the hash is finished while they are parsed ----------
# (store_check_file_lazy: a file past its first megabyte that no stored content
# starts like).  Its stored hash must be that of the whole file; a copy in the
# same call is "already there"; another file of the same size and the same first
# megabyte is new; a second ingest finds all of them.
"$GEN" --seconds 1200 --gpus 8 --seed 3 -o "$T/big1.log"
cp "$T/big1.log" "$T/big1-copy.log"
python3 - "$T/big1.log" "$T/big2.log" <<'EOF'
import sys
b = bytearray(open(sys.argv[1], "rb").read())
i = b.rindex(b"\n", 0, len(b) - 2) + 1
b[i:i + 10] = b"# edited  "	# a comment line in place of the last row's start
open(sys.argv[2], "wb").write(bytes(b))
EOF
"$BIN" ingest --db "$T/lazy.db" "$T/big1.log" "$T/big1-copy.log" "$T/big2.log" >"$T/lazy.txt" 2>&1 || true
check "large new files: a copy in the same call is already there, a file differing at its end is new" \
	grep -q "^ingest: 2 new, 0 grown, 1 already there" "$T/lazy.txt"
check "large new files: the stored hashes are those of the whole files" python3 - "$T/lazy.db" "$T/big1.log" "$T/big2.log" <<'EOF'
import sqlite3, struct, sys
M = (1 << 64) - 1
K1, K2 = 0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F
def fp(data):	# src/store/fingerprint.c, written again
    a, b = 0x6A09E667F3BCC908, 0xBB67AE8584CAA73B
    def absorb(a, b, w):
        a = ((a ^ w) * K1) & M
        a ^= a >> 29
        b = (b + w * K2) & M
        b = ((((b << 31) | (b >> 33)) & M) * K1) & M
        return a, b
    n8 = len(data) // 8 * 8
    for (w,) in struct.iter_unpack("<Q", data[:n8]):
        a, b = absorb(a, b, w)
    last = data[n8:]
    a, b = absorb(a, b, int.from_bytes(last + bytes(8 - len(last)), "little") ^ (len(last) << 56))
    a, b = absorb(a, b, len(data))
    a ^= a >> 33
    b ^= b >> 29
    return "%016x%016x" % (a, b)
db = sqlite3.connect(sys.argv[1])
got = dict(db.execute("SELECT path, hash FROM files"))
for f in sys.argv[2:]:
    want = fp(open(f, "rb").read())
    assert got.get(f) == want, (f, got.get(f), want)
EOF
"$BIN" ingest --db "$T/lazy.db" "$T/big1.log" "$T/big2.log" >"$T/lazy2.txt" 2>&1 || true
check "large new files: a second ingest finds both already there" grep -q "^ingest: 0 new, 0 grown, 2 already there" "$T/lazy2.txt"

# ---- 4. refusals ---------------------------------------------------------------
sqlite3 "$T/foreign.db" "CREATE TABLE t (a); INSERT INTO t VALUES (1)"
sum1=$(cksum <"$T/foreign.db")
if "$BIN" ingest --db "$T/foreign.db" "$EX" >"$T/out" 2>&1; then fail "foreign SQLite file refused"
else grep -q "another program" "$T/out" && pass "foreign SQLite file refused" || fail "foreign SQLite file refused (message)"; fi
check "foreign SQLite file untouched" test "$sum1" = "$(cksum <"$T/foreign.db")"
cp "$T/h.db" "$T/newer.db"
sqlite3 "$T/newer.db" "PRAGMA user_version = 99"
for cmd in "ingest --db $T/newer.db $EX" "trend --db $T/newer.db" "report --db $T/newer.db"; do
	# shellcheck disable=SC2086
	if "$BIN" $cmd >"$T/out" 2>&1; then fail "newer store refused: $cmd"
	else grep -q "newer than this program" "$T/out" && pass "newer store refused: ${cmd%% *}" || fail "newer store message: $cmd"; fi
done
printf 'not a database at all\n' >"$T/text.db"
if "$BIN" trend --db "$T/text.db" >"$T/out" 2>&1; then fail "a text file is refused"; else pass "a text file is refused"; fi

# ---- 5. migration: v1 to v7 stores (made by hand from a v8 one) are upgraded ------
hours_of() { count "$1" "SELECT t, gpu, covered_ms, busy_ms, s_compute_bound, round(e_counter_j + e_power_j, 3), mem_max_mib FROM hours ORDER BY 1, 2"; }
hours_now=$(hours_of "$T/h.db")
check "v8 store: the hours table sums the minutes" test "$(count "$T/h.db" "SELECT sum(covered_ms) FROM hours")" = "$(count "$T/h.db" "SELECT sum(covered_ms) FROM minutes")"
finds_now=$(count "$T/h.db" "SELECT gpu, kind, t0_ns, t1_ns, value, message FROM findings ORDER BY 1, 2, 3")
# findings as they were before v8 (no stretches, totals, longest or fit)
v8drop="ALTER TABLE findings DROP COLUMN nstretch; ALTER TABLE findings DROP COLUMN nlinked;
  ALTER TABLE findings DROP COLUMN total_s; ALTER TABLE findings DROP COLUMN energy_j;
  ALTER TABLE findings DROP COLUMN longest; ALTER TABLE findings DROP COLUMN fit_mib0;
  ALTER TABLE findings DROP COLUMN fit_mib1; ALTER TABLE findings DROP COLUMN full_ns;"
# proc_minutes as it was before v7 (no share_ms, task, ctr) and no Slurm jobs' tables
v7drop="$v8drop ALTER TABLE proc_minutes DROP COLUMN share_ms; ALTER TABLE proc_minutes DROP COLUMN task;
  ALTER TABLE proc_minutes DROP COLUMN ctr; DROP TABLE jobs; DROP TABLE job_minutes;"
# proc_minutes as it was before v6 (no user, no job)
v6drop="$v7drop ALTER TABLE proc_minutes DROP COLUMN user; ALTER TABLE proc_minutes DROP COLUMN job;"
# the findings table as it was before v5 (no code column, not in the key)
v5drop="$v6drop CREATE TABLE f4 (gpu INTEGER NOT NULL, kind TEXT NOT NULL, t0_ns INTEGER NOT NULL, t1_ns INTEGER,
  severity INTEGER, value REAL, message TEXT, evidence TEXT, PRIMARY KEY (gpu, kind, t0_ns)) WITHOUT ROWID;
  INSERT INTO f4 SELECT gpu, kind, t0_ns, t1_ns, severity, value, message, evidence FROM findings;
  DROP TABLE findings; ALTER TABLE f4 RENAME TO findings;"
v4drop="$v5drop DROP TABLE events; DROP TABLE outages;"
v3drop="DROP TABLE hours; ALTER TABLE files DROP COLUMN compression; ALTER TABLE files DROP COLUMN lines; ALTER TABLE files DROP COLUMN records; ALTER TABLE files DROP COLUMN skipped;"
cp "$T/h.db" "$T/v1.db"
sqlite3 "$T/v1.db" "$v4drop $v3drop DROP TABLE runs; ALTER TABLE files DROP COLUMN run; PRAGMA user_version = 1"
cp "$T/h.db" "$T/v2.db"
sqlite3 "$T/v2.db" "$v4drop $v3drop PRAGMA user_version = 2"
cp "$T/h.db" "$T/v3.db"
sqlite3 "$T/v3.db" "$v4drop PRAGMA user_version = 3"
cp "$T/h.db" "$T/v4.db"
sqlite3 "$T/v4.db" "$v5drop PRAGMA user_version = 4"
cp "$T/h.db" "$T/v5.db"
sqlite3 "$T/v5.db" "$v6drop PRAGMA user_version = 5"
cp "$T/h.db" "$T/v6.db"
sqlite3 "$T/v6.db" "$v7drop PRAGMA user_version = 6"
cp "$T/h.db" "$T/v7.db"
sqlite3 "$T/v7.db" "$v8drop PRAGMA user_version = 7"
# a v7 store is read as it is by trend and report --db (STORE_READ_OLDEST):
# the same trend, the same findings with their figures unknown (no stretches)
"$BIN" trend --db "$T/h.db" --json >"$T/trend-v8.json"
"$BIN" report --db "$T/v7.db" --json >"$T/v7-read.json"
check "v7 store: trend reads it as it is, the same as at v8" sh -c \
	"'$BIN' trend --db '$T/v7.db' --json | cmp - '$T/trend-v8.json'"
check "v7 store: report --db reads it, the findings' figures unknown, the store untouched" python3 - "$T/db.json" "$T/v7-read.json" "$(count "$T/v7.db" "PRAGMA user_version")" <<'EOF2'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
assert sys.argv[3] == "7", sys.argv[3]
assert sorted((f["kind"], f["start"]) for f in a["findings"]) == sorted((f["kind"], f["start"]) for f in b["findings"])
assert any("stretches" in f for f in a["findings"]), "the v8 store keeps stretches"
assert not any("stretches" in f or "fit" in f for f in b["findings"]), "a v7 row has no figures"
assert a["gpus"][0]["states"] == b["gpus"][0]["states"]
EOF2
for v in 1 2 3 4 5 6 7; do
	if [ "$v" -eq 7 ]; then :
	elif "$BIN" trend --db "$T/v$v.db" >"$T/out" 2>&1; then fail "trend on a v$v store asks for an upgrade"
	else grep -q "older than this program" "$T/out" && pass "trend on a v$v store asks for an upgrade" || fail "v$v message"; fi
	"$BIN" ingest --db "$T/v$v.db" "$EX" >"$T/mig.txt"
	check "v$v -> v8: the findings' figures NULL in the rows before" test \
		"$(count "$T/v$v.db" "SELECT count(*) FROM findings WHERE nstretch IS NOT NULL OR total_s IS NOT NULL OR longest IS NOT NULL OR fit_mib0 IS NOT NULL")" = 0
	check "v$v -> v8: user_version 8" test "$(count "$T/v$v.db" "PRAGMA user_version")" = 8
	check "v$v -> v8: runs table and files.run" count "$T/v$v.db" "SELECT count(*) FROM runs; SELECT run FROM files LIMIT 1"
	if [ "$v" -lt 4 ]; then
		check "v$v -> v8: events and outages tables, empty (no file was read again)" test \
			"$(count "$T/v$v.db" "SELECT count(*) FROM events; SELECT count(*) FROM outages")" = "$(printf '0\n0')"
	fi
	if [ "$v" -lt 5 ]; then
		check "v$v -> v8: the findings kept, their code not recorded (-2)" test \
			"$(count "$T/v$v.db" "SELECT gpu, kind, t0_ns, t1_ns, value, message FROM findings ORDER BY 1, 2, 3")" = "$finds_now" -a \
			"$(count "$T/v$v.db" "SELECT DISTINCT code FROM findings")" = -2
	fi
	if [ "$v" -lt 6 ]; then
		check "v$v -> v8: proc_minutes has user and job, NULL in the rows before" test \
			"$(count "$T/v$v.db" "SELECT count(*) FROM proc_minutes WHERE user IS NOT NULL OR job IS NOT NULL")" = 0
	fi
	[ "$v" -lt 7 ] && check "v$v -> v8: proc_minutes has share_ms, task and ctr, NULL in the rows before; jobs tables empty" test \
		"$(count "$T/v$v.db" "SELECT count(*) FROM proc_minutes WHERE share_ms IS NOT NULL OR task IS NOT NULL OR ctr IS NOT NULL;
		  SELECT count(*) FROM jobs; SELECT count(*) FROM job_minutes")" = "$(printf '0\n0\n0')"
	check "v$v -> v8: the data kept, nothing added" grep -q "^ingest: 0 new, 0 grown, 7 already there" "$T/mig.txt"
	check "v$v -> v8: hours filled from the stored minutes" test "$(hours_of "$T/v$v.db")" = "$hours_now"
	"$BIN" report --db "$T/v$v.db" --json >"$T/v$v.json"
	check "v$v -> v8: report --db unchanged" python3 -c "
import json,sys
a=json.load(open('$T/db.json'))['gpus'][0]; b=json.load(open('$T/v$v.json'))['gpus'][0]
assert a['states']==b['states'] and a['energy_j']==b['energy_j']"
	# the processes' minutes from before v7 keep no share of the GPU: who
	# spent it is said to be unknown, not split as if it were 0
	[ "$v" -lt 7 ] && check "v$v -> v8: report --db says who spent it is unknown, with no rows" python3 -c "
import json
a=json.load(open('$T/v$v.json'))['attribution']
assert set(a) == {'unknown'} and 'before schema v7' in a['unknown'], a"
	"$BIN" report --db "$T/v$v.db" >"$T/v$v.txt"
	[ "$v" -lt 7 ] && check "v$v -> v8: report --db (text) says who spent it is unknown" grep -q '^Who spent it: unknown (minutes stored before schema v7' "$T/v$v.txt"
	check "v$v -> v8: integrity" test "$(count "$T/v$v.db" "PRAGMA integrity_check")" = ok
done

# ---- 5b. events and outages: report --db lists what report on the files does ------
# (docs/store.md "Events and outages").  A fatal Xid 79 (tests/golden/5031:
# GPU 1 down from 20.5 s to its next healthy sample at 40 s, 19.5 s; at 3.6
# an hour 0.0195), and the capture's kernel log twice (dmesg and dmesg -T:
# each event once, the other file in its also), read in one run, and in two
# runs in either order (the line stored first is then the event's own).
cat >"$T/evcmp.py" <<'EOF'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
def norm(evs):
    out = []
    for e in evs:
        lines = (e["time"], sorted([e["source"], e.get("also_in") or ""]))
        f = {k: v for k, v in e.items() if k not in ("time", "source", "also_in")}
        out.append((json.dumps(f, sort_keys=True), lines))
    return sorted(out)
assert a["events"] and norm(a["events"]) == norm(b["events"]), (a["events"], b["events"])
for k in ("events_total", "events_copies", "events_dropped"):
    assert a[k] == b[k], (k, a[k], b[k])
assert a["outages"] == b["outages"], (a["outages"], b["outages"])
assert a["cost"]["outage"] == b["cost"]["outage"], (a["cost"]["outage"], b["cost"]["outage"])
assert len(a["gpus"]) == len(b["gpus"])
for x, y in zip(a["gpus"], b["gpus"]):
    assert x["events"] == y["events"], (x["events"], y["events"])
EOF
P="--set other_fixed_per_year=31536 --set hours_on_per_day=24 --set electricity_price=0 --set hardware_price=0 --set maintenance_hours_per_year=0 --set cooling_w=0"
mkdir "$T/ev" && cp tests/golden/5031-report-outage-json/node7.csv "$T/ev/"
"$BIN" ingest -q --db "$T/ev.db" "$T/ev/node7.csv" >/dev/null
# shellcheck disable=SC2086
"$BIN" report --json $P "$T/ev/node7.csv" >"$T/ev-f.json"
# shellcheck disable=SC2086
"$BIN" report --db "$T/ev.db" --json $P >"$T/ev-d.json"
check "report --db: a fatal Xid's event, outage and outage cost as report on the file" python3 "$T/evcmp.py" "$T/ev-f.json" "$T/ev-d.json"
check "report --db: the outage recounted from the CSV (xid:79 row to the GPU's next ok row), priced at 3.6 an hour" python3 - "$T/ev/node7.csv" "$T/ev-d.json" <<'EOF'
import csv, json, sys
from datetime import datetime
rows = list(csv.DictReader(l for l in open(sys.argv[1]) if not l.startswith("#")))
ts = lambda r: datetime.fromisoformat(r["time"].replace("Z", "+00:00")).timestamp()
x = next(r for r in rows if r["status"] == "xid:79")
back = next(r for r in rows if r["gpu"] == x["gpu"] and r["status"] == "ok" and ts(r) > ts(x))
want = ts(back) - ts(x)
d = json.load(open(sys.argv[2]))
assert [(o["gpu"], o["seconds"], o["code"]) for o in d["outages"]] == [(int(x["gpu"]), want, 79)], (d["outages"], want)
# other_fixed_per_year 31536 over 8760 h: 3.6 a GPU-hour
assert abs(d["cost"]["outage"]["cost"] - round(want / 3600 * 3.6, 4)) < 1e-9, (d["cost"]["outage"], want)
EOF
# shellcheck disable=SC2086
"$BIN" report $P "$T/ev/node7.csv" >"$T/ev-f.txt"
# shellcheck disable=SC2086
"$BIN" report --db "$T/ev.db" $P >"$T/ev-d.txt"
check "report --db (text): the 'of which: outage after events' line as report on the file" sh -c \
	"grep 'outage after events' '$T/ev-f.txt' >'$T/o1' && grep 'outage after events' '$T/ev-d.txt' >'$T/o2' && cmp '$T/o1' '$T/o2'"
check "report --db (text): the events section as report on the file" sh -c \
	"sed -n '/^Events/,/^\$/p' '$T/ev-f.txt' >'$T/e1' && test -s '$T/e1' && sed -n '/^Events/,/^\$/p' '$T/ev-d.txt' >'$T/e2' && cmp '$T/e1' '$T/e2'"
mkdir "$T/k" && cp tests/capture-kernel/* "$EX"/*.log "$T/k/"
"$BIN" report --json "$T/k" >"$T/k-f.json"
"$BIN" ingest -q --db "$T/k1.db" "$T/k" >/dev/null
"$BIN" report --db "$T/k1.db" --json >"$T/k1.json"
check "report --db: dmesg and dmesg -T in one run, each event once with its copy, as on the files" python3 "$T/evcmp.py" "$T/k-f.json" "$T/k1.json"
"$BIN" ingest -q --db "$T/k2.db" "$T/k/dmesg_T_end.txt" >/dev/null
"$BIN" ingest -q --db "$T/k2.db" "$T/k" >/dev/null
"$BIN" report --db "$T/k2.db" --json >"$T/k2.json"
check "report --db: dmesg -T first, then the rest: the same events" python3 "$T/evcmp.py" "$T/k-f.json" "$T/k2.json"
"$BIN" ingest -q --db "$T/k3.db" "$T/k/dmesg_raw_end.txt" "$T/k/clock_ref_end.txt" >/dev/null
"$BIN" ingest -q --db "$T/k3.db" "$T/k" >/dev/null
"$BIN" report --db "$T/k3.db" --json >"$T/k3.json"
check "report --db: raw dmesg first, then the rest: the same events" python3 "$T/evcmp.py" "$T/k-f.json" "$T/k3.json"
check "report --db: the capture's 3 events, each in both dmesg files" python3 -c "
import json; d=json.load(open('$T/k3.json'))
assert d['events_total'] == 3 and d['events_copies'] == 3, (d['events_total'], d['events_copies'])
for e in d['events']:
    s = sorted([e['source'].rsplit('/', 1)[1].split(':')[0], e['also_in'].rsplit('/', 1)[1].split(':')[0]])
    assert e['copies'] == 1, e
    assert s == ['dmesg_T_end.txt', 'dmesg_raw_end.txt'], s"

# ---- 5c. findings of one kind and GPU that overlap in time, different codes ------
# tests/golden/5035: Xid 13 at 03:12:05, :30 and 03:13:20 is one finding (value 3)
# and Xid 63 at 03:12:40 another, inside its span; Xid 13 at 03:14:30 a third.
# The store keeps the three as report finds them (before v5 it kept two).
X=tests/golden/5035-report-xid-repeats
"$BIN" ingest --db "$T/xid.db" "$X/node7.csv" "$X/kern.log" >/dev/null
"$BIN" report --json "$X/node7.csv" "$X/kern.log" >"$T/xid-files.json"
"$BIN" report --db "$T/xid.db" --json >"$T/xid-db.json"
check "overlapping findings of two Xid codes: report --db has the three report has" python3 - "$T/xid-files.json" "$T/xid-db.json" <<'EOF'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
fa, fb = ([(f["start"], f["end"], f["value"]) for f in d["findings"] if f["kind"] == "xid_error"] for d in (a, b))
want = [("2026-11-29T03:12:05Z", "2026-11-29T03:13:20Z", 3), ("2026-11-29T03:12:40Z", "2026-11-29T03:12:40Z", 1),
        ("2026-11-29T03:14:30Z", "2026-11-29T03:14:30Z", 1)]
assert fa == want, fa
assert fb == want, fb
EOF
# the same events in other files (one more row, one more line: new contents)
cp "$X/node7.csv" "$T/node7b.csv"
sed -n '$p' "$X/node7.csv" | sed 's/03:15:59/03:16:00/' >>"$T/node7b.csv"
cp "$X/kern.log" "$T/kern2.log"
echo "2026-11-29T03:15:30,000000+00:00 usb 1-1: new high-speed USB device number 3" >>"$T/kern2.log"
"$BIN" ingest --db "$T/xid.db" "$T/node7b.csv" "$T/kern2.log" >"$T/xid-again.txt"
check "the same events from other files: no new finding, still three Xid rows" sh -c \
	"grep -q 'findings 0 new' $T/xid-again.txt && test \"\$(sqlite3 $T/xid.db \"SELECT count(*) FROM findings WHERE kind = 'xid_error'\")\" = 3"
check "their codes stored" test "$(count "$T/xid.db" "SELECT code FROM findings WHERE kind = 'xid_error' ORDER BY t0_ns")" = \
	"$(printf '13\n63\n13')"
# rows of a store from before v5 (code -2) are the same findings as the new ones
"$BIN" ingest --db "$T/xid4.db" "$X/node7.csv" "$X/kern.log" >/dev/null
sqlite3 "$T/xid4.db" "$v5drop PRAGMA user_version = 4"
"$BIN" ingest --db "$T/xid4.db" "$T/node7b.csv" "$T/kern2.log" >"$T/xid4-again.txt"
check "after a v4 -> v5 upgrade the same events add no finding" sh -c \
	"grep -q 'findings 0 new' $T/xid4-again.txt && test \"\$(sqlite3 $T/xid4.db \"SELECT group_concat(code) FROM findings WHERE kind = 'xid_error'\")\" = '-2,-2,-2'"

# ---- 5d. findings: report --db ranks and shows them as report on the files ------
# The store keeps each finding's stretches, total and idle seconds, energy,
# longest stretches and fitted line (schema v8): the same findings in the
# same order with the same figures, for a generated 4-GPU, 2-hour log and
# for the capture.  The same store cut back to v7 (no figures, read as it
# is) ranks the summaries by their span: the check below fails on it.
cat >"$T/samefind.py" <<'EOF2'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
want_same = sys.argv[3] == "same"
def key(f):
    return (f["kind"], f["gpu"], f["start"], f["end"], f["severity"], f["value"], f["message"], f["evidence"])
def figs(f):
    s = f.get("stretches")
    if s:
        s = dict(s, total_s=round(s["total_s"], 3), energy_j=None if s["energy_j"] is None else round(s["energy_j"], 1),
                 cost=None if s["cost"] is None else round(s["cost"], 4))
    return (s, f.get("fit"))
fa, fb = a["findings"], b["findings"]
ok = len(fa) == len(fb) and all(key(x) == key(y) and figs(x) == figs(y) for x, y in zip(fa, fb))
ok = ok and a.get("finding_groups") == b.get("finding_groups")
if ok != want_same:
    bad = [(i, key(x), key(y), figs(x), figs(y)) for i, (x, y) in enumerate(zip(fa, fb)) if key(x) != key(y) or figs(x) != figs(y)]
    sys.exit("%d findings against %d; %d differ, first: %r" % (len(fa), len(fb), len(bad), bad[:1]))
if want_same:
    assert sum(1 for f in fa if "stretches" in f) > 0, "no summary to compare"
EOF2
sect() { sed -n '/^Findings (/,/^$/p' "$1"; }
"$GEN" --seconds 7200 --gpus 4 --seed 1 -o "$T/g4.log" >/dev/null
"$BIN" ingest --db "$T/g4.db" "$T/g4.log" >/dev/null
"$BIN" report --json "$T/g4.log" >"$T/g4-files.json"
"$BIN" report --db "$T/g4.db" --json >"$T/g4-db.json"
check "findings: 4 GPUs, 2 hours: report --db lists the findings of report in its order, with its stretches, totals and costs" \
	python3 "$T/samefind.py" "$T/g4-files.json" "$T/g4-db.json" same
"$BIN" report "$T/g4.log" | sect /dev/stdin >"$T/g4-files.txt"
"$BIN" report --db "$T/g4.db" | sect /dev/stdin >"$T/g4-db.txt"
check "findings: 4 GPUs, 2 hours: the text's Findings section line for line" cmp "$T/g4-files.txt" "$T/g4-db.txt"
cp "$T/g4.db" "$T/g4-v7.db"
sqlite3 "$T/g4-v7.db" "$v8drop PRAGMA user_version = 7"
"$BIN" report --db "$T/g4-v7.db" --json >"$T/g4-v7.json"
check "findings: the same store at v7 (no figures) ranks them otherwise: the check can fail" \
	python3 "$T/samefind.py" "$T/g4-files.json" "$T/g4-v7.json" differ
"$BIN" report --json "$EX" >"$T/ex-files.json"
check "findings: the capture: report --db lists the findings of report in its order, with its figures" \
	python3 "$T/samefind.py" "$T/ex-files.json" "$T/db.json" same
# a grown log: the later run read the whole file again, so its figures
# replace the stored ones (the finding's whole, not a sum)
head -c 2600000 "$T/g4.log" | sed '$d' >"$T/grow.log"
"$BIN" ingest --db "$T/grow.db" "$T/grow.log" >/dev/null
cp "$T/g4.log" "$T/grow.log"
"$BIN" ingest --db "$T/grow.db" "$T/grow.log" >"$T/grow.txt"
check "findings: a grown log ingested again: read as grown" grep -q "1 grown" "$T/grow.txt"
"$BIN" report --db "$T/grow.db" --json >"$T/grow-db.json"
check "findings: a grown log: report --db over both runs equals report on the whole file" \
	python3 "$T/samefind.py" "$T/g4-files.json" "$T/grow-db.json" same

# ---- 5e. findings: one log ingested as two halves, in either order -------------
# The first hour of the 4-GPU log in one run, the second in another: each
# summary (idle_power, held_idle, input_starved, launch_bound) is one row,
# its stretches, totals and energy those of both halves added, its message
# written again by the detector's sentence (docs/store.md "findings").
# Each run stores its own row (a grown half replaces its own); report --db
# joins the rows of one GPU, kind and code that do not overlap.  Before,
# each run's summary was listed apart: 162 findings against 150.
# Against report on both files the count, kinds, severities and group order
# are the same; the figures differ only by the stretches at the cut (each
# run's analysis starts afresh there: within 5 %), so the exact check is
# against report on each half, and one order against the other.
head -2 "$T/g4.log" >"$T/h1.log"
head -2 "$T/g4.log" >"$T/h2.log"
grep -v '^#' "$T/g4.log" | awk '$2 < "01:00:00"' >>"$T/h1.log"
grep -v '^#' "$T/g4.log" | awk '$2 >= "01:00:00"' >>"$T/h2.log"
"$BIN" ingest --db "$T/h12.db" "$T/h1.log" >/dev/null
"$BIN" ingest --db "$T/h12.db" "$T/h2.log" >/dev/null
"$BIN" ingest --db "$T/h21.db" "$T/h2.log" >/dev/null
"$BIN" ingest --db "$T/h21.db" "$T/h1.log" >/dev/null
"$BIN" report --db "$T/h12.db" --json >"$T/h12.json"
"$BIN" report --db "$T/h21.db" --json >"$T/h21.json"
"$BIN" report --json "$T/h1.log" "$T/h2.log" >"$T/hboth.json"
"$BIN" report --json "$T/h1.log" >"$T/h1.json"
"$BIN" report --json "$T/h2.log" >"$T/h2.json"
check "halves: ingested in either order, the same findings, figures and sentences" \
	python3 "$T/samefind.py" "$T/h12.json" "$T/h21.json" same
check "halves: one row per summary, its figures the two halves' added" python3 - "$T/hboth.json" "$T/h12.json" "$T/h1.json" "$T/h2.json" <<'EOF2'
import json, sys, collections
w, d, h1, h2 = (json.load(open(f))["findings"] for f in sys.argv[1:5])
assert len(w) == len(d), "report on both files: %d findings, report --db: %d" % (len(w), len(d))
assert sorted((f["kind"], f["gpu"], f["severity"]) for f in w) == sorted((f["kind"], f["gpu"], f["severity"]) for f in d)
assert [f["kind"] for f in w] == [f["kind"] for f in d], "group order"
halves = collections.defaultdict(list)
for f in h1 + h2:
    if "stretches" in f:
        halves[(f["kind"], f["gpu"])].append(f)
files = {(f["kind"], f["gpu"]): f for f in w}
n = 0
for f in d:
    s = f.get("stretches")
    if not s:
        continue
    n += 1
    hs = [h["stretches"] for h in halves[(f["kind"], f["gpu"])]]
    assert len(hs) == 2, (f["kind"], f["gpu"], len(hs))
    assert s["count"] == sum(h["count"] for h in hs), (f["kind"], f["gpu"])
    assert "%d stretches" % s["count"] in f["message"], f["message"]
    assert abs(s["total_s"] - sum(h["total_s"] for h in hs)) < 1e-3 and f["value"] == round(f["value"], 3)
    assert abs(s["energy_j"] - sum(h["energy_j"] for h in hs)) < 0.1
    top = sorted((x for h in hs for x in h["longest"]), key=lambda x: (-x["seconds"], x["start"]))[:5]
    assert [(x["start"], x["end"]) for x in s["longest"]] == [(x["start"], x["end"]) for x in top], f["kind"]
    o = files[(f["kind"], f["gpu"])]["stretches"]
    assert abs(s["count"] - o["count"]) <= 1, (f["kind"], f["gpu"], s["count"], o["count"])
    for k in ("total_s", "energy_j"):
        assert abs(s[k] - o[k]) <= 0.05 * o[k], (f["kind"], f["gpu"], k, s[k], o[k])
    for x in s["longest"]:
        assert f["start"] <= x["start"] and x["end"] <= f["end"]
assert n == 12, n
for f in d:
    if f["kind"] == "idle_power":
        o = files[("idle_power", f["gpu"])]
        assert (f["start"], f["end"]) == (o["start"], o["end"]) and abs(f["value"] - o["value"]) < 1, (f, o)
EOF2
# the second half first read while it was growing, then whole: the grown
# run replaces its own row, and the halves still join as above
head -2 "$T/h2.log" >"$T/h2g.log"
grep -v '^#' "$T/h2.log" | awk '$2 < "01:30:00"' >>"$T/h2g.log"
"$BIN" ingest --db "$T/h1g.db" "$T/h1.log" >/dev/null
"$BIN" ingest --db "$T/h1g.db" "$T/h2g.log" >/dev/null
cp "$T/h2.log" "$T/h2g.log"
"$BIN" ingest --db "$T/h1g.db" "$T/h2g.log" >/dev/null
"$BIN" report --db "$T/h1g.db" --json >"$T/h1g.json"
check "halves: the second half read growing, then whole: the same as in two runs" \
	python3 "$T/samefind.py" "$T/h12.json" "$T/h1g.json" same
"$BIN" report "$T/h1.log" "$T/h2.log" | sect /dev/stdin | sed '1!s/[0-9][0-9]*/#/g' >"$T/hboth.txt"
"$BIN" report --db "$T/h12.db" | sect /dev/stdin | sed '1!s/[0-9][0-9]*/#/g' >"$T/h12.txt"
check "halves: the text's Findings section line for line (figures aside)" cmp "$T/hboth.txt" "$T/h12.txt"

# ---- 6. trend against a recount of the input ------------------------------------
"$GEN" -o "$T/days.log" --seconds 180000 --gpus 2 --start 2026-11-01
"$BIN" ingest --db "$T/d.db" "$T/days.log" >/dev/null
set -- --set electricity_price=0.5 --set cloud_hourly_rate=2
"$BIN" trend --db "$T/d.db" --by day --json "$@" >"$T/day.json"
"$BIN" trend --db "$T/d.db" --by hour --json "$@" >"$T/hour.json"
"$BIN" trend --db "$T/d.db" --by day --gpu 1 --json "$@" >"$T/gpu1.json"
"$BIN" trend --db "$T/d.db" --by day --csv "$@" >"$T/day.csv"
"$BIN" trend --db "$T/d.db" --by month "$@" >"$T/month.txt"
check "trend --by day/hour/--gpu: recount of the dmon rows (1 %)" python3 - "$T/days.log" "$T/day.json" "$T/hour.json" "$T/gpu1.json" <<'EOF'
import json, sys, collections
log, dayj, hourj, gpuj = sys.argv[1:5]
# dmon -o DT: date time gpu pwr gtemp mtemp sm mem ... fb (column 17); each
# 1-second row holds for one second
acc = collections.defaultdict(lambda: [0, 0.0, 0.0, 0.0])
for line in open(log):
    if line.startswith("#"):
        continue
    f = line.split()
    d, t, g = f[0], f[1], int(f[2])
    pwr, sm, fb = float(f[3]), float(f[6]), float(f[16])
    day = f"{d[:4]}-{d[4:6]}-{d[6:]}"
    for key in ((day, None), (day, g), (f"{day}T{t[:2]}Z", None)):
        a = acc[key]
        a[0] += 1; a[1] += sm; a[2] += pwr; a[3] = max(a[3], fb)
def cmp(rows, keyf, what):
    assert rows, what
    for r in rows:
        n, sm, pwr, fb = acc[keyf(r)]
        exp = {"gpu_hours": n / 3600, "util_mean_pct": sm / n, "energy_kwh": pwr / 3.6e6,
               "mem_max_mib": fb, "busy_gpu_hours": sm / 100 / 3600,
               "owned_cost": 0.5 * pwr / 3.6e6,
               # renting pays for the useful hours (docs/states.md "Busy": the
               # stored minutes' useful states, busy_share), not for
               # utilization.gpu
               "rented_cost": 2 * r["busy_share"] * n / 3600}
        for k, v in exp.items():
            got = r[k]
            if abs(got - v) > 0.01 * abs(v) + 1e-6:
                raise SystemExit(f"{what} {r['label']} {k}: trend {got}, recount {v}")
    tot = sum(acc[keyf(r)][0] for r in rows)
    return tot
day = json.load(open(dayj))["buckets"]
hour = json.load(open(hourj))["buckets"]
g1 = json.load(open(gpuj))["buckets"]
assert len(day) == 3 and len(hour) == 50, (len(day), len(hour))
assert cmp(day, lambda r: (r["label"], None), "day") == 360000
assert cmp(hour, lambda r: (r["label"], None), "hour") == 360000
assert cmp(g1, lambda r: (r["label"], 1), "gpu 1") == 180000
assert all(r["gpus"] == 1 for r in g1) and all(r["gpus"] == 2 for r in day)
EOF
TZ=UTC "$BIN" report --db "$T/d.db" --since 2026-11-02 --until 2026-11-03 --json >"$T/win.json"
check "report --db --since/--until: one day's seconds and energy against a recount (1 %)" python3 - "$T/days.log" "$T/win.json" <<'EOF'
import json, sys
n = e = busy = 0
for line in open(sys.argv[1]):
    f = line.split()
    if line.startswith("#") or f[0] != "20261102":
        continue
    n += 1; e += float(f[3]); busy += float(f[6]) / 100
r = json.load(open(sys.argv[2]))
cov = sum(g["covered_s"] for g in r["gpus"]); en = sum(g["energy_j"] for g in r["gpus"])
b = sum(g["busy_s"] for g in r["gpus"])
assert n == 2 * 86400, n
for got, exp, what in ((cov, n, "covered"), (en, e, "energy"), (b, busy, "busy")):
    assert abs(got - exp) <= 0.01 * exp, (what, got, exp)
assert r["start"].startswith("2026-11-02T00:00") and r["end"].startswith("2026-11-03T00:00"), (r["start"], r["end"])
EOF
check "trend --csv: one row per day plus the header" test "$(wc -l <"$T/day.csv")" = 4
check "trend --by month: one month and a total" grep -q "^2026-11 " "$T/month.txt"
"$BIN" trend --db "$T/d.db" --by day --json --since "2026-11-01T10:30:00Z" --until "2026-11-02T05:17:00Z" >"$T/cut.json"
check "trend over a window not on whole hours (minutes table)" python3 - "$T/d.db" "$T/cut.json" <<'EOF'
import json, sqlite3, sys
c = sqlite3.connect(sys.argv[1])
lo, hi = 1793529000, 1793596620   # 2026-11-01T10:30Z, 2026-11-02T05:17Z
q = {r[0]: r[1] for r in c.execute(
    "SELECT date(t, 'unixepoch'), sum(covered_ms) FROM minutes WHERE t >= ? AND t < ? GROUP BY 1", (lo, hi))}
b = json.load(open(sys.argv[2]))["buckets"]
assert [r["label"] for r in b] == sorted(q), (b, q)
for r in b:
    assert abs(r["gpu_hours"] - q[r["label"]] / 3.6e6) < 1e-6, (r, q)
EOF
check "trend --by day: sums equal the store's minutes (python sqlite3)" python3 - "$T/d.db" "$T/day.json" <<'EOF'
import json, sqlite3, sys
c = sqlite3.connect(sys.argv[1])
q = {r[0]: r[1:] for r in c.execute(
    "SELECT date(t, 'unixepoch'), sum(covered_ms), sum(busy_ms), sum(e_counter_j + e_power_j) FROM minutes GROUP BY 1")}
for r in json.load(open(sys.argv[2]))["buckets"]:
    cov, busy, e = q[r["label"]]
    assert abs(r["gpu_hours"] - cov / 3.6e6) < 1e-6, r
    assert abs(r["busy_gpu_hours"] - busy / 3.6e6) < 1e-6, r
    assert abs(r["energy_kwh"] - e / 3.6e6) < 1e-6, r
EOF

# the hours table against the minutes, recounted in SQL here: the appended
# days (hours written from the run's own sums), the grown file and the
# migrated stores (hours summed again in SQL by the program)
cat >"$T/hours.py" <<'EOF'
import sqlite3, sys
for path in sys.argv[1:]:
    c = sqlite3.connect(path)
    cols = [r[1] for r in c.execute("PRAGMA table_info(minutes)")][2:]
    agg = ", ".join(("min" if k == "t_first_ns" else "max" if k in ("t_last_ns",) or k.endswith("max") or k.endswith("_max_mib") or k.endswith("_max_w") or k.endswith("_max_c") or k == "mem_total_mib" else "sum") + f"({k})" for k in cols)
    want = {(r[0], r[1]): r[2:] for r in c.execute(f"SELECT (t / 3600) * 3600, gpu, {agg} FROM minutes GROUP BY 1, 2")}
    got = {(r[0], r[1]): r[2:] for r in c.execute(f"SELECT t, gpu, {', '.join(cols)} FROM hours")}
    assert want.keys() == got.keys(), (path, len(want), len(got))
    for k in want:
        for name, a, b in zip(cols, want[k], got[k]):
            if a is None or b is None:
                assert a is None and b is None, (path, k, name, a, b)
            else:
                assert abs(a - b) <= 1e-9 * max(abs(a), 1), (path, k, name, a, b)
EOF
check "hours = the minutes summed per hour (appended, grown, migrated stores)" \
	python3 "$T/hours.py" "$T/d.db" "$T/g.db" "$T/h.db" "$T/v1.db" "$T/v2.db" "$T/v3.db"

# ---- 7. tasks: the capture's one python process, and gpu_monitor.sh's task_id ----
"$BIN" trend --db "$T/h.db" --json >"$T/tasks.json"
"$BIN" trend --db "$T/h.db" --task python3 --json >"$T/task.json"
check "trend: the capture's tasks and their GPU-seconds (pmon rows, task_id, report)" python3 - "$EX/pmon_um_DT.log" "$T/tasks.json" "$T/task.json" "$T/files.json" <<'EOF'
import json, sys
rows = [l.split() for l in open(sys.argv[1]) if not l.startswith("#")]
seen = [r for r in rows if r[3] != "-"]
tasks = json.load(open(sys.argv[2]))["tasks"]
one = json.load(open(sys.argv[3]))
allp = json.load(open(sys.argv[4]))["processes"]
# the python process (pmon, query_apps) and the gpu_monitor.sh task label
assert sorted(t["task"] for t in tasks) == ["h200_capture", "python3"], tasks
label = [t for t in tasks if t["task"] == "h200_capture"][0]
lp = [p for p in allp if p["kind"] == "task"]
assert len(lp) == 1 and lp[0]["name"] == "h200_capture" and lp[0]["pid"] is None, lp
assert abs(label["gpu_hours"] * 3600 - lp[0]["present_s"]) <= 0.01 * lp[0]["present_s"], (label, lp)
assert abs(label["busy_gpu_hours"] * 3600 - lp[0]["busy_s"]) <= 0.01 * lp[0]["busy_s"] + 0.01, (label, lp)
tasks = [t for t in tasks if t["task"] == "python3"]
procs = [p for p in allp if p["kind"] == "process"]
h = tasks[0]["gpu_hours"] * 3600
# pmon saw it in len(seen) 1-second rows; a process counts as present up to
# 5 s after it was last seen (analysis.c), and query_apps sees it too
sec = lambda b: int(b[:2]) * 3600 + int(b[3:5]) * 60 + int(b[6:])
span = sec(seen[-1][1]) - sec(seen[0][1])
assert len(seen) <= h <= span + 6, (h, len(seen), span)
assert abs(h - procs[0]["present_s"]) <= 0.01 * procs[0]["present_s"], (h, procs)
assert abs(tasks[0]["busy_gpu_hours"] * 3600 - procs[0]["busy_s"]) <= 0.01 * procs[0]["busy_s"] + 0.01
assert abs(sum(b["gpu_hours"] for b in one["buckets"]) * 3600 - h) < 1e-3
EOF

# ---- 8. a kill during ingest leaves the store readable and consistent ----------
"$GEN" -o "$T/big.log" --bytes 200M --gpus 8 --start 2026-10-01
"$BIN" ingest --db "$T/k.db" "$EX" >/dev/null
good=$(count "$T/k.db" "SELECT count(*), sum(covered_ms) FROM minutes")
# kills at several moments: while hashing, while the transaction is open, late
mid=0
for k in 0.05 0.15 0.3 0.5 0.8; do
	timeout -s KILL $k "$BIN" ingest --db "$T/k.db" "$T/big.log" >/dev/null 2>&1 || true
	ic=$(count "$T/k.db" "PRAGMA integrity_check")
	now=$(count "$T/k.db" "SELECT count(*), sum(covered_ms) FROM minutes")
	big_files=$(count "$T/k.db" "SELECT count(*) FROM files WHERE path LIKE '%big.log'")
	if [ "$ic" != ok ]; then fail "killed ingest after ${k}s: integrity_check: $ic"
	elif [ "$now" = "$good" ] && [ "$big_files" = 0 ]; then mid=$((mid + 1))
	elif [ "$big_files" = 1 ] && [ "$now" != "$good" ]; then break	# the file made it whole
	else fail "killed ingest after ${k}s: half a file stored ($now, before $good, files $big_files)"; fi
done
check "killed ingest: store as before the file or after it ($mid kill(s) before the commit)" test "$mid" -ge 1
# a reader while a writer works: trend must answer, not fail on a lock
"$BIN" ingest --db "$T/k.db" "$T/big.log" >"$T/bg.txt" 2>&1 &
pid=$!
ok=1
for i in 1 2 3 4 5; do
	"$BIN" trend --db "$T/k.db" --by day >/dev/null 2>"$T/rd.err" || ok=0
	sleep 0.1
done
wait $pid
check "trend reads while ingest writes (WAL)" test $ok = 1
check "ingest after the kills completes" grep -Eq "^ingest: (1 new|0 new, 0 grown, 1 already)" "$T/bg.txt"
check "after the kill: integrity_check ok" test "$(count "$T/k.db" "PRAGMA integrity_check")" = ok
check "store in WAL mode" test "$(count "$T/k.db" "PRAGMA journal_mode")" = wal

# ---- 9. a full disk during ingest: an error, and the store as it was --------------
"$BIN" ingest -q --db "$T/f.db" "$EX" >/dev/null
good=$(count "$T/f.db" "SELECT count(*), sum(covered_ms) FROM minutes; SELECT count(*) FROM files")
asan=${ASAN_OPTIONS:-}
if INJECT_PATH="$T/f.db*" INJECT_OPS=pwrite INJECT_AFTER=20 LD_PRELOAD="$INJECT" \
	ASAN_OPTIONS="${asan:+$asan:}verify_asan_link_order=0" "$BIN" ingest --db "$T/f.db" "$T/days.log" >"$T/out" 2>&1; then
	fail "full disk: ingest reports the failure"
else
	grep -q "disk is full" "$T/out" && pass "full disk: ingest says the disk is full" || { fail "full disk message"; cat "$T/out"; }
fi
check "full disk: integrity_check ok" test "$(count "$T/f.db" "PRAGMA integrity_check")" = ok
check "full disk: the store as before" test "$good" = "$(count "$T/f.db" "SELECT count(*), sum(covered_ms) FROM minutes; SELECT count(*) FROM files")"
check "full disk: the same ingest works once there is room" "$BIN" ingest -q --db "$T/f.db" "$T/days.log"

# ---- 10. --each, a clock that jumps back, a locked store, a damaged one ----------
"$BIN" ingest --each --db "$T/each.db" "$EX" >"$T/each.txt"
check "--each: one run per file read" test "$(count "$T/each.db" "SELECT count(*) FROM runs")" = 9
check "--each: every file stored" test "$(count "$T/each.db" "SELECT count(*) FROM files")" = 7
check "--each: a finding seen by several logs is stored once" test \
	"$(count "$T/each.db" "SELECT kind FROM findings ORDER BY t0_ns, kind")" = "$(count "$T/h.db" "SELECT kind FROM findings ORDER BY t0_ns, kind")"
"$BIN" ingest -q --db "$T/each.db" "$EX" >"$T/each2.txt"
check "--each then all together: nothing new" grep -q "^ingest: 0 new, 0 grown, 7 already there" "$T/each2.txt"
# 20 minutes, then 10 minutes stamped an hour earlier, then the rest: a clock set back
head -n 2 "$T/days.log" >"$T/jump.log"
sed -n '3,2402p' "$T/days.log" >>"$T/jump.log"
sed -n '3,1202p' "$T/days.log" | sed 's/ 00:/ 23:/; s/20261101/20261031/' >>"$T/jump.log"
sed -n '2403,4802p' "$T/days.log" >>"$T/jump.log"
"$BIN" ingest -q --db "$T/jump.db" "$T/jump.log" >/dev/null
"$BIN" report --json "$T/jump.log" >"$T/jump1.json"
"$BIN" report --db "$T/jump.db" --json >"$T/jump2.json"
check "a clock set back inside a file: report --db equals report (1 %)" python3 - "$T/jump1.json" "$T/jump2.json" <<'EOF'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
assert a["gpus"][0]["out_of_order"] > 0
for ga, gb in zip(a["gpus"], b["gpus"]):
    for k in ("covered_s", "busy_s", "energy_j"):
        assert abs(ga[k] - gb[k]) <= 0.01 * abs(ga[k]), (k, ga[k], gb[k])
EOF
# a writer holds the store for 1.5 s: ingest waits for it instead of failing
python3 -c "
import sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute('BEGIN IMMEDIATE'); c.execute(\"INSERT INTO meta VALUES ('lock-test', 'x')\")
open(sys.argv[2], 'w').close(); time.sleep(1.5); c.execute('ROLLBACK')" "$T/jump.db" "$T/locked" &
lockpid=$!
while [ ! -f "$T/locked" ]; do sleep 0.05; done
check "a locked store: ingest waits for the other writer" "$BIN" ingest -q --db "$T/jump.db" "$EX"
wait $lockpid
cp "$T/h.db" "$T/bad.db"
sqlite3 "$T/bad.db" "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null
size=$(wc -c <"$T/bad.db")
dd if=/dev/urandom of="$T/bad.db" bs=1 seek=$((size / 2)) count=$((size / 4)) conv=notrunc 2>/dev/null
dd if=/dev/zero of="$T/bad.db" bs=1 seek=100 count=1 conv=notrunc 2>/dev/null
for cmd in trend report ingest; do
	if [ $cmd = ingest ]; then set -- ingest --db "$T/bad.db" "$T/jump.log"; else set -- $cmd --db "$T/bad.db"; fi
	rc=0
	"$BIN" "$@" >"$T/out" 2>&1 || rc=$?
	if [ $rc -ge 1 ] && [ $rc -le 3 ] && grep -q "gputally: error" "$T/out"; then pass "a damaged store: $cmd fails with an error"
	elif [ $rc = 0 ]; then pass "a damaged store: $cmd read what is intact"
	else fail "a damaged store: $cmd exit $rc"; cat "$T/out"; fi
done

check "hours = the minutes summed per hour (--each, clock set back, killed ingests)" \
	python3 "$T/hours.py" "$T/each.db" "$T/jump.db" "$T/k.db"

# ---- 11. bad usage ------------------------------------------------------------------
if "$BIN" ingest "$EX" >/dev/null 2>&1; then fail "ingest without --db"; else pass "ingest without --db is a usage error"; fi
rc=0
"$BIN" ingest --db "$T/u.db" "$T/no-such-file" "$src" >"$T/miss.txt" 2>&1 || rc=$?
check "a missing file: exit 1, listed unreadable, the other stored" \
	sh -c "[ $rc = 1 ] && grep -q '^unreadable .*no-such-file' '$T/miss.txt' && [ \"\$(sqlite3 '$T/u.db' 'SELECT count(*) FROM files')\" = 1 ]"
rc=0
echo x | "$BIN" ingest --db "$T/u.db" - >"$T/stdin.txt" 2>&1 || rc=$?
check "standard input is refused" sh -c "[ $rc = 1 ] && grep -q 'standard input' '$T/stdin.txt'"
if "$BIN" trend --db "$T/h.db" --by year >/dev/null 2>&1; then fail "--by year"; else pass "trend --by year is a usage error"; fi
if "$BIN" report --since 2026-01-01 "$EX" >/dev/null 2>&1; then fail "report --since without --db"; else pass "report --since without --db is a usage error"; fi
if "$BIN" report --db "$T/h.db" "$EX" >/dev/null 2>&1; then fail "report --db with files"; else pass "report --db with files is a usage error"; fi

# ---- 12. report --db --html: the page from the rollups -------------------------------
"$BIN" report --db "$T/h.db" --html "$T/db.html" --json >"$T/db-html.json"
check "report --db --html: offline, every number equal to the --json of the same run" \
	python3 tests/html/check.py "$T/db.html" "$T/db-html.json"
"$BIN" report --db "$T/h.db" --markdown >"$T/db.md"
check "report --db --markdown: the page has the summary" grep -q '^| Covered |' "$T/db.md"
sqlite3 -separator ' ' "$T/h.db" "SELECT g.idx, m.t, $(
	for s in idle held_idle compute_bound memory_bound input_bound launch_bound throttled down unknown gap; do
		printf "coalesce(s_%s,0)," "$s"; done) 0 FROM minutes m JOIN gpus g ON g.id = m.gpu ORDER BY g.idx, m.t" >"$T/db-minutes.txt"
check "report --db --html: each GPU's state band is the state with the most seconds of each stored minute" \
	python3 - "$T/db.html" "$T/db-minutes.txt" <<'EOF'
import re, sys, time
page = open(sys.argv[1]).read()
names = ["idle", "held_idle", "compute_bound", "memory_bound", "input_bound", "launch_bound", "throttled", "down", "unknown", "gap"]
want, cur = [], None
for line in open(sys.argv[2]):
    v = [int(x) for x in line.split()]
    gpu, t, secs = v[0], v[1], v[2:12]
    if max(secs) == 0:
        continue
    st = names[secs.index(max(secs))]
    if cur and cur[0] == gpu and cur[1] == st and cur[3] == t:
        cur[3] = t + 60
    else:
        cur = [gpu, st, t, t + 60]
        want.append(cur)
def iso(t): return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))
want = ["%s: mostly, %s to %s" % (st, iso(a), iso(b)) for g, st, a, b in want]
got = re.findall(r"<title>([a-z_]+: mostly, [^<]*)</title>", page)
assert got == want, (got, want)
assert page.count("from the store&#39;s per-minute rollups") >= 1, "no note that the series are minutes"
print("%d state runs" % len(got))
EOF

# ---- 13. trend --tz: buckets from local midnight, DST days of 23 and 25 hours ----------
# one GPU at 10 s, busy, 2026-03-28..30 and 2026-10-24..27 UTC; Europe/Berlin
# moves to CEST at 2026-03-29T01:00Z and back to CET at 2026-10-25T01:00Z
python3 - "$T" <<'EOF'
import sys, calendar, time
def gen(path, t0, t1):
    with open(path, "w") as f:
        f.write("#Date        Time         gpu    pwr  gtemp  mtemp     sm    mem    enc    dec    jpg    ofa   mclk   pclk  pviol  tviol     fb   bar1   ccpm  sbecc  dbecc    pci  rxpci  txpci \n")
        f.write("#YYYYMMDD    HH:MM:SS     Idx      W      C      C      %      %      %      %      %      %    MHz    MHz      %   bool     MB     MB     MB   errs   errs   errs   MB/s   MB/s \n")
        for t in range(t0, t1, 10):
            f.write(" %s       0    400     60     60     90     40      0      0      0      0   3201   1980      0      0  20000      1      0      0      0      0      0      0 \n" % time.strftime("%Y%m%d    %H:%M:%S", time.gmtime(t)))
g = calendar.timegm
gen(sys.argv[1] + "/dst-march.log", g((2026, 3, 28, 0, 0, 0)), g((2026, 3, 30, 0, 0, 0)))
gen(sys.argv[1] + "/dst-october.log", g((2026, 10, 24, 0, 0, 0)), g((2026, 10, 27, 0, 0, 0)))
EOF
"$BIN" ingest --db "$T/dst.db" "$T/dst-march.log" "$T/dst-october.log" >/dev/null
B="$BIN trend --db $T/dst.db --json"
$B --tz Europe/Berlin --since 2026-03-28 --until 2026-03-31 >"$T/dst-m.json"
$B --tz Europe/Berlin --since 2026-10-24 --until 2026-10-28 >"$T/dst-o.json"
$B --tz Europe/Berlin --by hour --since 2026-03-29 --until 2026-03-29T05:00:00+02:00 >"$T/dst-h.json"
$B --tz Europe/Berlin --by week --since 2026-03-23 --until 2026-04-06 >"$T/dst-w.json"
$B --since 2026-03-28 --until 2026-03-30 >"$T/dst-utc.json"
check "trend --tz Europe/Berlin: local days of 23 h (spring) and 25 h (autumn), weeks, hours, and UTC by default" \
	python3 - "$T" <<'EOF'
import json, sys
T = sys.argv[1]
def rows(n): j = json.load(open("%s/dst-%s.json" % (T, n))); return j, [(b["label"], round(b["gpu_hours"], 2)) for b in j["buckets"]]
# by hand: data from 00:00Z; a Berlin day starts 23:00Z the day before in CET, 22:00Z in CEST
j, r = rows("m")
assert j["tz"] == "Europe/Berlin", j["tz"]
assert r == [("2026-03-28", 23.0), ("2026-03-29", 23.0), ("2026-03-30", 2.0)], r
assert json.load(open(T + "/dst-m.json"))["buckets"][1]["start"] == "2026-03-28T23:00:00Z"
assert json.load(open(T + "/dst-m.json"))["buckets"][2]["start"] == "2026-03-29T22:00:00Z"
j, r = rows("o")
assert r == [("2026-10-24", 22.0), ("2026-10-25", 25.0), ("2026-10-26", 24.0), ("2026-10-27", 1.0)], r
j, r = rows("h")  # 02:00 local does not exist on 2026-03-29
assert r == [("2026-03-29T00+01:00", 1.0), ("2026-03-29T01+01:00", 1.0), ("2026-03-29T03+02:00", 1.0), ("2026-03-29T04+02:00", 1.0)], r
j, r = rows("w")  # Monday 2026-03-23 local to Monday 2026-03-30 local: 23 + 23 h
assert r == [("week 2026-03-23", 46.0), ("week 2026-03-30", 2.0)], r
j, r = rows("utc")
assert j["tz"] == "UTC" and r == [("2026-03-28", 24.0), ("2026-03-29", 24.0)], (j["tz"], r)
EOF
check "trend --tz Asia/Kolkata (+05:30): local hours start at :30 UTC" sh -c \
	"$BIN trend --db $T/dst.db --tz Asia/Kolkata --by hour --since 2026-03-28T05:00:00+05:30 --until 2026-03-28T07:00:00+05:30 | grep -q '^2026-03-28T05+05:30 .* 0.50 '"
if "$BIN" trend --db "$T/dst.db" --tz Mars/Olympus >/dev/null 2>&1; then fail "--tz Mars/Olympus"; else pass "trend --tz with an unknown zone is a usage error"; fi

# ---- trend --by task: the per-task rows as the table, in text, CSV and JSON ----
"$BIN" trend --db "$T/h.db" --by task --json >"$T/bytask.json"
"$BIN" trend --db "$T/h.db" --by task --csv >"$T/bytask.csv"
"$BIN" trend --db "$T/h.db" --by task >"$T/bytask.txt"
check "trend --by task: the same tasks and GPU-hours as trend's tasks[], in every output" python3 - "$T/tasks.json" "$T/bytask.json" "$T/bytask.csv" "$T/bytask.txt" <<'EOF'
import csv, json, sys
want = {t["task"]: t["gpu_hours"] for t in json.load(open(sys.argv[1]))["tasks"]}
j = json.load(open(sys.argv[2]))
assert j["by"] == "task" and {t["task"]: t["gpu_hours"] for t in j["tasks"]} == want, (j, want)
assert j["total"]["gpu_hours"] > 0
c = {r["task"]: float(r["gpu_hours"]) for r in csv.DictReader(open(sys.argv[3]))}
assert c == want, (c, want)
lines = open(sys.argv[4]).read().split("\n")
assert lines[0].startswith("gputally trend by task"), lines[0]
assert sorted(l.split()[0] for l in lines[2:] if l and not l.startswith("all GPU time")) == sorted(want), lines
EOF
if "$BIN" trend --db "$T/h.db" --by task --task python3 >/dev/null 2>&1; then fail "--by task with --task"; else pass "trend --by task with --task NAME is a usage error"; fi

# ---- stored files read again beside new ones (docs/store.md "Held logs and shared minutes")
# a stored log with a bad line, read again beside a new log of the same minutes under
# --strict: its line was counted when it was stored, and does not stop this ingest
mkdir "$T/again"
awk 'NR==40{print " 20261129 22:47:10 0 garbage here"} {print}' "$EX/dmon_pucvmet_DT.log" >"$T/again/dmon.log"
cp "$EX/gpu_monitor_h200_capture_20261129.csv" "$T/again/gm.csv"
"$BIN" ingest -q --db "$T/again.db" "$T/again/dmon.log" >/dev/null 2>&1
"$BIN" ingest --strict --db "$T/again.db" "$T/again/gm.csv" >"$T/again.out" 2>&1
check "--strict: a stored log's bad line, read again beside a new log, does not stop it" sh -c \
	"grep -q '^again  *$T/again/dmon.log' '$T/again.out' && grep -q 'minutes 0 new, 5 updated' '$T/again.out'"
"$BIN" report --json "$T/again/dmon.log" "$T/again/gm.csv" >"$T/again-files.json" 2>/dev/null
"$BIN" report --db "$T/again.db" --json >"$T/again-db.json"
check "two calls of sharing minutes: report --db equals report on both files (energy 0.5 %, busy 1 s)" python3 - "$T/again-files.json" "$T/again-db.json" <<'EOF'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for ga, gb in zip(a["gpus"], b["gpus"]):
    assert abs(ga["energy_j"] - gb["energy_j"]) <= 0.005 * ga["energy_j"], (ga["energy_j"], gb["energy_j"])
    assert abs(ga["busy_s"] - gb["busy_s"]) <= 1, (ga["busy_s"], gb["busy_s"])
EOF

# ---- trend --by user|job: the recorder's procs_who, per user and per Slurm job ----
"$BIN" ingest --db "$T/who.db" tests/formats/gputally-csv/y_procs_who.csv >/dev/null
"$BIN" trend --db "$T/who.db" --by user --json >"$T/byuser.json"
"$BIN" trend --db "$T/who.db" --by job --csv >"$T/byjob.csv"
"$BIN" trend --db "$T/who.db" --by user >"$T/byuser.txt"
check "trend --by user and --by job: the recorded users and jobs" python3 - "$T/byuser.json" "$T/byjob.csv" "$T/byuser.txt" <<'EOF'
import csv, json, sys
j = json.load(open(sys.argv[1]))
assert j["by"] == "user", j
u = {r["user"]: r["gpu_hours"] for r in j["users"]}
assert set(u) == {"alice", "bob", "host pid, not visible"}, u
assert u["alice"] >= u["bob"] > 0, u
jobs = {r["job"]: float(r["gpu_hours"]) for r in csv.DictReader(open(sys.argv[2]))}
assert set(jobs) == {"1234", "(none)"}, jobs
assert open(sys.argv[3]).read().startswith("gputally trend by user"), "text"
EOF
if "$BIN" trend --db "$T/who.db" --by user --task python3 >/dev/null 2>&1; then fail "--by user with --task"; else pass "trend --by user with --task NAME is a usage error"; fi

# ---- who spent it: report --db splits the window as report on the files does ------
# (docs/store.md "Who spent it").  Three cases, each priced by h200-vs-cloud:
# the bundled capture (one python process, a gpu_monitor task label), the
# recorder's procs_who (alice's and bob's processes sharing a GPU by sm %, a
# host pid not visible, Slurm job 1234) and the capture with golden 5060's
# three sacct jobs of two accounts (one outside the telemetry's time).
cat >"$T/attrib.py" <<'EOF'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
A, B = a.get("attribution"), b.get("attribution")
assert A and B, ("attribution missing", bool(A), bool(B))
for k in ("energy_estimated", "users_jobs_from", "jobs_outside"):
    assert A[k] == B[k], (k, A[k], B[k])
def near(x, y, rel, ab):
    return abs(x - y) <= max(ab, rel * max(abs(x), abs(y)))
for d in ("by_user", "by_account", "by_job", "by_task", "by_container", "by_process"):
    ra, rb = {r["key"]: r for r in A[d]}, {r["key"]: r for r in B[d]}
    assert set(ra) == set(rb), (d, sorted(ra), sorted(rb))
    ca, cb = A["totals"][d]["cost"] or 1, B["totals"][d]["cost"] or 1
    for k, x in ra.items():
        y = rb[k]
        assert x["processes"] == y["processes"] and x["none"] == y["none"], (d, k, x, y)
        # stored milliseconds: the same seconds to half a second, the same joules to 0.5 %
        assert near(x["held_s"], y["held_s"], 0.005, 0.5), (d, k, "held_s", x, y)
        assert near(x["useful_s"], y["useful_s"], 0.005, 0.5), (d, k, "useful_s", x, y)
        assert near(x["energy_j"], y["energy_j"], 0.005, 1), (d, k, "energy_j", x, y)
        # the same share of the owned cost (to 0.1 point), the same cost to rounding
        assert abs(x["cost"] / ca - y["cost"] / cb) <= 0.001, (d, k, "share", x["cost"] / ca, y["cost"] / cb)
        assert near(x["cost"], y["cost"], 0.005, 1e-4), (d, k, "cost", x, y)
        assert x.get("reported_energy_j") == y.get("reported_energy_j"), (d, k, x, y)
EOF
P="--profile h200-vs-cloud"
SA=tests/golden/5060-report-slurm-jobs/sacct.txt
"$BIN" report --json $P "$EX" >"$T/who-f1.json" 2>/dev/null
"$BIN" report --db "$T/h.db" --json $P >"$T/who-d1.json"
check "report --db: who spent it as report on the files (the capture)" python3 "$T/attrib.py" "$T/who-f1.json" "$T/who-d1.json"
"$BIN" report --json $P tests/formats/gputally-csv/y_procs_who.csv >"$T/who-f2.json" 2>/dev/null
"$BIN" report --db "$T/who.db" --json $P >"$T/who-d2.json"
check "report --db: who spent it as report on the files (procs_who: alice, bob, a host pid, job 1234)" python3 "$T/attrib.py" "$T/who-f2.json" "$T/who-d2.json"
"$BIN" ingest -q --db "$T/slurm.db" "$EX" "$SA" >/dev/null
"$BIN" report --json $P "$EX" "$SA" >"$T/who-f3.json" 2>/dev/null
"$BIN" report --db "$T/slurm.db" --json $P >"$T/who-d3.json"
check "report --db: who spent it as report on the files (three sacct jobs, two accounts, one outside)" python3 "$T/attrib.py" "$T/who-f3.json" "$T/who-d3.json"
"$BIN" report $P "$EX" "$SA" >"$T/who-f3.txt" 2>/dev/null
"$BIN" report --db "$T/slurm.db" $P >"$T/who-d3.txt"
sed -n '/^Who spent it/,/^$/p' "$T/who-f3.txt" >"$T/ws-f"
sed -n '/^Who spent it/,/^$/p' "$T/who-d3.txt" >"$T/ws-d"
check "report --db (text): the Who spent it section as report on the files (sacct jobs)" sh -c "test -s '$T/ws-f' && diff '$T/ws-f' '$T/ws-d'"

# A longer case across minutes and ingest calls: the capture's 500 ms
# query rows replayed as the recorder's CSV for two GPUs over 3m45s, GPU 0
# shared by alice (job 1234, a pod) and, for a stretch, bob (a docker
# container) by measured sm %, GPU 1 by carol (job 77) and a host pid not
# visible, split evenly, then no process at all; stored in one call, and
# in two files of two calls that share a minute.
python3 - "$EX/query_gpu_units_500ms.csv" "$T/mw" <<'EOF'
import csv, os, sys
rows = [[c.strip() for c in r] for r in csv.reader(open(sys.argv[1]))][1:]
out = sys.argv[2]
os.makedirs(out)
head = ("time,host,task,gpu,uuid,name,status,util_gpu_pct,util_mem_pct,mem_used_mib,mem_total_mib,"
        "mem_reserved_mib,power_w,energy_j,power_limit_w,temp_c,sm_clock_mhz,mem_clock_mhz,"
        "clock_event_reasons,pstate,pcie_gen,pcie_width,procs,bus_id,procs_who")
num = lambda s: s.split()[0]
lines = []
for i, r in enumerate(rows):
    t = r[0].replace("/", "-").replace(" ", "T") + "000Z"
    for g in (0, 1):
        s = rows[(i + 120 * g) % len(rows)]
        u = int(num(s[6]))
        if g == 0:
            procs, who = ["4242=12000"], ["alice|1234|pod:0c2f4d58|%d" % max(1, u * 7 // 10)]
            if 150 <= i < 350:
                procs.append("4343=8000")
                who.append("bob||docker:4f2c1d9e8b7a|%d" % max(1, u * 3 // 10))
        elif i < 380:
            procs, who = ["5151=9000"], ["carol|77||"]
            if 100 <= i < 250:
                procs.append("77=?")
                who.append("!|||")
        else:
            procs, who = [], []
        lines.append(",".join([t, "node7", "train-run-7" if g == 0 else "eval", str(g),
                               "GPU-fa4e0000-0000-4000-8000-00000000000%d" % g, "NVIDIA H200", "ok",
                               num(s[6]), num(s[7]), num(s[8]), num(s[9]), num(s[10]), num(s[12]), "",
                               num(s[15]), s[17], num(s[19]), num(s[20]), "0x%x" % int(s[23], 16), s[5][1:], s[29], s[30],
                               ";".join(procs) or "-", "0000:3b:00.0" if g == 0 else "0000:5e:00.0",
                               ";".join(who)]))
def write(name, part):
    with open(os.path.join(out, name), "w") as f:
        f.write("# gputally-csv v1\n" + head + "\n" + "\n".join(part) + "\n")
write("all.csv", lines)
os.makedirs(os.path.join(out, "halves"))
# the halves meet inside a minute (a row pair of 22:47:48)
write("halves/a.csv", lines[:300])
write("halves/b.csv", lines[300:])
EOF
"$BIN" ingest -q --db "$T/mw1.db" "$T/mw/all.csv" >/dev/null
"$BIN" ingest -q --db "$T/mw2.db" "$T/mw/halves/a.csv" >/dev/null
"$BIN" ingest -q --db "$T/mw2.db" "$T/mw/halves/b.csv" >/dev/null
"$BIN" report --json $P "$T/mw/all.csv" >"$T/mw-f.json" 2>/dev/null
"$BIN" report --db "$T/mw1.db" --json $P >"$T/mw-d1.json"
"$BIN" report --db "$T/mw2.db" --json $P >"$T/mw-d2.json"
check "report --db: who spent it as report on the files (two GPUs shared by four owners, 3m45s, one ingest)" python3 "$T/attrib.py" "$T/mw-f.json" "$T/mw-d1.json"
"$BIN" report --json $P "$T/mw/halves/a.csv" "$T/mw/halves/b.csv" >"$T/mw-fh.json" 2>/dev/null
check "report --db: who spent it as report on the files (the same in two files of two ingests sharing a minute)" python3 "$T/attrib.py" "$T/mw-fh.json" "$T/mw-d2.json"
check "the two-GPU case splits as built: alice, bob, carol, the host pid and no process seen" python3 - "$T/mw-f.json" <<'EOF'
import json, sys
a = json.load(open(sys.argv[1]))["attribution"]
u = {r["key"]: r for r in a["by_user"]}
assert set(u) == {"alice", "bob", "carol", "host pid, not visible", "no process seen"}, sorted(u)
assert u["alice"]["held_s"] > u["bob"]["held_s"] > 0 and u["carol"]["held_s"] > u["host pid, not visible"]["held_s"] > 0, u
assert u["no process seen"]["held_s"] > 0, u
EOF

check "report --db: a process's split method is said unknown, not 'even' (the store keeps the share only)" python3 - "$T/mw-f.json" "$T/mw-d1.json" <<'EOF'
import json, sys
f, d = (json.load(open(p)) for p in sys.argv[1:3])
sf = {p["pid"]: p["split"] for p in f["processes"]}
sd = {p["pid"]: p["split"] for p in d["processes"]}
assert sf[4242] == "per-process sm %" and sf[5151] == "even among processes present", sf
assert set(sd) == set(sf) and all(v.startswith("unknown (") for v in sd.values()), sd
EOF

"$BIN" report --db "$T/mw1.db" --json --until 2026-11-29T22:48:00Z >"$T/mw-w1.json"
"$BIN" report --db "$T/mw1.db" --json --since 2026-11-29T22:48:00Z >"$T/mw-w2.json"
check "report --db: two windows' who-spent-it rows add up to the whole window's (GPU time 1 ms, energy 0.1 J)" python3 - "$T/mw-w1.json" "$T/mw-w2.json" "$T/mw-d1.json" <<'EOF'
import json, sys
a, b, c = (json.load(open(p))["attribution"] for p in sys.argv[1:4])
for d in ("by_user", "by_job", "by_container", "by_process"):
    ra, rb = {r["key"]: r for r in a[d]}, {r["key"]: r for r in b[d]}
    for r in c[d]:
        k = r["key"]
        h = ra.get(k, {}).get("held_s", 0) + rb.get(k, {}).get("held_s", 0)
        e = ra.get(k, {}).get("energy_j", 0) + rb.get(k, {}).get("energy_j", 0)
        assert abs(h - r["held_s"]) <= 0.002 and abs(e - r["energy_j"]) <= 0.2, (d, k, h, r["held_s"], e, r["energy_j"])
    assert set(ra) | set(rb) == {r["key"] for r in c[d]}, (d, sorted(ra), sorted(rb))
EOF

# ---- trend --by account: Slurm's accounts, as report splits them; unknown without jobs ----
"$BIN" trend --db "$T/slurm.db" --by account --json $P >"$T/byacct.json"
"$BIN" trend --db "$T/slurm.db" --by account --csv $P >"$T/byacct.csv"
"$BIN" trend --db "$T/slurm.db" --by account $P >"$T/byacct.txt"
"$BIN" trend --db "$T/slurm.db" --by user --json $P >"$T/byuser-slurm.json"
check "trend --by account: sacct's accounts with the GPU time report gives them, in every output" python3 - "$T/byacct.json" "$T/byacct.csv" "$T/byacct.txt" "$T/who-f3.json" "$T/byuser-slurm.json" <<'EOF'
import csv, json, sys
j = json.load(open(sys.argv[1]))
assert j["by"] == "account", j["by"]
acc = {r["account"]: r for r in j["accounts"]}
rep = {r["key"]: r for r in json.load(open(sys.argv[4]))["attribution"]["by_account"] if not r["none"]}
assert set(acc) == set(rep) == {"chem", "physics"}, (sorted(acc), sorted(rep))
for k in acc:
    assert abs(acc[k]["gpu_hours"] * 3600 - rep[k]["held_s"]) <= 1, (k, acc[k]["gpu_hours"] * 3600, rep[k]["held_s"])
    assert abs(acc[k]["energy_kwh"] * 3.6e6 - rep[k]["energy_j"]) <= 0.005 * rep[k]["energy_j"], k
c = {r["account"]: float(r["gpu_hours"]) for r in csv.DictReader(open(sys.argv[2]))}
assert c == {k: v["gpu_hours"] for k, v in acc.items()}, c
t = open(sys.argv[3]).read().split("\n")
assert t[0].startswith("gputally trend by account"), t[0]
assert sorted(l.split()[0] for l in t[2:] if l and not l.startswith("all GPU time")) == sorted(acc), t
u = {r["user"] for r in json.load(open(sys.argv[5]))["users"]}
assert u == {"alice", "bob"}, u
EOF
"$BIN" trend --db "$T/who.db" --by account --csv >"$T/byacct-who.csv"
check "trend --by account: the recorder's processes name no account: one row, (unknown account)" python3 - "$T/byacct-who.csv" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert [r["account"] for r in rows] == ["(unknown account)"], rows
assert float(rows[0]["gpu_hours"]) > 0, rows
EOF

if [ "$fails" -ne 0 ]; then
	echo "store-tests: $fails failed"
	exit 1
fi
echo "store-tests: all passed"
