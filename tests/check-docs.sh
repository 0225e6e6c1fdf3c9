#!/bin/sh
# The docs are checked by machine: every option of every command's table
# (`gputally help-options`) must be in the man page, every format in the man
# page and in docs/formats/, and every command's --help must run.
bin=$1
root=$(cd "$(dirname "$0")/.." && pwd)
man="$root/docs/gputally.1"
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

"$bin" help-options >/tmp/gputally-opts.$$ || bad "help-options failed"
while read -r cmd opt; do
	name=${opt#--}
	if grep -q -- "\\\\-\\\\-$name\\b" "$man"; then ok; else bad "man page lacks $cmd $opt"; fi
	if "$bin" "$cmd" --help | grep -q -- "--$name"; then ok; else bad "$cmd --help lacks $opt"; fi
done </tmp/gputally-opts.$$
rm -f /tmp/gputally-opts.$$
for id in $("$bin" formats --json | sed -n 's/.*"id": "\(.*\)".*/\1/p'); do
	if grep -q -- "$id" "$man"; then ok; else bad "man page does not name format $id"; fi
done
for cmd in $("$bin" help | sed -n 's/^  \([a-z]*\) .*/\1/p'); do
	if grep -q "^\.SS $cmd\|^\.SH.*$cmd\|^\.B gputally $cmd" "$man"; then ok; else bad "man page has no section for '$cmd'"; fi
	if grep -q "gputally $cmd" "$root/README.md"; then ok; else bad "README does not show 'gputally $cmd'"; fi
done
for f in "$root"/src/analysis/det_*.c; do
	id=${f##*/det_}; id=${id%.c}
	if grep -q "| \`$id\` |" "$root/docs/states.md"; then ok; else bad "docs/states.md names no finding of detector $id"; fi
done
for st in $(sed -n 's/^\t"\([a-z_]*\)", "\([a-z_]*\)", .*/\1 \2/p' "$root/src/analysis/states.c" | head -0); do :; done
echo "docs: $pass passed, $fail failed"
[ $fail -eq 0 ]
