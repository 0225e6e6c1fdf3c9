#!/bin/sh
# End-to-end golden tests: one directory per case under tests/golden/.
#   cmd         the arguments after `gputally` (one line; run inside the case directory)
#   expect.out  exact standard output
#   expect.err  exact standard error (optional)
#   expect.rc   exit code (optional, default 0)
# Runs with LC_ALL=C TZ=UTC.  GOLDEN_UPDATE=1 rewrites the expectations:
# review the diff like code.  The binary's version (`gputally --version`,
# which changes with every commit) is written @VERSION@ in the expectations,
# both in stdout and stderr.
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$(cd "$(dirname "$0")/.." && pwd)
pass=0 fail=0
export LC_ALL=C TZ=UTC
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
version=$("$bin" --version | sed -n 's/^gputally //p')
if [ -z "$version" ]; then echo "FAIL: '$bin --version' printed no version"; exit 1; fi
# the version as a sed pattern: . [ \ * ^ $ / are escaped, + is literal in a BRE
vre=$(printf '%s\n' "$version" | sed 's/[].[\*^$/]/\\&/g')

for dir in "$root"/tests/golden/*/; do
	name=$(basename "$dir")
	[ -f "$dir/cmd" ] || continue
	cd "$dir" || continue
	# shellcheck disable=SC2046
	eval "set -- $(cat cmd)"
	"$bin" "$@" >"$tmp/raw.out" 2>"$tmp/raw.err"
	rc=$?
	sed "s/$vre/@VERSION@/g" "$tmp/raw.out" >"$tmp/out"
	sed "s/$vre/@VERSION@/g" "$tmp/raw.err" >"$tmp/err"
	want_rc=0
	[ -f expect.rc ] && want_rc=$(cat expect.rc)
	if [ -n "$GOLDEN_UPDATE" ]; then
		cp "$tmp/out" expect.out
		if [ -s "$tmp/err" ] || [ -f expect.err ]; then cp "$tmp/err" expect.err; fi
		if [ $rc -ne 0 ]; then echo $rc >expect.rc; else rm -f expect.rc; fi
		want_rc=$rc
	fi
	ok=1
	if [ $rc -ge 124 ]; then echo "FAIL: $name crashed (exit $rc)"; cat "$tmp/err"; ok=0; fi
	if [ $ok = 1 ] && [ "$rc" != "$want_rc" ]; then echo "FAIL: $name: exit $rc, want $want_rc"; head -5 "$tmp/err"; ok=0; fi
	if [ $ok = 1 ] && ! diff -u expect.out "$tmp/out" >"$tmp/diff"; then echo "FAIL: $name: stdout differs"; head -30 "$tmp/diff"; ok=0; fi
	if [ $ok = 1 ] && [ -f expect.err ] && ! diff -u expect.err "$tmp/err" >"$tmp/diff"; then echo "FAIL: $name: stderr differs"; head -30 "$tmp/diff"; ok=0; fi
	if [ $ok = 1 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
done
echo "golden: $pass passed, $fail failed"
[ $fail -eq 0 ]
