#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# In a VM booted as a Secure Boot machine whose owner enrolled DKMS's key
# (vm-run.sh TAG sig-enforce: UEFI Secure Boot on, a machine owner key in
# MokListRT as shim leaves it once `mokutil --import` was confirmed, and
# module.sig_enforce=1): the kernel locks itself down and trusts the key,
# refuses the unsigned secmap.ko, and loads the one `make sign` signed
# with it; secmap says why the first is missing, records from uevents
# without it, and works with the second. TAP.
. /lib/secmap/tap.sh
# shellcheck source=vm_util.sh
. /lib/secmap/vm_util.sh
mods=/lib/modules/secmap
tmp=/tmp/sigenforce
mkdir -p "$tmp"

check "sig-enforce: the kernel enforces module signatures" \
	grep -q Y /sys/module/module/parameters/sig_enforce
check "sig-enforce: booted through UEFI with Secure Boot on" \
	sh -c "[ -d /sys/firmware/efi ] && dmesg | grep -q 'Secure boot enabled'"
# systemd mounts securityfs; this VM's /init does not.
mount -t securityfs securityfs /sys/kernel/security 2>/dev/null
check "sig-enforce: Secure Boot locked the kernel down (integrity)" \
	grep -q '\[integrity\]' /sys/kernel/security/lockdown
# The key from MokListRT, in the machine keyring (integrity: Loaded X.509 cert ...).
dmesg | grep -i 'secmap test MOK' | sed 's/^/# dmesg: /'
check "sig-enforce: the kernel loaded the machine owner key from MokListRT" \
	sh -c "dmesg | grep -i 'X.509 cert' | grep -q 'secmap test MOK'"

# Unsigned: refused (vm-init.sh's insmod at boot too), and secmap says why.
insmod "$mods/secmap.ko" 2>"$tmp/insmod.err"
rc=$?
echo "# insmod secmap.ko (unsigned): exit $rc: $(head -c 200 "$tmp/insmod.err")"
check "sig-enforce: insmod of the unsigned secmap.ko is refused" [ $rc -ne 0 ]
check "sig-enforce: the unsigned secmap.ko is not loaded" [ ! -d /sys/module/secmap ]
secmap dump --source netlink >/dev/null 2>"$tmp/dump.err"
rc=$?
echo "# secmap dump --source netlink: exit $rc: $(cat "$tmp/dump.err")"
check "sig-enforce: secmap dump --source netlink: exit 3, one line naming lockdown and the fix" \
	refused_in_one_line integrity "$tmp/dump.err" $rc
# Without it, the uevent backend: a module Debian signed, loaded meanwhile.
secmap record -q -o "$tmp/uev.data" -- \
	sh -c 'sleep 0.5; insmod /lib/modules/late/ifb.ko; sleep 0.5; rmmod ifb; sleep 0.5' \
	2>"$tmp/record-uev.err"
rc=$?
check "sig-enforce: without secmap.ko, secmap record records a load from uevents (ifb)" \
	sh -c "[ $rc -eq 0 ] && secmap show -j -i $tmp/uev.data | grep '\"module\":\"ifb\"' |
		grep -qv snapshot"

# Signed with the enrolled key: loads, untainted by a missing signature.
insmod "$mods/secmap-signed.ko" 2>"$tmp/insmod-signed.err"
rc=$?
echo "# insmod secmap-signed.ko: exit $rc: $(head -c 200 "$tmp/insmod-signed.err")"
check "sig-enforce: insmod of secmap.ko signed with the machine owner key succeeds" [ $rc -eq 0 ]
taint=$(cat /sys/module/secmap/taint 2>/dev/null)
echo "# /sys/module/secmap/taint: ${taint:-none}"
check "sig-enforce: the signed secmap.ko is not tainted as unsigned (no E)" \
	sh -c "[ -d /sys/module/secmap ] && ! echo '$taint' | grep -q E"
secmap dump -j >"$tmp/dump.json" 2>"$tmp/dump2.err"
rc=$?
check "sig-enforce: secmap dump answers through the signed module" \
	sh -c "[ $rc -eq 0 ] && grep -q '\"source\":\"netlink\"' $tmp/dump.json"
secmap record -q -o "$tmp/rec.data" -- true 2>"$tmp/record.err"
rc=$?
check "sig-enforce: secmap record records from the signed module (exit 0, source netlink)" \
	sh -c "[ $rc -eq 0 ] && secmap show -j -i $tmp/rec.data | grep -q '\"source\":\"netlink\"'"
rmmod secmap
check "sig-enforce: the signed secmap.ko unloads" [ ! -d /sys/module/secmap ]
tap_done
