#!/bin/sh
# SPDX-License-Identifier: MIT
# The history store's costs (docs/store.md): `ingest` against `report` on the same generated
# log, and `trend --by day` over a year of minute rollups of 8 GPUs, with the store's size.
# Usage: sh bench/store.sh [BUILD_DIR]   (`make bench` runs it after bench/run.sh)
#   DAYS=N     days of 8 GPUs at 1 s for the ingest run (default 1; the issue's case is 30)
# A measurement, not a test: it prints the figures and FAIL next to a missed target, exits 0.
set -eu

B=${1:-build}
GT=$B/gputally
GEN=$B/gen-logs
D=$B/bench/store
DAYS=${DAYS:-1}
say() { printf '%s\n' "bench-store: $*"; }
now() { date +%s.%N; }
mkdir -p "$D"
rm -f "$D"/*.db "$D"/*.db-*

# ---- ingest against report ------------------------------------------------------
log=$D/days$DAYS.log
[ -f "$log" ] || "$GEN" --seconds $((DAYS * 86400)) --gpus 8 --seed 1 -o "$log"
say "$(wc -c <"$log" | tr -d ' ') bytes, $DAYS day(s) of 8 GPUs at 1 s"
t0=$(now); "$GT" report "$log" >/dev/null; t1=$(now)
"$GT" ingest -q --db "$D/ingest.db" "$log" >/dev/null; t2=$(now)
"$GT" ingest -q --db "$D/ingest.db" "$log" >/dev/null; t3=$(now)
awk -v r="$t0" -v a="$t1" -v i="$t2" -v k="$t3" 'BEGIN {
	rep = a - r; ing = i - a; again = k - i
	printf "bench-store: report %.2f s, ingest %.2f s (%.2fx report; target: little more) %s, ingest again (all already there) %.2f s\n",
		rep, ing, ing / rep, ing / rep <= 2 ? "ok" : "FAIL", again
}'

# ---- a year of minutes of 8 GPUs ------------------------------------------------
# The schema from a real ingest, then 365 x 1440 x 8 rows made by SQL (a busy day shape);
# the hours are then made by the program itself: the store is marked v2 without its hours
# table, and the next ingest migrates it (v3 fills the hours from the minutes).
"$GT" ingest -q --db "$D/year.db" examples/h200-training >/dev/null
t0=$(now)
sqlite3 "$D/year.db" "
DELETE FROM minutes;
INSERT INTO minutes (t, gpu, t_first_ns, t_last_ns, covered_ms, gaps_ms, busy_ms, util_known_ms, util_max,
  mem_max_mib, mem_total_mib, power_ws, power_known_ms, power_max_w, temp_max_c, e_counter_j, e_counter_ms,
  e_power_j, e_power_ms, e_unknown_ms, idle_ws, idle_ms, active_ws, active_ms,
  s_idle, s_held_idle, s_compute_bound, s_memory_bound, s_input_bound, s_launch_bound, s_throttled, s_down,
  s_unknown, s_gap, b_compute_bound, e_compute_bound, e_idle)
WITH RECURSIVE m(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM m WHERE i < 365 * 1440 - 1),
  g(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM g WHERE k < 8)
SELECT 1798761600 + i * 60, k, (1798761600 + i * 60) * 1000000000, (1798761600 + i * 60 + 60) * 1000000000,
  60000, 0, CASE WHEN (i / 60) % 24 BETWEEN 8 AND 18 THEN 51000 ELSE 0 END, 60000,
  CASE WHEN (i / 60) % 24 BETWEEN 8 AND 18 THEN 97 ELSE 0 END, 30000, 143771, 60 * 420.5, 60000, 610, 61,
  0, 0, 60 * 420.5, 60000, 0, 0, 0, 0, 0,
  CASE WHEN (i / 60) % 24 BETWEEN 8 AND 18 THEN 0 ELSE 60000 END, 0,
  CASE WHEN (i / 60) % 24 BETWEEN 8 AND 18 THEN 60000 ELSE 0 END, 0, 0, 0, 0, 0, 0, 0,
  CASE WHEN (i / 60) % 24 BETWEEN 8 AND 18 THEN 51000 ELSE 0 END,
  CASE WHEN (i / 60) % 24 BETWEEN 8 AND 18 THEN 60 * 420.5 ELSE 0 END,
  CASE WHEN (i / 60) % 24 BETWEEN 8 AND 18 THEN 0 ELSE 60 * 420.5 END
FROM m, g;
INSERT OR IGNORE INTO gpus (id, idx) SELECT k, k - 1 FROM (WITH RECURSIVE g(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM g WHERE k < 8) SELECT k FROM g);
DROP TABLE hours; PRAGMA user_version = 2;
ALTER TABLE files DROP COLUMN compression; ALTER TABLE files DROP COLUMN lines;
ALTER TABLE files DROP COLUMN records; ALTER TABLE files DROP COLUMN skipped;
PRAGMA wal_checkpoint(TRUNCATE);" >/dev/null
t1=$(now)
"$GT" ingest -q --db "$D/year.db" examples/h200-training >/dev/null
sqlite3 "$D/year.db" "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null
tm=$(now)
rows=$(sqlite3 "$D/year.db" "SELECT count(*) FROM minutes")
size=$(wc -c <"$D/year.db" | tr -d ' ')
"$GT" trend --db "$D/year.db" --by day >/dev/null	# warm the page cache once
t2=$(now); "$GT" trend --db "$D/year.db" --by day >"$D/trend.txt"; t3=$(now)
"$GT" trend --db "$D/year.db" --by month --profile h200-vs-cloud >"$D/month.txt"; t4=$(now)
awk -v a="$t0" -v b="$t1" -v m="$tm" -v c="$t2" -v d="$t3" -v e="$t4" -v rows="$rows" -v size="$size" 'BEGIN {
	printf "bench-store: a year of 8 GPUs: %d minute rows made in %.1f s, migrated to v3 (hours) in %.1f s, store %.0f MB (target < 1000) %s\n",
		rows, b - a, m - b, size / 1e6, size < 1e9 ? "ok" : "FAIL"
	printf "bench-store: trend --by day %.2f s (target < 1 s) %s, --by month %.2f s\n",
		d - c, d - c < 1 ? "ok" : "FAIL", e - d
}'
say "$(sed -n '3p' "$D/trend.txt")"
