#!/bin/sh
# SPDX-License-Identifier: MIT
# Issue 9's and issue 33's kernel-log targets: `gputally report` on a ~1 GB kern.log must take at
# most twice the time of `grep -c NVRM` on the same file, with peak RSS < 64 MiB, in two cases:
#   rare      NVRM lines are rare (67 Xids in 6 million lines): the noise path
#   frequent  one kernel line in ten is an NVIDIA driver line (NVRM notices, nvidia-modeset,
#             NVSwitch SXids, a few events) of one of eight GPUs: the NVIDIA-line path
# Usage: sh bench/kernlog.sh [BUILD_DIR]   (`make bench` passes build/)
#   KERNLOG_BYTES (default 1000000000) sets the size, RUNS (default 5) the runs of each command,
#   KERNLOG_CASES (default "rare frequent") the cases.
#
# grep is timed in the same run, interleaved with the report, so the ratio means something on
# any machine.  grep's output goes to a file: GNU grep stops at the first match when its output
# is /dev/null.  The ratio is taken on the medians of wall time and, the steadier figure on a
# shared machine, of CPU time; both are printed and the verdict is on wall time.
# A measurement, not a test: it exits 0 even when a target is missed, and says FAIL.
set -eu

B=${1:-build}
GT=$B/gputally
GEN=$B/gen-kernlog
D=$B/bench
RUNS=${RUNS:-5}
BYTES=${KERNLOG_BYTES:-1000000000}
CASES=${KERNLOG_CASES:-rare frequent}
RSS_LIMIT_KIB=65536	# 64 MiB
RATIO_LIMIT=2.0

say() { printf '%s\n' "bench-kernlog: $*"; }
. bench/lib.sh

for f in "$GT" "$GEN"; do
	[ -x "$f" ] || { say "$f is missing; run 'make' first"; exit 1; }
done
mkdir -p "$D"
TIMEIT=$D/timeit
${CC:-cc} -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -o "$TIMEIT" bench/timeit.c

# One case: NAME FILE GENERATOR-ARGS...  Prints the table, the ratios and the checks.
kcase() {
	name=$1 F=$2
	shift 2
	# Generated once; the stamp holds the arguments, the generator's checksum and the size.
	want="--bytes $BYTES --seed 1 $* $(cksum <bench/gen_kernlog.c)"
	if stamp_current "$F" "$want" && [ -f "$F.counts" ]; then
		say "reusing $F"
	else
		say "generating $F (about $BYTES bytes of kern.log${*:+, $*})"
		rm -f "$F.stamp"
		"$GEN" --bytes "$BYTES" --seed 1 "$@" -o "$F" 2>"$F.counts"
		stamp_write "$F" "$want"
	fi
	size=$(wc -c <"$F" | tr -d ' ')

	rm -f "$D"/kl.*.res
	say "$name: load before: $(cut -d' ' -f1-3 /proc/loadavg)"
	cat "$F" >/dev/null
	i=1
	while [ "$i" -le "$RUNS" ]; do
		say "$name run $i/$RUNS: grep -c NVRM, gputally report --json"
		"$TIMEIT" "$D/kl.grep.res" grep -c NVRM "$F" >"$D/kl.grep.out" || true
		"$TIMEIT" "$D/kl.report.res" "$GT" report --json "$F" >"$D/kl.report.json" ||
			say "gputally report exited with status $?"
		i=$((i + 1))
	done

	echo
	printf 'kernel log, %s NVIDIA lines: %s (%s bytes, %s NVRM lines), median of %d runs; load after: %s\n' \
		"$name" "$F" "$size" "$(awk '$1 == "nvrm" { print $2 }' "$F.counts")" "$RUNS" \
		"$(cut -d' ' -f1-3 /proc/loadavg)"
	printf '  %-24s %9s %9s %9s %12s\n' command wall_s cpu_s MB/s peak_RSS_MB
	for c in grep report; do
		w=$(median "$D/kl.$c.res" 1)
		u=$(median "$D/kl.$c.res" 2)
		r=$(max_col "$D/kl.$c.res" 3)
		[ "$c" = grep ] && label="grep -c NVRM" || label="gputally report --json"
		awk -v n="$label" -v w="$w" -v u="$u" -v r="$r" -v b="$size" 'BEGIN {
			printf "  %-24s %9.3f %9.3f %9.1f %12.1f\n", n, w, u, b / 1e6 / w, r / 1024 }'
	done
	gw=$(median "$D/kl.grep.res" 1)
	gc=$(median "$D/kl.grep.res" 2)
	rw=$(median "$D/kl.report.res" 1)
	rc=$(median "$D/kl.report.res" 2)
	rr=$(max_col "$D/kl.report.res" 3)
	# Judged on wall time, what the issue measures (how long a user waits, against
	# grep's wait; the report may use both cores where grep uses one).  The CPU
	# ratio is printed beside it, not judged: it is the steadier figure on a shared
	# machine, and what the report's second thread costs (docs/perf.md).
	awk -v g="$gw" -v r="$rw" -v gc="$gc" -v rc="$rc" -v lim="$RATIO_LIMIT" -v n="$name" 'BEGIN {
		printf "  ratio report/grep, %s: wall %.2f (target <= %.1f), CPU %.2f (not a target)\n", n, r / g, lim, rc / gc
		if (r / g <= lim) printf "  PASS kernel log (%s NVIDIA lines): report/grep wall %.2f <= 2\n", n, r / g
		else printf "  FAIL kernel log (%s NVIDIA lines): report/grep wall %.2f > 2 (needs %.1fx less)\n", n, r / g, r / g / lim
		printf "  info kernel log (%s NVIDIA lines): report/grep CPU %.2f (two threads against one)\n", n, rc / gc }'
	awk -v r="$rr" -v lim="$RSS_LIMIT_KIB" -v n="$name" 'BEGIN {
		if (r < lim) printf "  PASS kernel log (%s): peak RSS %.1f MB < 64 MB\n", n, r / 1024
		else printf "  FAIL kernel log (%s): peak RSS %.1f MB >= 64 MB\n", n, r / 1024 }'

	# The planted Xids, counted by the generator, against the report's kernel events (not its
	# findings: repeats of one Xid code on one GPU within a minute are one finding); grep's
	# count of NVRM lines against the generator's.
	planted=$(awk '$1 == "xids" { print $2 }' "$F.counts")
	nvrm=$(awk '$1 == "nvrm" { print $2 }' "$F.counts")
	grepped=$(cat "$D/kl.grep.out")
	found=$(grep -c '"message": "NVRM: Xid' "$D/kl.report.json" || true)
	if [ "$nvrm" = "$grepped" ] && [ "$planted" = "$found" ]; then
		printf '  PASS kernel log (%s): the report found the %s planted Xids (grep counts the %s NVRM lines written)\n' \
			"$name" "$planted" "$grepped"
	else
		printf '  FAIL kernel log (%s): %s Xids planted, the report found %s; %s NVRM lines written, grep counts %s\n' \
			"$name" "$planted" "$found" "$nvrm" "$grepped"
	fi
	# Their lines too: the Xid events' source lines against grep -n.
	want_lines=$(grep -n 'NVRM: Xid' "$F" | cut -d: -f1 | tr '\n' ' ')
	got_lines=$(grep -A1 '"message": "NVRM: Xid' "$D/kl.report.json" |
		sed -n 's/.*"source": ".*:\([0-9]*\)".*/\1/p' | sort -n | tr '\n' ' ')
	if [ "$want_lines" = "$got_lines" ]; then
		say "PASS ($name): the Xid events' source lines are grep's line numbers"
	else
		say "FAIL ($name): Xid source lines '$got_lines', grep -n '$want_lines'"
	fi
	echo
}

for c in $CASES; do
	case $c in
	rare) kcase rare "$D/kern-1G.log" ;;
	frequent) kcase frequent "$D/kern-nv-1G.log" --nvidia-every 10 ;;
	*) say "no such case: $c" ;;
	esac
done
exit 0
