#!/bin/sh
# SPDX-License-Identifier: MIT
# check-layers.sh: every #include "..." under src/ must respect the layer order
# of docs/internals/layers.md.  Prints each offending include as file:line and
# exits 1; prints a one-line summary and exits 0 when all are allowed.
#
# Layers, lowest first: util formats timeline analysis cost store report record cli
# (main.c on top).  A file may include its own layer and lower ones, except that
# cost/ may include only util/, record/ only util/ and formats/, report/ anything
# but record/ and cli/, nothing but cli/ may include record/, main.c may include
# only cli/, and nothing else may include cli/.  An include without a
# directory ("formats_list.h") names a neighbouring or generated file of the
# includer's own layer; "../" is refused, as it would hide the real layer.

cd "$(dirname "$0")/.." || exit 2
if [ ! -d src ]; then
	echo "check-layers: no src/ directory" >&2
	exit 2
fi

find src -type f \( -name '*.c' -o -name '*.h' -o -name '*.inc' -o -name '*.def' \) |
LC_ALL=C sort |
awk '
function layer_of(path,    rest) {
	rest = path
	sub(/^src\//, "", rest)
	if (rest == "main.c")
		return "main"
	if (index(rest, "/") == 0)
		return ""
	sub(/\/.*$/, "", rest)
	return rest
}

# 1 if a file in layer `from` may include a header of layer `to`.
function allowed(from, to) {
	if (to == from)
		return 1
	if (to == "cli")
		return from == "main"
	if (from == "main")
		return 0
	if (to == "record")
		return from == "cli"
	if (from == "record")
		return to == "util" || to == "formats"
	if (from == "cost")
		return to == "util"
	if (from == "report")
		return 1
	return rank[to] <= rank[from]
}

function complain(file, line, inc, why) {
	printf "%s:%d: #include \"%s\": %s\n", file, line, inc, why
	bad++
}

BEGIN {
	n = split("util formats timeline analysis cost store report record cli", order, " ")
	for (i = 1; i <= n; i++)
		rank[order[i]] = i
	rank["main"] = n + 1
	nfiles = 0
	nincs = 0
	bad = 0
}

{
	file = $0
	nfiles++
	from = layer_of(file)
	if (from == "" || !(from in rank)) {
		printf "%s: not in a known layer (src/<layer>/ or src/main.c)\n", file
		bad++
		next
	}
	lineno = 0
	while ((getline text < file) > 0) {
		lineno++
		if (text !~ /^[ \t]*#[ \t]*include[ \t]*"/)
			continue
		inc = text
		sub(/^[^"]*"/, "", inc)
		sub(/".*$/, "", inc)
		nincs++
		if (inc ~ /(^|\/)\.\.(\/|$)/ || inc ~ /^\//) {
			complain(file, lineno, inc, "not relative to src/; use \"layer/file.h\"")
			continue
		}
		if (index(inc, "/") == 0)
			continue	# same directory or generated: the includer'"'"'s own layer
		to = inc
		sub(/\/.*$/, "", to)
		if (!(to in rank) || to == "main") {
			complain(file, lineno, inc, "unknown layer \"" to "\"")
			continue
		}
		if (!allowed(from, to))
			complain(file, lineno, inc, "layer " from " may not include " to)
	}
	close(file)
}

END {
	if (bad) {
		printf "check-layers: %d files, %d includes, %d not allowed", nfiles, nincs, bad
		print " (see docs/internals/layers.md)"
		exit 1
	}
	printf "check-layers: %d files, %d includes, ok\n", nfiles, nincs
}
'
layers_rc=$?

# ---- writers do not compute (docs/internals/adding-a-writer.md) -----------
# A writer renders figures that a compute step (report_compute(),
# cost_run_compute(), trend_report_compute(), report_fleet_compute()) put in
# its struct; it never calls the functions that work them out, so two
# writers cannot print two numbers for one figure.  The writer files and the
# forbidden names are listed here and only here.
WRITER_FILES="src/report/text.c src/report/markdown.c src/report/html.c src/report/json.c src/report/svg.c
src/report/cost_explain.c src/report/*_out.c"
COMPUTE_NAMES="gpu_util_mean gpu_util_quantile gpu_power_mean gpu_energy_j analysis_useful_s
analysis_rank_findings report_compute report_fleet_compute report_state_share report_finding_cost
cost_longrun cost_window cost_local_per_useful_hour cost_cloud_job cost_billed_hours
cost_job_breakeven cost_sensitivity cost_roi cost_roi_sensitivity cost_run_compute
trend_report_compute trend_measured_power scale_compute trace_compute qsort qsort_r"

# writers_compute FILE...: print each call of a COMPUTE_NAMES function
# outside comments as file:line; exit 1 if there is one.
writers_compute() {
	awk -v names="$COMPUTE_NAMES" '
	BEGIN { n = split(names, nm, /[ \t\n]+/) }
	FNR == 1 { incomment = 0 }
	{
		line = $0; code = ""
		while (line != "") {
			if (incomment) {
				i = index(line, "*/")
				if (!i) { line = ""; break }
				line = substr(line, i + 2); incomment = 0
			} else {
				i = index(line, "/*")
				if (!i) { code = code line; line = ""; break }
				code = code substr(line, 1, i - 1); line = substr(line, i + 2); incomment = 1
			}
		}
		sub(/\/\/.*/, "", code)
		for (k = 1; k <= n; k++)
			if (nm[k] != "" && match(code, "(^|[^A-Za-z0-9_])" nm[k] "[ \t]*\\(")) {
				printf "%s:%d: a writer calls %s(): work the figure out in its compute step\n", FILENAME, FNR, nm[k]
				bad++
			}
	}
	END { exit bad > 0 }' "$@"
}

# the rule must be able to fail: a planted call is caught, a comment is not
plant=$(mktemp) || exit 2
printf '/* gpu_util_mean(g) in a comment */\nstatic double f(const struct gpu_stats *g)\n{\n\treturn gpu_util_mean (g);\n}\n' >"$plant"
if writers_compute "$plant" >/dev/null || [ "$(writers_compute "$plant" | wc -l)" -ne 1 ]; then
	echo "check-layers: the writers rule does not catch a planted call" >&2
	rm -f "$plant"
	exit 2
fi
rm -f "$plant"
# shellcheck disable=SC2086 # the list is words, the glob is meant
if writers_compute $WRITER_FILES; then
	echo "check-layers: writers do not compute ($(echo $WRITER_FILES | wc -w) files)"
else
	echo "check-layers: a writer computes (see docs/internals/adding-a-writer.md)"
	layers_rc=1
fi
exit $layers_rc
