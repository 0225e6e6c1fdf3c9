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

# ---- 6. a line of 40 MiB (the limit is 16 MiB): one bad line, lines right --
python3 - "$D" "$T/long.log" <<'PY'
import sys
rows = open(sys.argv[1]).read().split("\n")
# row 100 of the capture, repeated without newlines past 40 MiB
long = rows[99] * (40 * 1024 * 1024 // len(rows[99]) + 1)
open(sys.argv[2], "w").write("\n".join(rows[:100] + [long] + rows[100:]))
PY
gzip -1 -c "$T/long.log" >"$T/long.log.gz"
for f in long.log long.log.gz; do
	"$BIN" dump "$T/$f" >"$T/long.out" 2>"$T/long.err"
	nbad=$(grep -c '"kind":"bad"' "$T/long.out")
	"$BIN" dump "$D" >"$T/short.out" 2>/dev/null
	# every record of the capture, the rows after line 100 one line later
	if [ "$nbad" = 1 ] && grep -q '"line":101,"col":0,"msg":"line longer than 16777216 bytes"' "$T/long.out" &&
	   python3 - "$T/short.out" "$T/long.out" <<'PY'
import json, sys
a = [json.loads(l) for l in open(sys.argv[1])]
b = [json.loads(l) for l in open(sys.argv[2]) if '"bad"' not in l]
for r in a:
    if r["line"] > 100: r["line"] += 1
sys.exit(0 if a == b else 1)
PY
	then ok "$f: a 40 MiB line is one bad line, the rows after it keep their line numbers"
	else bad "$f: a 40 MiB line ($nbad bad lines)"; grep '"bad"' "$T/long.out" | head -3 | cut -c1-200; fi
done
rm -f "$T/long.log" "$T/long.log.gz" "$T/long.out"

# ---- 3b. the files beside the logs are bounded too -------------------------
for c in "report --gpu-map /dev/zero $D" "report --profile /dev/zero $D" "scale /dev/zero" \
	 "scale --logs --app-log /dev/zero $D" "alert --rules /dev/zero $D"; do
	# shellcheck disable=SC2086
	lim "$BIN" $c >/dev/null 2>"$T/b.err"
	rc=$?
	if [ $rc -ne 0 ] && [ $rc -lt 124 ] && grep -q '/dev/zero.*\(longer than\|at most\)' "$T/b.err"
	then ok "$c: stops with a message (exit $rc)"
	else bad "$c (exit $rc)"; head -3 "$T/b.err"; fi
done

# ---- 4. no raw control character from a log reaches a terminal ------------
# the capture's pmon log with its process renamed to one that retitles and
# recolours a terminal; a file name and a kernel line holding the same
ESC=$(printf '\033') BEL=$(printf '\007')
HOSTILE="py${ESC}]0;pwned${BEL}${ESC}[31mthon"
mkdir -p "$T/h"
sed "s/python3 /$HOSTILE /" "$EX/pmon_um_DT.log" >"$T/h/pmon.log"
cp "$D" "$T/h/dmon${ESC}[2J.log"
printf '[  12.345678] NVRM: Xid (PCI:0000:3b:00): 79, pid=635, name=%s, GPU has fallen off the bus.\n' "$HOSTILE" >"$T/h/kern.log"
printf ' 20261129    22:46:40       0  %s\n' "$HOSTILE" >>"$T/h/dmon${ESC}[2J.log"
"$BIN" ingest -q --db "$T/h.db" "$T/h/pmon.log" "$T/h/dmon${ESC}[2J.log" >/dev/null 2>&1
raw() {	# NAME FILE...: no ESC or BEL in the files
	name=$1; shift
	if cat "$@" | grep -q "[$ESC$BEL]"; then bad "$name: raw control characters"; cat -v "$@" | grep -a '\^\[' | head -3
	else ok "$name"; fi
}
"$BIN" report "$T/h" >"$T/r.out" 2>"$T/r.err"
raw "report (text): process, file name and bad line escaped" "$T/r.out" "$T/r.err"
grep -q 'py\\x1b\]0;pwned\\x07' "$T/r.out" || bad "report (text) shows the name as \\x1b]0;pwned\\x07"
"$BIN" dump "$T/h" >/dev/null 2>"$T/d.err"
raw "dump: its messages on standard error" "$T/d.err"
"$BIN" alert "$T/h" >"$T/a.out" 2>"$T/a.err"
raw "alert (text)" "$T/a.out" "$T/a.err"
"$BIN" trend --db "$T/h.db" >"$T/t.out" 2>"$T/t.err"
raw "trend (text): task names" "$T/t.out" "$T/t.err"
grep -q 'pwned' "$T/t.out" || bad "trend (text) lists the task"
"$BIN" trend --db "$T/h.db" --csv >"$T/tc.out" 2>&1
raw "trend --csv" "$T/tc.out"
"$BIN" ingest --db "$T/h2.db" "$T/h" >"$T/i.out" 2>"$T/i.err"
raw "ingest: file names" "$T/i.out" "$T/i.err"
"$BIN" doctor --kernel-log "$T/h/kern.log" >"$T/k.out" 2>"$T/k.err"
raw "doctor (text): a kernel line" "$T/k.out" "$T/k.err"
"$BIN" scale --logs "$T/h" >"$T/s.out" 2>"$T/s.err"
raw "scale --logs (text)" "$T/s.out" "$T/s.err"
"$BIN" formats >"$T/fm.out" 2>&1
raw "formats" "$T/fm.out"

# ---- 5. per-input memory: 3000 small logs in a row ----------------------------
# five rows of the capture's dmon log each, ten seconds apart, none overlapping.
# Not under AddressSanitizer (make san, the second half of make check): its
# quarantine keeps freed memory (up to 256 MB) and its redzones double small
# blocks, so peak RSS is ASan's, not the program's.  That was the "56 KB an
# input in the full CI path" against 1.6 KB when the tier ran alone: the same
# 3000 logs measure 56 KB an input with an ASan build, 2.2 KB with its
# quarantine off (ASAN_OPTIONS=quarantine_size_mb=0), 1.6 KB without ASan.
if grep -aq __asan_init "$BIN" 2>/dev/null; then
	echo "skip: 3000 logs' peak RSS: $BIN is built with AddressSanitizer (its quarantine and redzones are not the program's memory; make stream-tests measures it)"
elif [ -x /usr/bin/time ]; then
	python3 - "$D" "$T/many" <<'PY'
import datetime, os, sys
src = open(sys.argv[1]).read().split("\n")
hdr, rows = src[:2], [l for l in src[2:] if l.strip() and not l.startswith("#")][:5]
base = datetime.datetime(2026, 11, 1)
os.makedirs(sys.argv[2])
for i in range(3000):
    out = hdr[:]
    for k, r in enumerate(rows):
        t = base + datetime.timedelta(seconds=i * 10 + k)
        f = r.split()
        out.append(" " + t.strftime("%Y%m%d    %H:%M:%S") + " " + " ".join("%6s" % x for x in f[2:]))
    open(os.path.join(sys.argv[2], "dmon_%05d.log" % i), "w").write("\n".join(out) + "\n")
PY
	# peak RSS is the least of three runs: which inputs a moment holds open
	# depends on the threads' timing, and one run on a busy machine (the CI
	# path saw 56 KB an input once, 1.6 KB in every other run) says little
	least() {	# least OUT CMD...: the least peak RSS (KB) of three runs of CMD
		out=$1
		shift
		m=
		for k in 1 2 3; do
			rm -f "$T/m.db" "$T/m.db-wal" "$T/m.db-shm"
			env -i PATH="$PATH" TZ=UTC LC_ALL=C /usr/bin/time -f %M "$@" >/dev/null 2>"$T/rss"
			v=$(tail -1 "$T/rss")
			[ -z "$m" ] || [ "$v" -lt "$m" ] && m=$v
		done
		echo "$m" >"$out"
	}
	# one thread (-j 1): what is kept per input, not how far the readers run ahead
	least "$T/m1" "$BIN" report -j 1 "$T/many/dmon_00000.log"
	least "$T/m3000" "$BIN" report -j 1 "$T/many"
	least "$T/mi" "$BIN" ingest -q -j 1 --db "$T/m.db" "$T/many"
	one=$(cat "$T/m1") all=$(cat "$T/m3000") ing=$(cat "$T/mi")
	per=$(( (all - one) * 1024 / 3000 )) peri=$(( (ing - one) * 1024 / 3000 ))
	# 1.2 KB of an input's statistics stay to the end; 7.5 KB each did before
	if [ $per -lt 3000 ] && [ $peri -lt 4500 ]; then
		ok "3000 logs: $per bytes an input in report, $peri in ingest (peak RSS)"
	else
		bad "3000 logs: $per bytes an input in report, $peri in ingest (peak RSS; want < 3000, 4500)"
	fi
	rm -rf "$T/many" "$T/m.db"
fi

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
