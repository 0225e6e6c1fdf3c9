#!/bin/sh
# SPDX-License-Identifier: MIT
# Install the Debian packages gputally needs to build and test, if missing.
# Usage: scripts/install-deps.sh [build|test|bench|fuzz|deb]
set -e
pkgs="gcc make pkg-config zlib1g-dev libzstd-dev libinih-dev libmicrohttpd-dev libsqlite3-dev libcurl4-openssl-dev libexpat1-dev tzdata"
# deb: `make deb` (dpkg-buildpackage, debhelper, lintian); the test tier
# deb-tests also runs systemd-analyze (systemd), adduser and the unit's /bin/kill
# (procps) in a throwaway root.
debpkgs="dpkg-dev debhelper fakeroot lintian adduser systemd procps"
case "${1:-build}" in
test)  pkgs="$pkgs libcmocka-dev gzip zstd tzdata curl python3 chromium sqlite3 prometheus prometheus-alertmanager $debpkgs" ;;
deb)   pkgs="$pkgs $debpkgs" ;;
bench) pkgs="$pkgs mawk python3" ;;
fuzz)  pkgs="$pkgs clang libclang-rt-14-dev" ;;
esac
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "install-deps: installing$missing" >&2
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends $missing
