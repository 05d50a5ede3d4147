#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0
# /init of the test VM. The console (ttyS0) carries only kernel messages,
# which the host scans for oopses and warnings; results go to ttyS1.
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev

exec 3>/dev/ttyS1
say() { echo "$*" >&3; }
say "# booted $(uname -r)"

# Real modules first, in dependency order: secmap must find them at start-up.
while read -r ko; do
	insmod "$ko" || say "# insmod $ko failed"
done </etc/secmap/early-order
insmod /lib/modules/secmap/secmap_test_sections.ko || say "# insmod test module failed"
insmod /lib/modules/secmap/secmap.ko || say "# insmod secmap.ko failed"

case $(cat /etc/secmap/mode) in
test)
	for t in /tests/*; do
		rc=0
		"$t" >&3 2>&3 || rc=$?
		# A crash mid-run leaves no "not ok" line; count the exit status too.
		if [ $rc -eq 0 ]; then say "ok - ${t##*/} ran to completion"
		else say "not ok - ${t##*/} exited with status $rc"; fi
	done
	;;
bench)
	/bench/bench >&3 2>&3
	/bench/bench "0 extra" 9 >&3 2>&3
	n=0
	for ko in /lib/modules/bench/*.ko; do
		insmod "$ko" || say "# insmod $ko failed"
		n=$((n + 1))
		case $n in
		100 | 1000) /bench/bench "$n extra" 9 >&3 2>&3 ;;
		esac
	done
	;;
demo)
	# Our own modules are not in modules.dep: say where they are.
	say "\$ secmap dump --ko-path /lib/modules/secmap"
	secmap dump --ko-path /lib/modules/secmap >&3 2>&3
	say "\$ secmap dump --pretty dummy"
	secmap dump --pretty dummy >&3 2>&3
	;;
esac
say "SECMAP-VM-DONE"
poweroff -f
