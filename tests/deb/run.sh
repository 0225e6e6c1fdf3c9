#!/bin/sh
# SPDX-License-Identifier: MIT
# deb-tests: the Debian package (debian/, scripts/mkdeb.sh) end to end.
#   1. `make deb`'s script builds gputally_<version>_<arch>.deb from a copy of
#      the tree; lintian (inside mkdeb.sh) must report no error;
#   2. its contents: the binary, the man page, the unit, the logrotate file
#      and /etc/default file as conffiles, the profiles and data/'s tables;
#      Depends names the package of every library the binary links (dpkg -S
#      of each NEEDED), and not the dlopen()ed libcurl, libmicrohttpd or
#      NVML, which are in Recommends or Suggests;
#   3. `dpkg --root R --force-script-chrootless` installs it into a throwaway
#      root R (seeded with an empty dpkg database and the passwd files; no
#      chroot, no container): the maintainer scripts run with DPKG_ROOT=R, so
#      the user gputally and /var/log/gputally must appear in R and not on
#      this machine; the unit is enabled inside R;
#   4. R's /usr/bin/gputally: --version is the package's version, and its
#      report on the example installed under R/usr/share/doc is the same as
#      the tree's build/gputally's on it (text and --json); the JSON of
#      report, cost, alert, doctor, scale, trace and trend carries that
#      version as gputally_version;
#   5. systemd-analyze verify checks the installed unit (against R);
#   6. an edited conffile survives an upgrade to version+1 (the same package
#      repacked) and a reinstall over itself; the user is not made twice;
#   7. purge: R is as it was before the install, file for file (dpkg's own
#      database and log aside), the passwd files byte for byte.
# Needs root (dpkg --root, chown); as another user it says SKIP, unless
# CI=true, where that is a failure.  dpkg --root is given --force-depends:
# R holds no libc to satisfy Depends with.
# Usage: tests/deb/run.sh BIN BUILD_DIR
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$2"
build=$(cd "$2" && pwd)
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: deb-tests: $*"; }
skip() {
	if [ "${CI:-}" = true ]; then bad "$* (CI=true: this tier must run)"; exit 1; fi
	echo "deb-tests: SKIP: $*"; exit 0
}
[ "$(id -u)" -eq 0 ] || skip "not root (dpkg --root and the chown of /var/log/gputally need it)"
for t in dpkg-buildpackage dh lintian fakeroot systemd-analyze useradd; do
	command -v $t >/dev/null || skip "$t is missing (scripts/install-deps.sh test installs it)"
done
export LC_ALL=C TZ=UTC
mkdir -p "$build/deb"
tmp=$(mktemp -d "$build/deb/tests.XXXXXX")	# under deb/, which the Makefile does not search for *.d
trap 'rm -rf "$tmp"' EXIT
t0=$(date +%s)

# ---- 0. scripts/version.sh: each source of the version ------------------
v=$tmp/v
mkdir -p "$v/scripts"
cp "$root/scripts/version.sh" "$v/scripts/"
vs() { sh "$v/scripts/version.sh" "$v" 2>"$tmp/vs.err"; }
[ "$(vs)" = 0.0.0~unknown ] && ok || bad "version.sh without git or VERSION: '$(vs)', want 0.0.0~unknown"
G="git -C $v -c user.name=t -c user.email=t@t.invalid -c commit.gpgsign=false"
$G init -q && $G add . && $G commit -qm one && h=$($G rev-parse --short=7 HEAD)
[ "$(vs)" = "0.0.0+1.g$h" ] && ok || bad "version.sh with no tag: '$(vs)', want 0.0.0+1.g$h"
$G tag v0.2.0
[ "$(vs)" = 0.2.0 ] && ok || bad "version.sh on tag v0.2.0: '$(vs)'"
echo x >"$v/f" && $G add f && $G commit -qm two && h=$($G rev-parse --short=7 HEAD)
[ "$(vs)" = "0.2.0+1.g$h" ] && ok || bad "version.sh one commit after v0.2.0: '$(vs)', want 0.2.0+1.g$h"
touch -d 2000-01-01 "$v/f"
[ "$(vs)" = "0.2.0+1.g$h" ] && ok || bad "version.sh calls a touched but unchanged file a change: '$(vs)'"
echo y >"$v/f"
[ "$(vs)" = "0.2.0+1.g$h.dirty" ] && ok || bad "version.sh with a change: '$(vs)', want 0.2.0+1.g$h.dirty"
echo 1.4.2 >"$v/VERSION"
[ "$(vs)" = 1.4.2 ] && ok || bad "version.sh with VERSION 1.4.2: '$(vs)'"
echo banana >"$v/VERSION"
if vs >/dev/null; then bad "version.sh took VERSION 'banana'"; else
	grep -q "VERSION:1:1: not a version" "$tmp/vs.err" && ok || bad "version.sh's message on a bad VERSION: $(cat "$tmp/vs.err")"
fi
# a version that dpkg orders: each later one is greater
set -- 0.0.0~unknown 0.0.0+9.gabc1234 0.0.0+10.gabc1234 0.2.0 0.2.0+1.gabc1234 0.2.0+1.gabc1234.dirty 0.2.0+2.gabc1234 0.10.0
while [ $# -ge 2 ]; do
	dpkg --compare-versions "$1" lt "$2" && ok || bad "dpkg does not order $1 before $2"
	shift
done

# ---- 1. build -----------------------------------------------------------
ver=$(sh "$root/scripts/version.sh" "$root")
arch=$(dpkg-architecture -qDEB_HOST_ARCH)
if deb=$(sh "$root/scripts/mkdeb.sh" "$build/deb" 2>"$tmp/mkdeb.err"); then ok; else
	bad "make deb failed"; tail -30 "$tmp/mkdeb.err"; exit 1
fi
[ "$deb" = "$build/deb/gputally_${ver}_$arch.deb" ] && [ -f "$deb" ] && ok ||
	bad "the package is '$deb', want $build/deb/gputally_${ver}_$arch.deb"
# lintian ran inside mkdeb.sh with --fail-on error; say what else it said
grep '^[EW]: ' "$tmp/mkdeb.err" && bad "lintian has errors or warnings (above)" || ok
[ "$(dpkg-deb -f "$deb" Version)" = "$ver" ] && ok || bad "Version is $(dpkg-deb -f "$deb" Version), want $ver"

# ---- 2. contents and relations -----------------------------------------
dpkg-deb -c "$deb" | awk '{ print $6 }' | sed 's|^\./|/|' >"$tmp/files"
for f in /usr/bin/gputally /usr/share/man/man1/gputally.1.gz /lib/systemd/system/gputally-record.service \
	 /etc/logrotate.d/gputally-record /etc/default/gputally-record /usr/share/doc/gputally/copyright \
	 /usr/share/doc/gputally/examples/h200-training/dmon_pucvmet_DT.log; do
	grep -qx "$f" "$tmp/files" && ok || bad "the package lacks $f"
done
for p in "$root"/profiles/*.ini; do
	grep -qx "/usr/share/gputally/profiles/${p##*/}" "$tmp/files" && ok || bad "the package lacks profile ${p##*/}"
done
for p in "$root"/data/*; do	# the built-in tables (the price table), when the tree has them
	[ -f "$p" ] || continue
	grep -qx "/usr/share/gputally/${p##*/}" "$tmp/files" && ok || bad "the package lacks data file ${p##*/}"
done
dpkg-deb -e "$deb" "$tmp/control"
for c in /etc/logrotate.d/gputally-record /etc/default/gputally-record; do
	grep -qx "$c" "$tmp/control/conffiles" && ok || bad "$c is not a conffile"
done
depends=$(dpkg-deb -f "$deb" Depends)
recommends="$(dpkg-deb -f "$deb" Recommends), $(dpkg-deb -f "$deb" Suggests)"
mkdir -p "$tmp/x"
dpkg-deb -x "$deb" "$tmp/x"
for lib in $(readelf -d "$tmp/x/usr/bin/gputally" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
	path=$(ldconfig -p | awk -v l="$lib" '$1 == l { print $NF; exit }')
	pkg=$(dpkg -S "$(readlink -f "$path")" 2>/dev/null | sed -n '1s/:.*//p')
	[ -z "$pkg" ] && pkg=$(dpkg -S "$path" 2>/dev/null | sed -n '1s/:.*//p')
	case ", $depends," in
	*", $pkg "*|*", $pkg,"*) ok ;;
	*) bad "links $lib ($path, package '$pkg') but Depends is: $depends" ;;
	esac
done
for pkg in libcurl4 libmicrohttpd12 libnvidia-ml1; do
	case ", $depends," in *"$pkg"*) bad "Depends names $pkg, which is only dlopen()ed" ;; *) ok ;; esac
	case ", $recommends," in *"$pkg"*) ok ;; *) bad "neither Recommends nor Suggests names $pkg" ;; esac
done

# ---- 3. install into a throwaway root ----------------------------------
R=$tmp/root
mkdir -p "$R/var/lib/dpkg/info" "$R/var/lib/dpkg/updates" "$R/var/lib/dpkg/triggers" "$R/etc" "$R/var/log"
: >"$R/var/lib/dpkg/status"
: >"$R/var/lib/dpkg/available"
printf 'root:x:0:0:root:/root:/bin/sh\n' >"$R/etc/passwd"
printf 'root:x:0:\n' >"$R/etc/group"
printf 'root:*:19000:0:99999:7:::\n' >"$R/etc/shadow"
printf 'root:*::\n' >"$R/etc/gshadow"
chmod 640 "$R/etc/shadow" "$R/etc/gshadow"
# What a Debian system has that the unit and deb-systemd-helper use: the
# directories systemd owns, the targets the unit's default dependencies pull
# in (for systemd-analyze verify --root), and /bin/kill (ExecReload=).
mkdir -p "$R/etc/systemd/system" "$R/var/lib/systemd" "$R/lib/systemd/system" "$R/bin"
cp /lib/systemd/system/*.target "$R/lib/systemd/system/"
cp "$(readlink -f /bin/kill)" "$R/bin/kill"
snapshot() {	# every path under R but dpkg's database and log, with owner and mode
	(cd "$R" && find . \( -path ./var/lib/dpkg -o -path ./var/log/dpkg.log -o -name '*-' \) -prune -o \
		-printf '%p %u:%g %m\n' | LC_ALL=C sort)
}
snapshot >"$tmp/before"
cp -p "$R/etc/passwd" "$R/etc/group" "$R/etc/shadow" "$R/etc/gshadow" "$tmp/"
host_passwd=$(cksum </etc/passwd)
DPKG="dpkg --root=$R --force-script-chrootless --force-depends --force-not-root --log=$R/var/log/dpkg.log"
if $DPKG -i "$deb" >"$tmp/install.out" 2>&1; then ok; else bad "dpkg --root -i failed"; cat "$tmp/install.out"; fi
grep -q '^gputally:x:[0-9]*:[0-9]*:gputally record:/nonexistent:/usr/sbin/nologin$' "$R/etc/passwd" && ok ||
	bad "postinst made no user gputally in R/etc/passwd: $(cat "$R/etc/passwd")"
grep -q '^gputally:' "$R/etc/group" && ok || bad "postinst made no group gputally in R/etc/group"
[ "$(cksum </etc/passwd)" = "$host_passwd" ] && ok || bad "the install changed this machine's /etc/passwd"
uid=$(awk -F: '$1 == "gputally" { print $3 }' "$R/etc/passwd")
[ -n "$uid" ] && [ "$uid" -lt 1000 ] && ok || bad "gputally's uid '$uid' is not a system uid"
[ "$(stat -c '%u %a' "$R/var/log/gputally" 2>/dev/null)" = "$uid 755" ] && ok ||
	bad "R/var/log/gputally is '$(stat -c '%u %a' "$R/var/log/gputally" 2>&1)', want '$uid 755'"
[ -L "$R/etc/systemd/system/multi-user.target.wants/gputally-record.service" ] && ok ||
	bad "the unit is not enabled in R (deb-systemd-helper under DPKG_ROOT)"
[ "$(dpkg --root="$R" -s gputally 2>/dev/null | sed -n 's/^Status: //p')" = "install ok installed" ] && ok ||
	bad "dpkg --root does not list gputally as installed"

# ---- 3b. the maintainer scripts on a running system -----------------------
# The path a real `apt install` takes (adduser, getent, deb-systemd-helper
# without DPKG_ROOT), run in a private mount namespace over copies of /etc,
# /var/log, /var/lib/systemd and the unit directory (with the package's
# unit added), with /run/systemd hidden so that no systemd of this machine
# is asked to reload or start anything.
if unshare -m true 2>/dev/null; then
	ns=$tmp/ns
	mkdir -p "$ns/log" "$ns/systemd" "$ns/run"
	cp -a /etc "$ns/etc"
	units=$(readlink -f /lib/systemd/system)
	cp -a "$units" "$ns/units"
	cp "$tmp/x/lib/systemd/system/gputally-record.service" "$ns/units/"
	cat >"$ns/live.sh" <<'LIVE'
set -u
ns=$1 c=$2 ver=$3 units=$4
mount --bind "$ns/etc" /etc && mount --bind "$ns/log" /var/log && mkdir -p /var/lib/systemd &&
	mount --bind "$ns/systemd" /var/lib/systemd && mount --bind "$ns/units" "$units" ||
	{ echo "bad cannot bind the copies"; exit 0; }
[ -d /run/systemd ] && mount --bind "$ns/run" /run/systemd
say() { if eval "$1"; then echo ok; else echo "bad $2"; fi; }
# as dpkg runs them (deb-systemd-helper refuses to run otherwise)
export DPKG_MAINTSCRIPT_PACKAGE=gputally DPKG_MAINTSCRIPT_ARCH=$(dpkg --print-architecture)
rc=0; "$c/postinst" configure >/dev/null 2>&1 || rc=$?; say '[ $rc -eq 0 ]' "postinst configure failed"
say 'getent passwd gputally | grep -q ":/nonexistent:/usr/sbin/nologin$"' "postinst made no system user gputally (adduser)"
say '[ "$(stat -c %U:%G:%a /var/log/gputally)" = gputally:gputally:755 ]' "/var/log/gputally is $(stat -c %U:%G:%a /var/log/gputally 2>&1)"
say '[ -L /etc/systemd/system/multi-user.target.wants/gputally-record.service ]' "the unit is not enabled"
rc=0; "$c/postinst" configure "$ver" >/dev/null 2>&1 || rc=$?; say '[ $rc -eq 0 ]' "postinst configure (upgrade) failed"
say '[ "$(getent passwd | grep -c ^gputally:)" = 1 ]' "the upgrade made the user twice"
rc=0; { "$c/prerm" remove && "$c/postrm" remove; } || rc=$?; say '[ $rc -eq 0 ]' "prerm/postrm remove failed"
say 'getent passwd gputally >/dev/null' "remove took the user (only purge may)"
rc=0; "$c/postrm" purge || rc=$?; say '[ $rc -eq 0 ]' "postrm purge failed"
say '! getent passwd gputally >/dev/null && ! getent group gputally >/dev/null' "purge left the user or group gputally"
say '[ ! -e /var/log/gputally ]' "purge left /var/log/gputally"
say '[ ! -e /etc/systemd/system/multi-user.target.wants/gputally-record.service ]' "purge left the unit enabled"
LIVE
	host_group=$(cksum </etc/group)
	unshare -m sh "$ns/live.sh" "$ns" "$tmp/control" "$ver" "$units" >"$tmp/live.out" 2>&1
	while read -r w rest; do
		case $w in ok) ok ;; bad) bad "live scripts: $rest" ;; *) bad "live scripts: $w $rest" ;; esac
	done <"$tmp/live.out"
	[ "$(grep -c '^ok$\|^bad ' "$tmp/live.out")" = 12 ] && ok || bad "live scripts: $(grep -c '^ok$\|^bad ' "$tmp/live.out") of 12 checks ran"
	[ "$(cksum </etc/passwd)" = "$host_passwd" ] && [ "$(cksum </etc/group)" = "$host_group" ] && ok ||
		bad "the live scripts changed this machine's /etc/passwd or /etc/group"
else
	echo "deb-tests: note: no private mount namespace (unshare -m): the scripts' path without DPKG_ROOT is not run"
fi

# ---- 4. the installed binary ---------------------------------------------
gt=$R/usr/bin/gputally
ex=$R/usr/share/doc/gputally/examples/h200-training
[ "$("$gt" --version)" = "gputally $ver" ] && ok || bad "installed --version says '$("$gt" --version)', want 'gputally $ver'"
if "$gt" report --profile h200-vs-cloud "$ex" >"$tmp/r.txt" 2>"$tmp/r.err"; then ok; else bad "installed report failed"; head "$tmp/r.err"; fi
"$bin" report --profile h200-vs-cloud "$ex" >"$tmp/want.txt" 2>/dev/null
grep -q 'GPU' "$tmp/r.txt" && cmp -s "$tmp/r.txt" "$tmp/want.txt" && ok ||
	{ bad "the installed report differs from $bin's on the same files"; diff "$tmp/want.txt" "$tmp/r.txt" | head; }
"$gt" report --json --profile "$R/usr/share/gputally/profiles/h200-vs-cloud.ini" "$ex" >"$tmp/r.json" 2>/dev/null
"$bin" report --json --profile h200-vs-cloud "$ex" >"$tmp/want.json" 2>/dev/null
python3 - "$tmp/r.json" "$tmp/want.json" "$ver" <<'PY' && ok || bad "the installed report --json (profile from /usr/share/gputally) differs"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
assert a["gputally_version"] == sys.argv[3], a["gputally_version"]
assert a["gpus"] and a["gpus"] == b["gpus"], "gpus differ"
PY

# every JSON document carries the version (a writer without it fails here)
mkdir -p "$tmp/emptyroot"
"$gt" cost --json --profile h200-vs-cloud >"$tmp/j.cost" 2>/dev/null
"$gt" alert --json --now 2026-11-30T00:00:00Z "$ex" >"$tmp/j.alert" 2>/dev/null
"$gt" doctor --json --root "$tmp/emptyroot" >"$tmp/j.doctor" 2>/dev/null
"$gt" scale --logs --json "$ex" >"$tmp/j.scale" 2>/dev/null
"$gt" trace --json "$root/tests/trace/data/trace_compute.json.gz" >"$tmp/j.trace" 2>/dev/null
"$gt" ingest --db "$tmp/h.db" "$ex" >/dev/null 2>&1
"$gt" trend --db "$tmp/h.db" --json >"$tmp/j.trend" 2>/dev/null
for j in "$tmp/r.json" "$tmp"/j.*; do
	python3 - "$j" "$ver" <<'PY' && ok || bad "${j##*/}: no gputally_version $ver among the first members"
import json, sys
d = json.load(open(sys.argv[1]))
assert list(d)[:2].count("gputally_version") == 1 and d["gputally_version"] == sys.argv[2], list(d)[:3]
PY
done

# ---- 5. the unit ----------------------------------------------------------
# (the unit's After=nvidia-persistenced.service is not in R: verify says so, and that is all it may say)
unit=$R/lib/systemd/system/gputally-record.service
grep -qx 'ExecStart=/usr/bin/gputally record --task %H --dir /var/log/gputally $GPUTALLY_RECORD_OPTS' "$unit" && ok ||
	bad "the unit's ExecStart is not the installed binary writing to /var/log/gputally"
grep -qx 'User=gputally' "$unit" && ok || bad "the unit does not run as gputally"
if systemd-analyze verify --root="$R" --man=no /lib/systemd/system/gputally-record.service >"$tmp/verify" 2>&1 &&
   ! grep -v 'nvidia-persistenced.service' "$tmp/verify" | grep -q .; then ok
else bad "systemd-analyze verify:"; cat "$tmp/verify"; fi

# ---- 6. upgrade: a conffile edit stays; over itself ----------------------
echo 'GPUTALLY_RECORD_OPTS="--interval 500ms"' >>"$R/etc/default/gputally-record"
next=$tmp/next
dpkg-deb -R "$deb" "$next"
sed -i "s/^Version: .*/Version: ${ver}+1/" "$next/DEBIAN/control"
dpkg-deb --root-owner-group -b "$next" "$tmp/next.deb" >/dev/null
if $DPKG -i "$tmp/next.deb" >"$tmp/up.out" 2>&1; then ok; else bad "the upgrade to ${ver}+1 failed"; cat "$tmp/up.out"; fi
if $DPKG -i "$tmp/next.deb" >"$tmp/re.out" 2>&1; then ok; else bad "the reinstall over itself failed"; cat "$tmp/re.out"; fi
[ "$(dpkg --root="$R" -s gputally | sed -n 's/^Version: //p')" = "${ver}+1" ] && ok || bad "not upgraded to ${ver}+1"
grep -q -- '--interval 500ms' "$R/etc/default/gputally-record" && ok || bad "the upgrade lost an edit of /etc/default/gputally-record"
[ "$(grep -c '^gputally:' "$R/etc/passwd")" = 1 ] && ok || bad "the upgrade made the user twice"

# ---- 7. purge --------------------------------------------------------------
touch "$R/var/log/gputally/host_20261206.csv"
if $DPKG --purge gputally >"$tmp/purge.out" 2>&1; then ok; else bad "dpkg --root --purge failed"; cat "$tmp/purge.out"; fi
snapshot >"$tmp/after"
if diff "$tmp/before" "$tmp/after" >"$tmp/left"; then ok; else bad "purge left these behind (> left, < removed):"; cat "$tmp/left"; fi
for f in passwd group shadow gshadow; do
	cmp -s "$tmp/$f" "$R/etc/$f" && ok || bad "purge did not restore R/etc/$f: $(cat "$R/etc/$f")"
done
dpkg --root="$R" -s gputally >/dev/null 2>&1 && bad "dpkg --root still knows gputally after purge" || ok

echo "deb-tests: $pass passed, $fail failed ($(($(date +%s) - t0)) s; $deb)"
[ $fail -eq 0 ]
