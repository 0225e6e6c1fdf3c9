#!/bin/sh
# SPDX-License-Identifier: MIT
# Print gputally's version, one line, usable as a Debian upstream version:
#   1. the VERSION file at the top of the tree (a release tarball, a `make deb` copy);
#   2. else `git describe` of the last v<N> tag: v0.2.0 -> 0.2.0,
#      v0.2.0-7-gabc1234 -> 0.2.0+7.gabc1234 (seven commits after the tag);
#   3. else, in a clone with no tag, 0.0.0+<commit count>.g<hash>;
#   4. else 0.0.0~unknown ("~": dpkg sorts it before every other version, so
#      any real build upgrades it).
# A working tree with uncommitted changes to tracked files adds ".dirty".
# Usage: scripts/version.sh [source-dir]
cd "${1:-$(dirname "$0")/..}" || exit 1
if [ -f VERSION ]; then
	v=$(sed -n '1{s/[[:space:]]//g;p;}' VERSION)
	case $v in
	[0-9]*) printf '%s\n' "$v"; exit 0 ;;
	esac
	echo "version.sh: $(pwd)/VERSION:1:1: not a version (it must start with a digit): '$v'" >&2
	exit 1
fi
if git rev-parse --is-inside-work-tree >/dev/null 2>&1 &&
   [ "$(git rev-parse --show-toplevel 2>/dev/null)" = "$(pwd -P)" ]; then
	dirty=""
	# refresh the index's stat data first: a file a test only touched is not a change
	git update-index -q --refresh >/dev/null 2>&1 || :
	git diff-index --quiet HEAD -- 2>/dev/null || dirty=".dirty"
	if d=$(git describe --tags --match 'v[0-9]*' 2>/dev/null); then
		d=${d#v}
		case $d in
		*-*-g*) n=${d%-g*}; printf '%s+%s.g%s%s\n' "${n%-*}" "${n##*-}" "${d##*-g}" "$dirty" ;;
		*) printf '%s%s\n' "${d}" "${dirty:++dirty}" ;;
		esac
		exit 0
	fi
	if h=$(git rev-parse --short=7 HEAD 2>/dev/null); then
		printf '0.0.0+%s.g%s%s\n' "$(git rev-list --count HEAD)" "$h" "$dirty"
		exit 0
	fi
fi
echo "0.0.0~unknown"
