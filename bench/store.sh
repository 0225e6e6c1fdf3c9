#!/bin/sh
# SPDX-License-Identifier: MIT
# The history store's costs (docs/store.md): `ingest` against `report` on the same generated
# log, and `trend --by day` over a year of minute rollups of 8 GPUs, with the store's size.
# Usage: sh bench/store.sh [BUILD_DIR]   (`make bench` runs it after bench/run.sh)
#   DAYS=N     days of 8 GPUs at 1 s for the ingest run (default 1; the issue's case is 30)
#   RUNS=N     rounds of each measurement (default 3): min and median are printed
#   MONTH_DAYS=N  daily logs of the month case (default 30, issue 33: ingest <= 1.5x report)
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
# RUNS rounds, each: report, then ingest into a fresh store, then the same ingest again
# (all already there); wall and CPU seconds of each (bench/timeit.c), the ratio
# ingest/report within the same round, then min and median over the rounds.  The load
# average is printed: the build machine is shared, and wall time moves with it.
RUNS=${RUNS:-3}
TIMEIT=$D/timeit
${CC:-cc} -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -o "$TIMEIT" bench/timeit.c
log=$D/days$DAYS.log
[ -f "$log" ] || "$GEN" --seconds $((DAYS * 86400)) --gpus 8 --seed 1 -o "$log"
say "$(wc -c <"$log" | tr -d ' ') bytes, $DAYS day(s) of 8 GPUs at 1 s; $RUNS rounds; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
cat "$log" >/dev/null	# warm the page cache: every round reads from memory
rm -f "$D"/rep.res "$D"/ing.res "$D"/again.res
i=0
while [ $i -lt "$RUNS" ]; do
	rm -f "$D/ingest.db" "$D/ingest.db-wal" "$D/ingest.db-shm"
	"$TIMEIT" "$D/rep.res" "$GT" report "$log" >/dev/null
	"$TIMEIT" "$D/ing.res" "$GT" ingest -q --db "$D/ingest.db" "$log" >/dev/null
	"$TIMEIT" "$D/again.res" "$GT" ingest -q --db "$D/ingest.db" "$log" >/dev/null
	i=$((i + 1))
done
paste "$D/rep.res" "$D/ing.res" "$D/again.res" | awk -v days="$DAYS" '
function sort3(a, n,   i, j, t) { for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t } }
{ n++; rw[n] = $1; rc[n] = $2; iw[n] = $5; ic[n] = $6; aw[n] = $9; ratio[n] = $5 / $1; cratio[n] = $6 / $2 }
END {
	sort3(rw, n); sort3(rc, n); sort3(iw, n); sort3(ic, n); sort3(aw, n); sort3(ratio, n); sort3(cratio, n)
	m = int((n + 1) / 2)
	printf "bench-store: %d day(s): report wall %.2f s min / %.2f s median (CPU %.2f / %.2f); ingest wall %.2f / %.2f s (CPU %.2f / %.2f); again %.2f / %.2f s\n",
		days, rw[1], rw[m], rc[1], rc[m], iw[1], iw[m], ic[1], ic[m], aw[1], aw[m]
	printf "bench-store: ingest / report in the same round: wall %.2fx min, %.2fx median; CPU %.2fx min, %.2fx median (target: little more, <= 2x) %s\n",
		ratio[1], ratio[m], cratio[1], cratio[m], cratio[m] <= 2 ? "ok" : "FAIL"
}'
say "store after $DAYS day(s): $(wc -c <"$D/ingest.db" | tr -d ' ') bytes; load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

# ---- a month of daily logs: ingest against report, target 1.5x ---------------------
# Issue 33: MONTH_DAYS (default 30) daily logs of 8 GPUs at 1 s (gen-logs, one file a day as
# logrotate leaves them, 124 MB each), made once and reused while the generator is unchanged.
# RUNS rounds, each: report DIR, then ingest DIR into a fresh store, interleaved; the ratio
# ingest/report is taken within each round, on wall and on CPU time, and each median is judged:
# wall time is what a user waits for (ingest's fingerprints run beside its parse), CPU time the
# steadier figure on a shared machine.
MDAYS=${MONTH_DAYS:-30}
MD=$D/month$MDAYS
want="month $MDAYS $(cksum <bench/gen.c)"
if [ ! -f "$MD.stamp" ] || [ "$(cat "$MD.stamp")" != "$want" ]; then
	say "generating $MD: $MDAYS daily logs of 8 GPUs"
	rm -rf "$MD"
	mkdir -p "$MD"
	i=0
	while [ $i -lt "$MDAYS" ]; do
		day=$(date -u -d "2026-11-01 + $i day" +%Y-%m-%d)
		"$GEN" --seconds 86400 --gpus 8 --seed $((i + 1)) --start "$day" -o "$MD/dmon-$day.log"
		i=$((i + 1))
	done
	printf '%s\n' "$want" >"$MD.stamp"
fi
say "month: $(cat "$MD"/*.log | wc -c | tr -d ' ') bytes in $MDAYS files; $RUNS rounds; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
cat "$MD"/*.log >/dev/null	# warm the page cache
rm -f "$D"/mrep.res "$D"/ming.res
i=0
while [ $i -lt "$RUNS" ]; do
	rm -f "$D/month.db" "$D/month.db-wal" "$D/month.db-shm"
	"$TIMEIT" "$D/mrep.res" "$GT" report "$MD" >/dev/null
	"$TIMEIT" "$D/ming.res" "$GT" ingest -q --db "$D/month.db" "$MD" >/dev/null
	i=$((i + 1))
done
paste "$D/mrep.res" "$D/ming.res" | awk -v days="$MDAYS" '
function sort3(a, n,   i, j, t) { for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t } }
{ n++; rw[n] = $1; rc[n] = $2; iw[n] = $5; ic[n] = $6; ratio[n] = $5 / $1; cratio[n] = $6 / $2; printf "bench-store: month round %d: report %.2f s wall %.2f s CPU, ingest %.2f s wall %.2f s CPU: %.2fx wall, %.2fx CPU\n", n, $1, $2, $5, $6, $5 / $1, $6 / $2 }
END {
	sort3(rw, n); sort3(rc, n); sort3(iw, n); sort3(ic, n); sort3(ratio, n); sort3(cratio, n)
	m = int((n + 1) / 2)
	printf "bench-store: %d daily logs: report wall %.2f s median (CPU %.2f); ingest wall %.2f s (CPU %.2f); medians\n", days, rw[m], rc[m], iw[m], ic[m]
	printf "bench-store: ingest/report (month), median of the rounds: wall %.2fx, CPU %.2fx (target <= 1.5x)\n", ratio[m], cratio[m]
	if (ratio[m] <= 1.5) printf "  PASS ingest of %d days: ingest/report wall %.2fx <= 1.5x\n", days, ratio[m]
	else printf "  FAIL ingest of %d days: ingest/report wall %.2fx > 1.5x\n", days, ratio[m]
	if (cratio[m] <= 1.5) printf "  PASS ingest of %d days: ingest/report CPU %.2fx <= 1.5x\n", days, cratio[m]
	else printf "  FAIL ingest of %d days: ingest/report CPU %.2fx > 1.5x\n", days, cratio[m]
}'
say "month store: $(wc -c <"$D/month.db" | tr -d ' ') bytes; load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

# ---- a year of minutes of 8 GPUs ------------------------------------------------
# The schema from a real ingest, then 365 x 1440 x 8 rows made by SQL (a busy day shape);
# the hours are then made by the program itself: the store is marked v2 without what v3 to v6
# added (the hours table and four files columns; the events and outages tables; the findings'
# code; the processes' user and job), and the next ingest migrates it (v3 fills the hours from
# the minutes).
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
CREATE TABLE f4 (gpu INTEGER NOT NULL, kind TEXT NOT NULL, t0_ns INTEGER NOT NULL, t1_ns INTEGER,
  severity INTEGER, value REAL, message TEXT, evidence TEXT, PRIMARY KEY (gpu, kind, t0_ns)) WITHOUT ROWID;
INSERT INTO f4 SELECT gpu, kind, t0_ns, t1_ns, severity, value, message, evidence FROM findings;
DROP TABLE findings; ALTER TABLE f4 RENAME TO findings;
DROP TABLE events; DROP TABLE outages; DROP TABLE hours; PRAGMA user_version = 2;
ALTER TABLE files DROP COLUMN compression; ALTER TABLE files DROP COLUMN lines;
ALTER TABLE files DROP COLUMN records; ALTER TABLE files DROP COLUMN skipped;
ALTER TABLE proc_minutes DROP COLUMN user; ALTER TABLE proc_minutes DROP COLUMN job;
PRAGMA wal_checkpoint(TRUNCATE);" >/dev/null
t1=$(now)
"$GT" ingest -q --db "$D/year.db" examples/h200-training >/dev/null
sqlite3 "$D/year.db" "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null
tm=$(now)
rows=$(sqlite3 "$D/year.db" "SELECT count(*) FROM minutes")
size=$(wc -c <"$D/year.db" | tr -d ' ')
"$GT" trend --db "$D/year.db" --by day >/dev/null	# warm the page cache once
awk -v a="$t0" -v b="$t1" -v m="$tm" -v rows="$rows" -v size="$size" 'BEGIN {
	printf "bench-store: a year of 8 GPUs: %d minute rows made in %.1f s, migrated to v3 (hours) in %.1f s, store %.0f MB (target < 1000) %s\n",
		rows, b - a, m - b, size / 1e6, size < 1e9 ? "ok" : "FAIL"
}'
rm -f "$D"/tday.res "$D"/tmonth.res "$D"/ttz.res
i=0
while [ $i -lt "$RUNS" ]; do
	"$TIMEIT" "$D/tday.res" "$GT" trend --db "$D/year.db" --by day >"$D/trend.txt"
	"$TIMEIT" "$D/tmonth.res" "$GT" trend --db "$D/year.db" --by month --profile h200-vs-cloud >"$D/month.txt"
	"$TIMEIT" "$D/ttz.res" "$GT" trend --db "$D/year.db" --by day --tz Europe/Berlin >"$D/trend-tz.txt"
	i=$((i + 1))
done
paste "$D/tday.res" "$D/tmonth.res" "$D/ttz.res" | awk '
function sort3(a, n,   i, j, t) { for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t } }
{ n++; d[n] = $1; mo[n] = $5; z[n] = $9 }
END {
	sort3(d, n); sort3(mo, n); sort3(z, n); m = int((n + 1) / 2)
	printf "bench-store: trend --by day %.2f s min / %.2f s median (target < 1 s) %s; --by month %.2f / %.2f s; --by day --tz Europe/Berlin %.2f / %.2f s %s\n",
		d[1], d[m], d[m] < 1 ? "ok" : "FAIL", mo[1], mo[m], z[1], z[m], z[m] < 1 ? "ok" : "FAIL"
}'
say "$(sed -n '3p' "$D/trend.txt")"
say "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
