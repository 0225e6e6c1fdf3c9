#!/bin/sh
# Issue 33: streams, shared stores, terminals, bounds.  Each check runs a
# real command on rows of examples/h200-training (or a store built from
# them) and states what it wants; every check failed before its fix.
# Usage: sh tests/streams/run.sh BIN
set -u
BIN=$1
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
EX=$ROOT/examples/h200-training
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT INT TERM
export LC_ALL=C TZ=UTC
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok: $1"; }
bad() { fail=$((fail + 1)); echo "FAIL: $1"; }
# run CMD... with a time limit (a hang is a failure, not a stuck tier)
lim() { timeout 20 "$@"; }

# ---- trend --csv: an hour with no GPU time has empty cells, never nan ----
Q=$EX/query_gpu_units_500ms.csv
{ head -1 "$Q"; sed -n 2,40p "$Q" | sed 's#2026/11/29 22:#2026/11/29 19:#'; sed -n '41,$p' "$Q"; } >"$T/gap.csv"
"$BIN" ingest -q --db "$T/gap.db" "$T/gap.csv" >/dev/null 2>&1
"$BIN" trend --db "$T/gap.db" --csv --by hour >"$T/gap.out" 2>&1
if grep -q '2026-11-29T20Z' "$T/gap.out" && ! grep -qi 'nan\|,-,' "$T/gap.out" &&
   grep -q '^2026-11-29T20:00:00Z,2026-11-29T20Z,1,0.000000,0.000000,,,,' "$T/gap.out"; then
	ok "trend --csv: the hours inside a gap have empty cells"
else
	bad "trend --csv: the hours inside a gap have empty cells"; cat "$T/gap.out"
fi

# ---- 1. every input read once: a FIFO, a pipe, /dev/stdin, <(...) --------
D=$EX/dmon_pucvmet_DT.log
"$BIN" report --json "$D" >"$T/file.json" 2>/dev/null
# the same report as on the file, but for the inputs' names
same() {	# NAME JSON
	if python3 - "$T/file.json" "$2" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for r in (a, b):
    for i in r["inputs"]:
        i.pop("path", None)
        i["time_basis"] = (i["time_basis"] or "").split(" of ")[0]
    r.pop("generated_at", None)
sys.exit(0 if a == b else 1)
PY
	then ok "$1"; else bad "$1"; head -c 600 "$2"; echo; fi
}
lim "$BIN" report --json - <"$D" >"$T/a.json" 2>"$T/a.err"
same "report - (a file on standard input)" "$T/a.json"
cat "$D" | lim "$BIN" report --json - >"$T/b.json" 2>"$T/b.err"
same "cat log | report -" "$T/b.json"
cat "$D" | lim "$BIN" report --json /dev/stdin >"$T/c.json" 2>"$T/c.err"
same "cat log | report /dev/stdin" "$T/c.json"
lim bash -c '"$0" report --json <(cat "$1")' "$BIN" "$D" >"$T/d.json" 2>"$T/d.err"
same "report <(cat log)" "$T/d.json"
mkfifo "$T/fifo"
# the writer has finished before the report opens the FIFO a second time
cat "$D" >"$T/fifo" &
lim "$BIN" report --json "$T/fifo" >"$T/e.json" 2>"$T/e.err"
same "report FIFO (no hang once the writer is done)" "$T/e.json"
wait
# the header first, the rows a second later: the header must not be lost
{ head -2 "$D"; sleep 1; tail -n +3 "$D"; } >"$T/fifo" &
lim "$BIN" report --json "$T/fifo" >"$T/f.json" 2>"$T/f.err"
same "report FIFO while the writer writes (header kept)" "$T/f.json"
wait
cat "$D" >"$T/fifo" &
if lim "$BIN" dump "$T/fifo" >"$T/g.out" 2>"$T/g.err" &&
   [ "$(wc -l <"$T/g.out")" = "$("$BIN" dump "$D" 2>/dev/null | wc -l)" ]; then ok "dump FIFO"
else bad "dump FIFO"; cat "$T/g.err"; fi
wait
K=$ROOT/tests/trace/data
KT=$(ls "$K"/*.json.gz 2>/dev/null | head -1)
if [ -n "$KT" ]; then
	"$BIN" trace --json "$KT" >"$T/tf.json" 2>/dev/null
	cat "$KT" >"$T/fifo" &
	lim "$BIN" trace --json "$T/fifo" >"$T/tp.json" 2>"$T/tp.err"
	wait
	if { grep -v '"path"' "$T/tf.json" >"$T/tf2"; grep -v '"path"' "$T/tp.json" >"$T/tp2"; cmp -s "$T/tf2" "$T/tp2"; }
	then ok "trace FIFO (a gzip trace)"
	else bad "trace FIFO (a gzip trace)"; cat "$T/tp.err"; fi
fi
# a bound on the copy of a stream, with a note past it
head -c 200000 "$Q" | GPUTALLY_SPOOL_MAX=50000 lim "$BIN" report - >"$T/h.out" 2>"$T/h.err"
if grep -q 'stopped early: a stream longer than 50000 bytes (GPUTALLY_SPOOL_MAX)' "$T/h.out" &&
   grep -q 'from 1 of 1 input' "$T/h.out"; then ok "a stream past GPUTALLY_SPOOL_MAX: read up to it, and said"
else bad "a stream past GPUTALLY_SPOOL_MAX"; cat "$T/h.out" "$T/h.err"; fi
# a stream no format takes is refused at once, not copied
if ! lim "$BIN" report /dev/zero >"$T/z.out" 2>"$T/z.err" && grep -q '/dev/zero: not a recognised format' "$T/z.err"
then ok "report /dev/zero: refused at once"; else bad "report /dev/zero"; cat "$T/z.err"; fi

# ---- 3. ingest: a stream is refused at once, never fingerprinted forever ----
for dev in /dev/zero "$T/fifo"; do
	lim "$BIN" ingest --db "$T/z.db" "$dev" "$D" >"$T/i.out" 2>"$T/i.err"
	rc=$?
	if [ $rc = 1 ] && grep -q "unreadable .*not a regular file" "$T/i.out" && grep -q '^new ' "$T/i.out"
	then ok "ingest $(basename "$dev"): refused at once (exit 1), the other file stored"
	else bad "ingest $dev (exit $rc)"; cat "$T/i.out" "$T/i.err"; fi
	rm -f "$T/z.db"
done

# ---- 2. two to four writers into one new store ------------------------------
# each round: four ingests of four logs of the capture start at once into a
# store that does not exist yet; all must store their file (no "table meta
# already exists"), and the store must cover what one-at-a-time ingests cover
set -- dmon_pucvmet_DT.log query_gpu_units_500ms.csv pmon_um_DT.log gpu_monitor_h200_capture_20261129.csv
for f in "$@"; do "$BIN" ingest -q --db "$T/seq.db" "$EX/$f" >/dev/null 2>&1; done
"$BIN" trend --db "$T/seq.db" --csv | cut -d, -f1-4 >"$T/seq.csv"
rounds=0 good=0
for r in 1 2 3 4 5 6 7 8; do
	rm -f "$T/par.db" "$T/par.db-wal" "$T/par.db-shm" "$T"/par?.out
	w=4
	[ $((r % 3)) = 0 ] && w=2	# some rounds with two writers
	n=0
	for f in "$@"; do
		[ $n = $w ] && break
		n=$((n + 1))
		lim "$BIN" ingest -q --db "$T/par.db" "$EX/$f" >"$T/par$n.out" 2>&1 &
	done
	wait
	rounds=$((rounds + 1))
	nfiles=$(python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute("select count(*) from files").fetchone()[0])' "$T/par.db" 2>/dev/null)
	if grep -q 'error' "$T"/par?.out || [ "$nfiles" != "$w" ]; then
		echo "round $r ($w writers): $nfiles file(s) stored"; grep -h error "$T"/par?.out
	elif [ $w = 4 ] && ! "$BIN" trend --db "$T/par.db" --csv | cut -d, -f1-4 | cmp -s - "$T/seq.csv"; then
		echo "round $r: the store covers other hours than one-at-a-time ingests"
	else
		good=$((good + 1))
	fi
done
if [ $good = $rounds ]; then ok "concurrent ingests into a new store: $good of $rounds rounds stored every file"
else bad "concurrent ingests into a new store: $good of $rounds rounds stored every file"; fi

echo "streams: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
