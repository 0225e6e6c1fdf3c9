#!/bin/sh
# SPDX-License-Identifier: MIT
# `make deb`: build gputally_<version>_<arch>.deb with dpkg-buildpackage in a
# copy of the tree, so neither the tree nor its parent directory gets the
# build's files.  The copy holds what git tracks plus untracked files it does
# not ignore (the whole tree, less build directories, without git), a VERSION
# file (scripts/version.sh of this tree), and a debian/changelog entry of that
# version on top.  The .deb, its .buildinfo and .changes and the -dbgsym
# package end up in OUT; lintian, when installed, checks the .deb and fails on
# an error.
# Usage: scripts/mkdeb.sh OUT
set -e
root=$(cd "$(dirname "$0")/.." && pwd)
[ $# -eq 1 ] || { echo "usage: $0 OUT" >&2; exit 2; }
mkdir -p "$1"
out=$(cd "$1" && pwd)
ver=$(sh "$root/scripts/version.sh" "$root")
case $ver in
[0-9]*) ;;
*) echo "mkdeb: scripts/version.sh gave '$ver', not a version" >&2; exit 1 ;;
esac
for tool in dpkg-buildpackage dh; do
	command -v $tool >/dev/null || {
		echo "mkdeb: $tool is missing: apt-get install dpkg-dev debhelper fakeroot (or scripts/install-deps.sh test)" >&2
		exit 1
	}
done

stage=$out/src
rm -rf "$stage"
src=$stage/gputally-$ver
mkdir -p "$src"
cd "$root"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1 &&
   [ "$(git rev-parse --show-toplevel)" = "$(pwd -P)" ]; then
	# tracked files deleted in the work tree are left out
	git ls-files -z --cached --others --exclude-standard |
		tar --null -T - --ignore-failed-read -cf - | tar -xf - -C "$src"
	when=$(git log -1 --format=%cD HEAD)
	what="git $(git rev-parse --short=12 HEAD)"
else
	tar --exclude=./build --exclude='./build-*' --exclude=./.git -cf - . | tar -xf - -C "$src"
	when=$(date -R ${SOURCE_DATE_EPOCH:+-d @$SOURCE_DATE_EPOCH})
	what="a tree without git"
fi
echo "$ver" >"$src/VERSION"

# the changelog entry of this version (its date: the commit's, for a
# reproducible package)
maint=$(sed -n 's/^Maintainer: //p' debian/control)
{
	printf 'gputally (%s) unstable; urgency=medium\n\n' "$ver"
	printf '  * Built by make deb from %s.\n\n' "$what"
	printf ' -- %s  %s\n\n' "$maint" "$when"
	cat debian/changelog
} >"$src/debian/changelog"

cd "$src"
# the package's build is its own: not the caller's make variables (O=,
# SANITIZE=, DEVELOPER=) or job server, which MAKEFLAGS would carry
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES O SANITIZE DEVELOPER CFLAGS CPPFLAGS LDFLAGS
echo "mkdeb: dpkg-buildpackage -us -uc -b in $src" >&2
dpkg-buildpackage -us -uc -b >"$stage/build.log" 2>&1 || {
	tail -40 "$stage/build.log" >&2
	echo "mkdeb: dpkg-buildpackage failed; the whole log is $stage/build.log" >&2
	exit 1
}
arch=$(dpkg-architecture -qDEB_HOST_ARCH)
rm -f "$out"/gputally_*.deb "$out"/gputally-dbgsym_*.*deb "$out"/gputally_*.buildinfo "$out"/gputally_*.changes
mv "$stage"/gputally_"$ver"_"$arch".deb "$stage"/gputally_"$ver"_"$arch".buildinfo \
	"$stage"/gputally_"$ver"_"$arch".changes "$out"/
for f in "$stage"/gputally-dbgsym_*; do [ -e "$f" ] && mv "$f" "$out"/; done
deb=$out/gputally_${ver}_$arch.deb
if command -v lintian >/dev/null; then
	# --fail-on error: warnings are reported (and overridden with a reason
	# in debian/gputally.lintian-overrides where they are by design)
	lintian --fail-on error --info "$deb" >&2 || {
		echo "mkdeb: lintian found errors in $deb" >&2
		exit 1
	}
else
	echo "mkdeb: lintian is not installed: the package is not checked" >&2
fi
echo "$deb"
