#!/bin/sh
# SPDX-License-Identifier: MIT
# check-layers.sh: every #include "..." under src/ must respect the layer order
# of docs/internals/layers.md.  Prints each offending include as file:line and
# exits 1; prints a one-line summary and exits 0 when all are allowed.
#
# Layers, lowest first: util formats timeline analysis cost store report pipeline record cli
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
'
