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
while read -r cmd opt _arg; do
	name=${opt#--}
	if grep -q -- "\\\\-\\\\-$name\\b" "$man"; then ok; else bad "man page lacks $cmd $opt"; fi
	if "$bin" "$cmd" --help | grep -q -- "--$name"; then ok; else bad "$cmd --help lacks $opt"; fi
done </tmp/gputally-opts.$$
# The man page against each command's one option list (cli/options.h), section
# by section: every option of the table is in the command's .SS section, and
# every option an entry of that section names (the line after .TP) is in the
# table, with the table's argument when the entry names one ("--tz ZONE"),
# so the page can neither miss an option, keep one that is gone, nor show
# another argument than --help.
awk -v optsfile=/tmp/gputally-opts.$$ '
BEGIN {
	while ((getline l < optsfile) > 0) {
		split(l, a, " ")
		o = substr(a[2], 3)
		has[a[1], o] = 1
		arg[a[1], o] = a[3]
		cmds[++n] = a[1]
		names[n] = o
	}
}
{ gsub(/\\-/, "-") }
/^\.SS / { cur = $2; prev = ""; next }
/^\.SH / { cur = ""; next }
cur != "" { text[cur] = text[cur] "\n" $0 }
cur != "" && prev ~ /^\.TP/ && /^\.B[IR]? / {
	s = $0
	while (match(s, /--[a-z][a-z0-9-]*/)) {
		o = substr(s, RSTART + 2, RLENGTH - 2)
		s = substr(s, RSTART + RLENGTH)
		if (!((cur, o) in has)) {
			print "man page: the " cur " section lists --" o ", which is not an option of " cur
			continue
		}
		print "ok"
		# the argument the entry shows: " \fIDUR\fR|\fITIME\fR" -> DUR|TIME
		if (match(s, /^ *" *[^"]*"/)) {
			shown = substr(s, RSTART, RLENGTH)
			gsub(/\\f[BIRP]/, "", shown)
			gsub(/^ *" *|" *$/, "", shown)
			sub(/ +$/, "", shown)
			if (shown ~ /^[A-Z]/)
				print (shown == arg[cur, o] ? "ok" : "man page: " cur " --" o " shows " shown ", --help " (arg[cur, o] == "" ? "no argument" : arg[cur, o]))
		}
	}
}
{ prev = $0 }
END {
	for (i = 1; i <= n; i++)
		if ((text[cmds[i]] "\n") ~ ("--" names[i] "([^a-z0-9-]|$)")) print "ok"
		else print "man page: --" names[i] " is not in the " cmds[i] " section"
}' "$man" >/tmp/gputally-optman.$$
while read -r line; do
	if [ "$line" = ok ]; then ok; else bad "$line"; fi
done </tmp/gputally-optman.$$
rm -f /tmp/gputally-opts.$$ /tmp/gputally-optman.$$
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
