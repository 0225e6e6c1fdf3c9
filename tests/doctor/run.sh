#!/bin/sh
# `gputally doctor` on fixture trees: a healthy one made from the H200
# capture's /proc, /sys and /dev listings (tests/doctor/h200, copied from
# shared/data/h200-training), and one broken tree per check.  NVML is the
# fake library; its driver version, init result and persistence mode come
# from FAKE_NVML_DRIVER_VERSION, FAKE_NVML_INIT_RC and FAKE_NVML_PERSISTENCE.
#   sh tests/doctor/run.sh BIN BUILD_DIR
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
obuild=$(cd "$2" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
cap=$here/h200
fake=$obuild/fake-nvml/libnvidia-ml.so.1
pass=0 fail=0
export LC_ALL=C
unset GPUTALLY_NVML_LIB FAKE_NVML_INIT_RC FAKE_NVML_PERSISTENCE
export FAKE_NVML_SCENARIO=/dev/null
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# healthy ROOT: the capture's files laid out where the driver puts them
healthy() {
	r=$1
	mkdir -p "$r/proc/driver/nvidia" "$r/sys/module/nvidia" "$r/proc/sys/kernel" "$r/dev" \
		"$r/var/log" "$r/sys/bus/pci/drivers" "$r/proc/4242"
	cp "$cap/proc_modules.txt" "$r/proc/modules"
	cp "$cap/proc_driver_version.txt" "$r/proc/driver/nvidia/version"
	cp "$cap/sys_module_nvidia_version.txt" "$r/sys/module/nvidia/version"
	cp "$cap/dmesg_raw_end.txt" "$r/var/log/kern.log"
	# "Linux vm 6.18.44-fc-v657-gpu #1 ..." -> the release
	awk 'NR == 1 { print $3 }' "$cap/sys_uname.txt" >"$r/proc/sys/kernel/osrelease"
	# "0000:00:06.0 vendor=0x10de device=0x2335 class=0x030200 ... driver=nvidia"
	while read -r addr rest; do
		d=$r/sys/bus/pci/devices/$addr
		mkdir -p "$d"
		for kv in $rest; do
			case $kv in
			vendor=*|device=*|class=*) echo "${kv#*=}" >"$d/${kv%%=*}" ;;
			driver=?*) mkdir -p "$r/sys/bus/pci/drivers/${kv#driver=}"
				ln -s "../../../bus/pci/drivers/${kv#driver=}" "$d/driver" ;;
			esac
		done
	done <"$cap/sys_pci.txt"
	# "crw-rw-rw- 1 root root 195,   0 Nov 29 22:46 /dev/nvidia0": a file stands in for each node
	awk '$NF ~ /^\/dev\// { print $NF }' "$cap/dev_nvidia.txt" | while read -r n; do
		: >"$r$n"; chmod 666 "$r$n"
	done
}

# ROOT EXPECT... : run doctor --json on ROOT; each EXPECT is id=status; EXIT is the exit code wanted
expect() {
	name=$1 root=$2 want_rc=$3; shift 3
	"$bin" doctor --json --root "$root" --nvml-lib "$fake" >"$tmp/out.json" 2>"$tmp/err"
	rc=$?
	[ $rc -eq "$want_rc" ] && ok || bad "$name: exit $rc, wanted $want_rc ($(cat "$tmp/err"))"
	for kv in "$@"; do
		got=$(python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))
c=[x for x in d["checks"] if x["id"]==sys.argv[2]][0]
print(c["status"] + (" fix" if c["fix"] else ""))' "$tmp/out.json" "${kv%%=*}")
		case "$got" in
		"${kv#*=}"|"${kv#*=} fix") ok ;;
		*) bad "$name: ${kv%%=*} is '$got', wanted ${kv#*=} ($(grep -A1 "\"${kv%%=*}\"" "$tmp/out.json" | tail -1))" ;;
		esac
		# a failed or warned check always says how to fix it
		case "$got" in fail|warn) bad "$name: ${kv%%=*} $got without a fix" ;; esac
	done
}

export FAKE_NVML_DRIVER_VERSION=580.159.04 FAKE_NVML_PERSISTENCE=1
healthy "$tmp/ok"
# the capture's kernel log has one NVRM "Failed to enter state" line: a warning, not a failure
expect healthy "$tmp/ok" 0 pci_device=ok modules=ok nouveau=ok device_nodes=ok version_match=ok \
	kernel_match=ok nvml_init=ok persistence=ok container=ok kernel_log=warn
"$bin" doctor --root "$tmp/ok" --nvml-lib "$fake" >"$tmp/text"
grep -q "0000:00:06.0 (nvidia)" "$tmp/text" && ok || bad "text: the GPU's address and driver"
grep -q "both 580.159.04" "$tmp/text" && ok || bad "text: the matching version"
grep -q "refcntRequestReference_IMPL" "$tmp/text" && ok || bad "text: the NVRM line quoted"

# one broken tree per check
cp -a "$tmp/ok" "$tmp/nopci"; rm -rf "$tmp/nopci/sys/bus/pci/devices/0000:00:06.0"
expect pci "$tmp/nopci" 1 pci_device=fail

cp -a "$tmp/ok" "$tmp/vfio"; rm "$tmp/vfio/sys/bus/pci/devices/0000:00:06.0/driver"
ln -s ../../../bus/pci/drivers/vfio-pci "$tmp/vfio/sys/bus/pci/devices/0000:00:06.0/driver"
expect pci-vfio "$tmp/vfio" 0 pci_device=warn

cp -a "$tmp/ok" "$tmp/nouvm"; grep -v '^nvidia_uvm ' "$tmp/ok/proc/modules" >"$tmp/nouvm/proc/modules"
expect modules "$tmp/nouvm" 1 modules=fail

cp -a "$tmp/ok" "$tmp/nouveau"; { echo "nouveau 2449408 0 - Live 0xffffffffc1000000"; grep -v '^nvidia' "$tmp/ok/proc/modules"; } >"$tmp/nouveau/proc/modules"
expect nouveau "$tmp/nouveau" 1 nouveau=fail modules=fail

cp -a "$tmp/ok" "$tmp/nodev"; rm "$tmp/nodev/dev/nvidia-uvm"
expect device_nodes "$tmp/nodev" 1 device_nodes=fail container=ok

FAKE_NVML_DRIVER_VERSION=570.86.15 expect version_match "$tmp/ok" 1 version_match=fail nvml_init=ok

cp -a "$tmp/ok" "$tmp/newkernel"; grep -v '^nvidia' "$tmp/ok/proc/modules" >"$tmp/newkernel/proc/modules"
echo 6.1.0-18-amd64 >"$tmp/newkernel/proc/sys/kernel/osrelease"
mkdir -p "$tmp/newkernel/lib/modules/6.1.0-17-amd64/updates/dkms" "$tmp/newkernel/lib/modules/6.1.0-18-amd64/kernel"
: >"$tmp/newkernel/lib/modules/6.1.0-17-amd64/updates/dkms/nvidia.ko.xz"
expect kernel_match "$tmp/newkernel" 1 kernel_match=fail modules=fail
grep -q "built only for 6.1.0-17-amd64" "$tmp/out.json" && ok || bad "kernel_match names the kernel the module was built for"
mkdir -p "$tmp/newkernel/lib/modules/6.1.0-18-amd64/updates/dkms"
: >"$tmp/newkernel/lib/modules/6.1.0-18-amd64/updates/dkms/nvidia.ko"
expect kernel_match-built "$tmp/newkernel" 1 kernel_match=ok modules=fail

FAKE_NVML_INIT_RC=18 expect nvml_init "$tmp/ok" 1 nvml_init=fail version_match=skip
grep -q "version mismatch" "$tmp/out.json" && ok || bad "nvml_init quotes NVML's error"
"$bin" doctor --json --root "$tmp/ok" --nvml-lib "$tmp/no-such-lib.so" >"$tmp/out.json"
grep -q '"cannot load NVML' "$tmp/out.json" && ok || bad "a missing library is named"

FAKE_NVML_PERSISTENCE=0 expect persistence "$tmp/ok" 0 persistence=warn
(unset FAKE_NVML_PERSISTENCE; expect persistence-daemon-missing "$tmp/ok" 0 persistence=warn)
cp -a "$tmp/ok" "$tmp/daemon"; echo nvidia-persistenced >"$tmp/daemon/proc/4242/comm"
(unset FAKE_NVML_PERSISTENCE; expect persistence-daemon "$tmp/daemon" 0 persistence=ok)

cp -a "$tmp/ok" "$tmp/ctr"; : >"$tmp/ctr/.dockerenv"
expect container-with-devices "$tmp/ctr" 0 container=ok
rm "$tmp/ctr"/dev/nvidia*
expect container-without "$tmp/ctr" 1 container=fail device_nodes=fail
grep -q "gpus all" "$tmp/out.json" && ok || bad "container: the fix names --gpus all"

cp -a "$tmp/ok" "$tmp/xid"
echo "[ 7311.417431] NVRM: Xid (PCI:0000:00:06): 79, pid=1234, name=python, GPU has fallen off the bus." >>"$tmp/xid/var/log/kern.log"
expect kernel_log "$tmp/xid" 1 kernel_log=fail
grep -q "1 fatal" "$tmp/out.json" && ok || bad "kernel_log counts the fatal Xid"
printf 'kernel: usb 1-1: new device\n' >"$tmp/clean.log"
"$bin" doctor --json --root "$tmp/ok" --nvml-lib "$fake" --kernel-log "$tmp/clean.log" >"$tmp/out.json"
grep -q '0 NVRM lines, no errors' "$tmp/out.json" && ok || bad "--kernel-log reads the named file"
"$bin" doctor --json --root "$tmp/ok" --nvml-lib "$fake" --kernel-log "$tmp/absent.log" >"$tmp/out.json"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert [c for c in d["checks"] if c["id"]=="kernel_log"][0]["status"]=="skip"' "$tmp/out.json" && ok || bad "an unreadable --kernel-log is skipped, not ok"

# ---- laptops and desktops (issue 32): each case a tree under --root --------
expect healthy-laptop-checks "$tmp/ok" 0 wsl=ok hybrid_graphics=ok drm_modeset=skip secure_boot=ok cuda_capability=skip

# hybrid graphics: an Intel iGPU beside the NVIDIA GPU, prime-select in Intel mode
cp -a "$tmp/ok" "$tmp/prime"; d=$tmp/prime/sys/bus/pci/devices/0000:00:02.0; mkdir -p "$d" "$tmp/prime/etc"
echo 0x8086 >"$d/vendor"; echo 0x030000 >"$d/class"
echo off >"$tmp/prime/etc/prime-discrete"
expect hybrid-intel-mode "$tmp/prime" 1 hybrid_graphics=fail
grep -q "prime-select on-demand" "$tmp/out.json" && ok || bad "hybrid: the fix names prime-select"
echo on-demand >"$tmp/prime/etc/prime-discrete"; echo D3cold >"$tmp/prime/sys/bus/pci/devices/0000:00:06.0/power_state"
expect hybrid-on-demand "$tmp/prime" 0 hybrid_graphics=ok
grep -q "0000:00:02.0 (Intel); prime-select mode on-demand; the NVIDIA GPU is power-gated" "$tmp/out.json" && ok ||
	bad "hybrid: names the iGPU, the mode and the power gating"

# nvidia-drm.modeset: off on the hybrid laptop is a warning, on a server it is fine
mkdir -p "$tmp/prime/sys/module/nvidia_drm/parameters"; echo N >"$tmp/prime/sys/module/nvidia_drm/parameters/modeset"
expect modeset-off-hybrid "$tmp/prime" 0 drm_modeset=warn
grep -q "nvidia-drm.modeset=1" "$tmp/out.json" && ok || bad "modeset: the fix names the parameter"
echo Y >"$tmp/prime/sys/module/nvidia_drm/parameters/modeset"
expect modeset-on "$tmp/prime" 0 drm_modeset=ok
cp -a "$tmp/ok" "$tmp/server"; mkdir -p "$tmp/server/sys/module/nvidia_drm/parameters"
echo N >"$tmp/server/sys/module/nvidia_drm/parameters/modeset"
expect modeset-off-server "$tmp/server" 0 drm_modeset=ok

# Secure Boot: the EFI variable is 4 attribute bytes and 1 when on
sbvar=sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c
cp -a "$tmp/ok" "$tmp/sb"; mkdir -p "$tmp/sb/sys/firmware/efi/efivars"
printf '\006\000\000\000\001' >"$tmp/sb/$sbvar"
expect secure-boot-signed "$tmp/sb" 0 secure_boot=ok
grep -v '^nvidia' "$tmp/ok/proc/modules" >"$tmp/sb/proc/modules"
echo "[    4.012345] Loading of unsigned module is rejected" >>"$tmp/sb/var/log/kern.log"
expect secure-boot-refused "$tmp/sb" 1 secure_boot=fail modules=fail
grep -q "mokutil --import" "$tmp/out.json" && ok || bad "secure boot: the fix names mokutil"
cp "$tmp/ok/var/log/kern.log" "$tmp/sb/var/log/kern.log"
expect secure-boot-no-module "$tmp/sb" 1 secure_boot=warn modules=fail
printf '\006\000\000\000\000' >"$tmp/sb/$sbvar"
expect secure-boot-off "$tmp/sb" 1 secure_boot=ok modules=fail

# WSL2: no PCI device, no module, no /dev/nvidia*: the GPU is /dev/dxg and the libraries in /usr/lib/wsl/lib
w=$tmp/wsl; mkdir -p "$w/proc/sys/kernel" "$w/dev" "$w/usr/lib/wsl/lib" "$w/sys/bus/pci/devices" "$w/var/log"
echo 5.15.153.1-microsoft-standard-WSL2 >"$w/proc/sys/kernel/osrelease"
grep -v '^nvidia' "$tmp/ok/proc/modules" >"$w/proc/modules"
: >"$w/dev/dxg"; : >"$w/usr/lib/wsl/lib/libnvidia-ml.so.1"; : >"$w/var/log/kern.log"
expect wsl "$w" 0 wsl=ok pci_device=skip modules=skip device_nodes=skip kernel_match=skip persistence=skip \
	hybrid_graphics=skip nvml_init=ok
echo "[    2.1] i915 0000:00:02.0: [drm] *ERROR* unable to map framebuffer" >"$w/var/log/kern.log"
expect wsl-i915 "$w" 0 wsl=warn
grep -q "31.0.101.4883" "$tmp/out.json" && ok || bad "wsl: the i915 fix names the driver version"
rm "$w/usr/lib/wsl/lib/libnvidia-ml.so.1"
expect wsl-no-libs "$w" 1 wsl=fail
rm "$w/dev/dxg"
expect wsl-no-dxg "$w" 1 wsl=fail

# a CUDA capability mismatch in an application's log
apps=$here/apps
appcheck() {
	name=$1 log=$2 want=$3 text=$4
	"$bin" doctor --json --root "$tmp/ok" --nvml-lib "$fake" --app-log "$log" >"$tmp/out.json" 2>"$tmp/err"
	got=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); c=[x for x in d["checks"] if x["id"]=="cuda_capability"][0]; print(c["status"]); print(c["detail"]); print(c["fix"] or "")' "$tmp/out.json")
	[ "$(printf '%s\n' "$got" | head -1)" = "$want" ] && ok || bad "$name: cuda_capability is $(printf '%s' "$got" | head -1), wanted $want"
	printf '%s\n' "$got" | grep -qF -- "$text" && ok || bad "$name: wanted '$text' in: $got"
}
appcheck cap-article "$apps/flash_attn_cap.log" fail "flash_attn_cap.log:6: built for 9.0 (Hopper), the GPU is 12.0 (Blackwell)"
appcheck cap-article-fix "$apps/flash_attn_cap.log" fail "arch=compute_120,code=sm_120"
appcheck cap-torch "$apps/torch_sm120.log" fail "torch_sm120.log:2: the GPU is 12.0 (Blackwell) and the framework was not built for it"
appcheck cap-no-image "$apps/no_kernel_image.log" fail "no_kernel_image.log:3: "
appcheck cap-clean "$apps/clean.log" ok "2 lines, no CUDA capability"
appcheck cap-missing "$tmp/absent.log" skip "cannot be read"

# an empty tree: every check answers, nothing crashes
mkdir -p "$tmp/empty"
"$bin" doctor --root "$tmp/empty" --nvml-lib "$tmp/no-such-lib.so" >"$tmp/text"; rc=$?
[ $rc -eq 1 ] && ok || bad "empty tree: exit $rc"
[ "$(grep -c '^  \(ok  \|WARN\|FAIL\|skip\)  ' "$tmp/text")" -eq 15 ] && ok || bad "empty tree: fifteen checks printed"
"$bin" doctor --bogus >/dev/null 2>&1; [ $? -eq 2 ] && ok || bad "unknown option: exit 2"

echo "doctor: $pass passed, $fail failed"
[ $fail -eq 0 ]
