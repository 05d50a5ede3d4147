#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# In a VM booted with lockdown=LEVEL (vm-run.sh TAG lockdown-LEVEL): what
# the kernel refuses (the unsigned secmap.ko; in confidentiality, kernel
# addresses too), and what secmap says and still does then. The table in
# Documentation/secmap.rst (Lockdown) is this test's findings. TAP.
#
#   lockdown_test.sh integrity|confidentiality
level=${1:?usage: lockdown_test.sh integrity|confidentiality}
. /lib/secmap/tap.sh
# shellcheck source=vm_util.sh
. /lib/secmap/vm_util.sh
mods=/lib/modules/secmap
tmp=/tmp/lockdown
mkdir -p "$tmp"

# systemd mounts securityfs; this VM's /init does not.
mount -t securityfs securityfs /sys/kernel/security 2>/dev/null
check "lockdown $level: the kernel says it is locked down so" \
	grep -q "\[$level\]" /sys/kernel/security/lockdown

# The module: unsigned, so refused, and the kernel says why.
insmod "$mods/secmap.ko" 2>"$tmp/insmod.err"
rc=$?
check "lockdown $level: insmod of the unsigned secmap.ko is refused" [ $rc -ne 0 ]
echo "# insmod: $(head -c 200 "$tmp/insmod.err")"
dmesg | grep -i 'lockdown:' | tail -n 2 | sed 's/^/# dmesg: /'
# EPERM: lockdown's refusal (its log line is rate-limited, and the boot's
# tracefs refusals in confidentiality use it up).
check "lockdown $level: insmod fails with EPERM" grep -q 'Operation not permitted' "$tmp/insmod.err"
[ -d /sys/module/secmap ] && not_ok "lockdown $level: secmap.ko is not there after the refusal"

# secmap: one line, its exit code for "not loaded", the reason and the fix.
secmap dump --source netlink >/dev/null 2>"$tmp/dump.err"
rc=$?
echo "# secmap dump --source netlink: exit $rc: $(cat "$tmp/dump.err")"
check "lockdown $level: secmap dump --source netlink: exit 3, one line naming lockdown and the fix" \
	refused_in_one_line "$level" "$tmp/dump.err" $rc
# The sysfs fallback: what the kernel shows of sections in this mode.
secmap dump -j >"$tmp/dump.json" 2>"$tmp/dump2.err"
rc=$?
echo "# secmap dump (auto): exit $rc: $(head -c 300 "$tmp/dump2.err")"
check "lockdown $level: secmap dump falls back to sysfs and says why, exit 0" \
	sh -c "[ $rc -eq 0 ] && grep -q 'locked down ($level)' $tmp/dump2.err && [ -s $tmp/dump.json ]"
# Debian's modules are signed by Debian's key, which the kernel trusts.
check "lockdown $level: Debian's signed modules load (dummy)" [ -d /sys/module/dummy ]
# What the kernel still shows root: section addresses in sysfs, kallsyms.
text=$(cat /sys/module/dummy/sections/.text 2>/dev/null)
echo "# /sys/module/dummy/sections/.text: ${text:-unreadable}"
check "lockdown $level: sysfs shows root the addresses of module sections" \
	sh -c "[ -n '$text' ] && [ '$text' != 0x0000000000000000 ]"
ktext=$(grep -m1 ' T _text$' /proc/kallsyms 2>/dev/null)
echo "# /proc/kallsyms: ${ktext:-unreadable}"
check "lockdown $level: /proc/kallsyms shows root addresses" \
	sh -c "[ -n '$ktext' ] && [ '${ktext%% *}' != 0000000000000000 ]"
# Recording: the uevent backend, a signed module loaded and unloaded meanwhile.
secmap record -q -o "$tmp/rec.data" -- \
	sh -c 'sleep 0.5; insmod /lib/modules/late/ifb.ko; sleep 0.5; rmmod ifb; sleep 0.5' \
	2>"$tmp/record.err"
rc=$?
echo "# secmap record: exit $rc: $(head -c 400 "$tmp/record.err")"
check "lockdown $level: secmap record records from uevents and says why, exit 0" \
	sh -c "[ $rc -eq 0 ] && [ -s $tmp/rec.data ] && grep -q 'locked down ($level)' $tmp/record.err"
secmap show -j -i "$tmp/rec.data" >"$tmp/show.txt" 2>&1
check "lockdown $level: the recording holds the modules sysfs shows (dummy)" \
	grep -q '"module":"dummy"' "$tmp/show.txt"
check "lockdown $level: and a module loaded while recording (ifb), with its unload" \
	sh -c "grep '\"type\":\"map\".*\"module\":\"ifb\"' $tmp/show.txt | grep -qv snapshot &&
		grep -q '\"type\":\"unmap\".*\"module\":\"ifb\"' $tmp/show.txt"
check "lockdown $level: times in perf's clock (no warning that it cannot be read)" \
	sh -c "! grep -q \"cannot read perf's clock\" $tmp/record.err"
# Loads known from their syscall where tracefs is open; in confidentiality
# from their ADD, with the reason on stderr. ifb's map then comes before
# its init ran or after (its module_load, from perf's own record).
grep -q "cannot read perf's module_load tracepoint" "$tmp/record.err"
no_trace=$?
if [ "$level" = integrity ]; then
	check "lockdown integrity: loads known from the tracepoints (no warning)" [ $no_trace -ne 0 ]
else
	check "lockdown confidentiality: loads known from their uevent, and stderr says why" \
		[ $no_trace -eq 0 ]
fi
# perf: kernel samples, and the module tracepoints, which need tracefs:
# confidentiality closes it (so perf record cannot stamp loads).
perf record -q -e cpu-clock -a -o "$tmp/perf.data" -- sleep 0.3 >/dev/null 2>"$tmp/perf.err"
rc=$?
check "lockdown $level: perf record -a -e cpu-clock runs" [ $rc -eq 0 ]
perf record -q -e module:module_load -a -o "$tmp/perf2.data" -- true >/dev/null 2>"$tmp/perf2.err"
rc=$?
echo "# perf record -e module:module_load: exit $rc: $(head -c 100 "$tmp/perf2.err" | tr '\n' ' ')"
if [ "$level" = integrity ]; then
	check "lockdown integrity: perf record -e module:module_load runs" [ $rc -eq 0 ]
else
	check "lockdown confidentiality: perf's module tracepoints are refused (no tracefs)" \
		[ $rc -ne 0 ]
fi
tap_done
