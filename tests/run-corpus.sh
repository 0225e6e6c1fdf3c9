#!/bin/sh
# Real published nvidia-smi family outputs (tests/corpus/, sources in its README).
# Each FILE has FILE.expect (key=value, see tests/corpus/README.md).  A file listed
# in tests/corpus/xfail fails as expected; an xfail that passes is a note.
# A second argument names another directory of .expect files (tests/issue15:
# hand-made cases), whose `file=` key names the input, relative to the root.
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${2:-tests/corpus}
export LC_ALL=C TZ=UTC
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0 xfail=0 xpass=0

# get KEY FILE: the value of KEY in an .expect file
get() { sed -n "s/^$1=//p" "$2" | head -1; }

# check one file; prints the first reason it fails, nothing when it passes
check() {
	f=$1 e=$2
	args=$(get args "$e")
	# shellcheck disable=SC2086
	"$bin" dump $args "$f" >"$tmp/dump" 2>"$tmp/err"; rc=$?
	[ $rc -ge 124 ] && { echo "dump crashed (exit $rc)"; return; }
	# shellcheck disable=SC2086
	"$bin" report --json $args "$f" >"$tmp/json" 2>/dev/null; rc=$?
	[ $rc -ge 124 ] && { echo "report crashed (exit $rc)"; return; }
	want=$(get format "$e")
	got=$(sed -n 's/^      "format": "\{0,1\}\([^",]*\)"\{0,1\},$/\1/p' "$tmp/json" | head -1)
	[ -z "$got" ] && got=null
	[ -n "$want" ] && [ "$got" != "$want" ] && { echo "format $got, want $want"; return; }
	want=$(get gpus "$e")
	got=$(grep -c '^      "samples": ' "$tmp/json")
	[ -n "$want" ] && [ "$got" != "$want" ] && { echo "$got GPUs, want $want"; return; }
	want=$(get skipped "$e")
	got=$(sed -n 's/^  "skipped_lines": \([0-9]*\),$/\1/p' "$tmp/json")
	[ -n "$want" ] && [ "$got" != "$want" ] && { echo "$got skipped lines, want $want"; return; }
	# json.NAME=VALUE: the first "NAME": VALUE of the report
	for k in $(sed -n 's/^json\.\([a-z_]*\)=.*/\1/p' "$e"); do
		want=$(get "json\.$k" "$e")
		got=$(sed -n "s/^ *\"$k\": \(.*\),\{0,1\}\$/\1/p" "$tmp/json" | head -1 | sed 's/,$//')
		[ "$got" != "$want" ] && { echo "$k $got, want $want"; return; }
	done
	# the rest is read from the dump, one flat JSON object per line
	awk -v expect="$e" -f "$root/tests/corpus/check.awk" "$tmp/dump"
}

for e in "$root/$dir"/*.expect "$root/$dir"/*/*.expect; do
	[ -f "$e" ] || continue
	f=${e%.expect}
	[ -n "$(get file "$e")" ] && f=$root/$(get file "$e")
	rel=${e#"$root/$dir"/}
	rel=${rel%.expect}
	touch -t 202611292300 "$f"
	why=$(check "$f" "$e")
	listed=$(grep -v '^#' "$root/tests/corpus/xfail" 2>/dev/null | awk -v r="$rel" '$1 == r { $1 = ""; print; exit }')
	if [ -z "$why" ]; then
		if [ -n "$listed" ]; then
			echo "PASS $rel (note: listed in xfail as$listed, now passes)"; xpass=$((xpass + 1))
		else
			echo "PASS $rel"
		fi
		pass=$((pass + 1))
	elif [ -n "$listed" ]; then
		echo "XFAIL $rel:$listed: $why"; xfail=$((xfail + 1))
	else
		echo "FAIL $rel: $why"; fail=$((fail + 1))
	fi
done
echo "$(basename "$dir"): $pass passed, $fail failed ($xfail expected failures, $xpass xfail now passing)"
[ $fail -eq 0 ]
