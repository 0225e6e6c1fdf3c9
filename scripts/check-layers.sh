#!/bin/sh
# SPDX-License-Identifier: MIT
# check-layers.sh: every #include "..." under src/ must respect the layer order
# of docs/internals/layers.md.  Prints each offending include as file:line and
# exits 1; prints a one-line summary and exits 0 when all are allowed.
#
# Layers, lowest first: util formats timeline analysis cost store report pipeline record cli
# (main.c on top).  A file may include its own layer and lower ones, except that
# cost/ may include only util/, record/ only util/ and formats/, report/ anything
# but record/, pipeline/ and cli/, nothing but cli/ may include record/ or pipeline/, main.c may include
# only cli/, and nothing else may include cli/.  An include without a
# directory ("formats_list.h") names a neighbouring or generated file of the
# includer's own layer; "../" is refused, as it would hide the real layer.

#
# Two more rules follow the layer check (docs/internals/layers.md):
#  - no include cycles between files: a file (foo.c with foo.h) may not
#    include, directly or through others, a header of a file that includes
#    its own;
#  - the driver names no format: no src/formats/driver*.[ch] includes a
#    header that declares a format (extern const struct format) or names a
#    format's symbol (format_<name>) or id ("smi-query").
# The tree checked is the repository's, or the directory given (tests plant
# cases in a copy).

cd "${1:-$(dirname "$0")/..}" || exit 2
if [ ! -d src ]; then
	echo "check-layers: no src/ directory" >&2
	exit 2
fi
status=0

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
	if (to == "pipeline")
		return from == "cli"
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
	n = split("util formats timeline analysis cost store report pipeline record cli", order, " ")
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
' || status=1

# ---- no include cycles between files ----------------------------------------
# A node is a file without its extension (foo.c and foo.h are one file); an
# edge is an #include "dir/x.h" of a file under src/.  Every back edge of a
# depth-first walk closes a cycle, printed from the include that closes it.
find src -type f \( -name '*.c' -o -name '*.h' -o -name '*.inc' -o -name '*.def' \) |
LC_ALL=C sort |
awk '
function node(path) {
	sub(/\.[^.\/]*$/, "", path)
	return path
}

function walk(v,    i, w, k, path) {
	color[v] = 1
	stack[++sp] = v
	for (i = 1; i <= nout[v]; i++) {
		w = out[v, i]
		if (color[w] == 1) {
			path = ""
			for (k = sp; k > 1 && stack[k] != w; k--)
				;
			for (; k <= sp; k++)
				path = path stack[k] " -> "
			printf "%s: include cycle: %s%s\n", at[v, w], path, w
			cycles++
		} else if (!color[w]) {
			walk(w)
		}
	}
	color[v] = 2
	sp--
}

{
	files[$0] = 1
	order[++nfiles] = $0
}

END {
	for (f = 1; f <= nfiles; f++) {
		file = order[f]
		from = node(file)
		if (!(from in seen)) {
			seen[from] = 1
			nodes[++nnodes] = from
		}
		lineno = 0
		while ((getline text < file) > 0) {
			lineno++
			if (text !~ /^[ \t]*#[ \t]*include[ \t]*"/)
				continue
			inc = text
			sub(/^[^"]*"/, "", inc)
			sub(/".*$/, "", inc)
			if (index(inc, "/") == 0 || !(("src/" inc) in files))
				continue
			to = node("src/" inc)
			if (to == from || ((from, to) in at))
				continue
			at[from, to] = file ":" lineno ": #include \"" inc "\""
			out[from, ++nout[from]] = to
		}
		close(file)
	}
	for (i = 1; i <= nnodes; i++)
		if (!color[nodes[i]])
			walk(nodes[i])
	if (cycles) {
		printf "check-layers: %d include cycle(s) between files (see docs/internals/layers.md)\n", cycles
		exit 1
	}
	printf "check-layers: %d files, no include cycles\n", nnodes
}
' || status=1

# ---- the driver names no format ---------------------------------------------
# Formats are reached through struct format and its hooks; the driver files
# include no header that declares a format, and name no format_<name> symbol
# or format id.
{
	for f in src/formats/fmt_*.c; do
		[ -e "$f" ] || continue
		b=${f##*/fmt_}
		echo "sym format_${b%.c}"
		sed -n 's/^[ \t]*\.id[ \t]*=[ \t]*"\([^"]*\)".*/id \1/p' "$f"
	done
	grep -l 'extern const struct format' src/formats/*.h 2>/dev/null | sed 's/^src\//hdr /'
	for f in src/formats/driver*.c src/formats/driver*.h; do
		[ -e "$f" ] && echo "file $f"
	done
} |
awk '
$1 == "sym" { syms[++nsyms] = $2; next }
$1 == "id"  { ids[++nids] = $2; next }
$1 == "hdr" { hdrs[$2] = 1; next }
$1 == "file" {
	file = $2
	nf++
	lineno = 0
	while ((getline text < file) > 0) {
		lineno++
		if (text ~ /^[ \t]*#[ \t]*include[ \t]*"/) {
			inc = text
			sub(/^[^"]*"/, "", inc)
			sub(/".*$/, "", inc)
			if (inc in hdrs || inc ~ /(^|\/)fmt_[^\/]*$/) {
				printf "%s:%d: #include \"%s\": the driver names no format (use a struct format hook)\n", file, lineno, inc
				bad++
			}
			continue
		}
		for (i = 1; i <= nsyms; i++)
			if (match(text, "(^|[^A-Za-z0-9_])" syms[i] "([^A-Za-z0-9_]|$)")) {
				printf "%s:%d: names %s: the driver names no format (use a struct format hook)\n", file, lineno, syms[i]
				bad++
			}
		for (i = 1; i <= nids; i++)
			if (index(text, "\"" ids[i] "\"")) {
				printf "%s:%d: names format \"%s\": the driver names no format (use a struct format hook)\n", file, lineno, ids[i]
				bad++
			}
	}
	close(file)
}
END {
	if (bad) {
		printf "check-layers: the driver names a format %d time(s) (see docs/internals/layers.md)\n", bad
		exit 1
	}
	printf "check-layers: %d driver files, no format named\n", nf
}
' || status=1

# ---- writers do not compute (docs/internals/adding-a-writer.md) -----------
# A writer renders figures that a compute step (report_compute(),
# cost_run_compute(), trend_report_compute(), report_fleet_compute()) put in
# its struct; it never calls the functions that work them out, so two
# writers cannot print two numbers for one figure.  Every file of
# src/report/ is a writer but the compute steps named here, so a new writer
# is checked without being listed; the forbidden names are here and only here.
COMPUTE_FILES="src/report/report.c src/report/fleet.c src/report/month.c src/report/trend_report.c src/report/attrib.c"
WRITER_FILES=$(for f in src/report/*.c; do
	case " $COMPUTE_FILES " in *" $f "*) ;; *) echo "$f" ;; esac
done)
COMPUTE_NAMES="gpu_util_mean gpu_util_quantile gpu_power_mean gpu_energy_j analysis_useful_s
analysis_rank_findings report_compute report_fleet_compute report_month_compute report_attrib_compute report_state_share report_finding_cost
cost_longrun cost_window cost_local_per_useful_hour cost_cloud_job cost_billed_hours
cost_job_breakeven cost_sensitivity cost_roi cost_roi_sensitivity cost_run_compute
trend_report_compute trend_measured_power scale_compute trace_compute qsort qsort_r"

# A writer that loops over a list inside a loop over the same list is
# grouping it (text.c once found each severity and kind's GPUs that way,
# n squared): report_compute() groups once.  The lists, by their counts:
SCANNED_LISTS="nfinds nbad nevs nsegs nprocs"

# writers_compute FILE...: print each call of a COMPUTE_NAMES function
# outside comments, and each loop over a SCANNED_LISTS list nested in a
# loop over the same list (by indentation, the house's tabs), as
# file:line; exit 1 if there is one.
writers_compute() {
	awk -v names="$COMPUTE_NAMES" -v lists="$SCANNED_LISTS" '
	BEGIN { n = split(names, nm, /[ \t\n]+/); nl = split(lists, ls, /[ \t\n]+/) }
	FNR == 1 { incomment = 0; depth = 0 }
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
		if (code ~ /[^ \t]/) {
			ind = match(code, /[^\t]/) - 1
			while (depth > 0 && ind <= lind[depth])
				depth--
			if (code ~ /(^|[^A-Za-z0-9_])for[ \t]*\(/)
				for (k = 1; k <= nl; k++)
					if (ls[k] != "" && match(code, "(->|\\.|[^A-Za-z0-9_])" ls[k] "([^A-Za-z0-9_]|$)")) {
						for (j = 1; j <= depth; j++)
							if (llist[j] == ls[k]) {
								printf "%s:%d: a writer loops over %s inside a loop over it: group them in the compute step\n", FILENAME, FNR, ls[k]
								bad++
								break
							}
						depth++
						lind[depth] = ind
						llist[depth] = ls[k]
						break
					}
		}
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
# and a nested scan, not two loops one after the other
printf 'static void f(const struct analysis *an)\n{\n\tfor (size_t i = 0; i < an->nfinds; i++)\n\t\tg(i);\n\tfor (size_t i = 0; i < an->nfinds; i++) {\n\t\tfor (size_t k = i; k < an->nfinds; k++)\n\t\t\tg(k);\n\t}\n}\n' >"$plant"
if [ "$(writers_compute "$plant" | grep -c ':6: a writer loops over nfinds')" -ne 1 ] ||
   [ "$(writers_compute "$plant" | wc -l)" -ne 1 ]; then
	echo "check-layers: the writers rule does not catch a planted nested scan" >&2
	rm -f "$plant"
	exit 2
fi
rm -f "$plant"
# shellcheck disable=SC2086 # the list is words, the glob is meant
if writers_compute $WRITER_FILES; then
	echo "check-layers: writers do not compute ($(echo $WRITER_FILES | wc -w) files)"
else
	echo "check-layers: a writer computes (see docs/internals/adding-a-writer.md)"
	status=1
fi
exit $status
