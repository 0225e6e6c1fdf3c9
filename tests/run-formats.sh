#!/bin/sh
# Format fixtures: the verdict is in the file name (tests/formats/<id>/).
#   y_*   must parse; `gputally dump` output must equal y_*.expect
#   n_*   has bad lines; the "file:line:col: reason" lines must equal n_*.expect-err
#   i_*   anything goes, except a crash
# A file NAME.args next to a fixture holds extra arguments (e.g. --date).
# Every registered format must have a fixture directory and docs/formats/<id>.md.
# GOLDEN_UPDATE=1 rewrites the expectations.
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$(cd "$(dirname "$0")/.." && pwd)
pass=0 fail=0
export LC_ALL=C TZ=UTC
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

for id in $("$bin" formats --json | sed -n 's/.*"id": "\(.*\)".*/\1/p'); do
	[ -d "$root/tests/formats/$id" ] && ok || bad "format $id has no tests/formats/$id/"
	[ -f "$root/docs/formats/$id.md" ] && ok || bad "format $id has no docs/formats/$id.md"
	# the doc's sample is the fixture: every line of y_basic.* must be in the page
	sample=$(ls "$root/tests/formats/$id"/y_basic.* 2>/dev/null | grep -v '\.expect$' | head -1)
	if [ -z "$sample" ]; then
		bad "format $id has no tests/formats/$id/y_basic.* (the doc's sample)"
	else
		missing=0
		while IFS= read -r line; do
			grep -qxF -- "$line" "$root/docs/formats/$id.md" || missing=$((missing + 1))
		done <"$sample"
		[ $missing -eq 0 ] && ok || bad "docs/formats/$id.md lacks $missing line(s) of $(basename "$sample")"
	fi
done

for dir in "$root"/tests/formats/*/; do
	id=$(basename "$dir")
	cd "$dir" || continue
	# SQLite fixtures are kept as SQL text (NAME.sql): built here into the
	# NAME.sqlite that is tested (git-ignored) with the sqlite3 command line
	for s in *.sql; do
		[ -f "$s" ] || continue
		rm -f "${s%.sql}.sqlite"
		sqlite3 "${s%.sql}.sqlite" <"$s" || bad "$id/$s: sqlite3 cannot build it"
	done
	for f in y_* n_* i_*; do
		[ -f "$f" ] || continue
		case "$f" in *.expect|*.expect-err|*.args|*.sql) continue ;; esac
		base=${f%.*}
		args=""
		[ -f "$base.args" ] && args=$(cat "$base.args")
		# files without time are anchored at their modification time
		touch -t 202611292300 "$f"
		# shellcheck disable=SC2086
		"$bin" dump --format "$id" $args "$f" >"$tmp/out" 2>"$tmp/err"
		rc=$?
		if [ $rc -ge 124 ]; then bad "$id/$f: crashed (exit $rc)"; cat "$tmp/err"; continue; fi
		case "$f" in
		y_*)
			if [ -n "$GOLDEN_UPDATE" ]; then cp "$tmp/out" "$base.expect"; fi
			if [ $rc -ne 0 ]; then bad "$id/$f: exit $rc"; cat "$tmp/err"; continue; fi
			if grep -q '"kind":"bad"' "$tmp/out"; then bad "$id/$f: a y_ fixture has bad lines"; grep '"kind":"bad"' "$tmp/out" | head -3; continue; fi
			if diff -u "$base.expect" "$tmp/out" >"$tmp/diff"; then ok; else bad "$id/$f: output differs"; head -20 "$tmp/diff"; fi ;;
		n_*)
			grep -E '^[^ ]+:[0-9]+:[0-9]+: ' "$tmp/err" >"$tmp/errl"
			if [ -n "$GOLDEN_UPDATE" ]; then cp "$tmp/errl" "$base.expect-err"; fi
			if [ ! -s "$tmp/errl" ]; then bad "$id/$f: no bad line reported"; continue; fi
			if diff -u "$base.expect-err" "$tmp/errl" >"$tmp/diff"; then ok; else bad "$id/$f: errors differ"; head -20 "$tmp/diff"; fi ;;
		i_*)
			ok ;;
		esac
	done
done
# Cross-sniff: each y_ fixture that needs no arguments is sniffed as the
# format of its directory, so a new format neither takes another's files nor
# loses its own.  The few that cannot be told by their head are listed in
# tests/formats/sniff-exceptions.txt, each with its reason.
for f in "$root"/tests/formats/*/y_*; do
	case "$f" in *.expect|*.expect-err|*.args|*.sql) continue ;; esac
	[ -f "${f%.*}.args" ] && continue
	id=$(basename "$(dirname "$f")")
	rel=${f#"$root"/tests/formats/}
	grep -q "^$rel " "$root/tests/formats/sniff-exceptions.txt" && continue
	got=$("$bin" dump "$f" 2>&1 >/dev/null | sed -n "s|^$f: \([a-z0-9-]*\),.*|\1|p" | head -1)
	[ "$got" = "$id" ] && ok || bad "$rel: sniffed as '${got:-nothing}', not $id"
done
echo "formats: $pass passed, $fail failed"
[ $fail -eq 0 ]
