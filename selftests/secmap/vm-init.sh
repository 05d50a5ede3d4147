#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0
# /init of the test VM. The console (ttyS0) carries only kernel messages,
# which the host scans for oopses and warnings; results go to ttyS1; files
# the tests leave in /out go to ttyS2 at the end (base64 of a tar.gz).
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
# perf's tracepoint events (module:module_load...) read their formats here.
# (perf_test.sh lowers perf_event_paranoid and kptr_restrict for itself only:
# the other tests check secmap's permissions against the kernel's defaults.)
mount -t tracefs tracefs /sys/kernel/tracing
mkdir -p /out
# Only the debug kernel has kmemleak; the others have no debugfs to mount.
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
KMEMLEAK=/sys/kernel/debug/kmemleak

exec 3>/dev/ttyS1
say() { echo "$*" >&3; }
say "# booted $(uname -r)"

# Real modules first, in dependency order: secmap must find them at start-up.
while read -r ko; do
	insmod "$ko" || say "# insmod $ko failed"
done </etc/secmap/early-order
insmod /lib/modules/secmap/secmap_test_sections.ko || say "# insmod test module failed"
insmod /lib/modules/secmap/secmap.ko || say "# insmod secmap.ko failed"

# kmemleak reports an object that two scans in a row found unreferenced and
# unchanged, once it is 5 s old: scan twice, then list what it found.
kmemleak_scan() {
	echo scan >$KMEMLEAK && echo scan >$KMEMLEAK && cat $KMEMLEAK
}
# Leaks that would count against the program that just ran; a leak younger
# than 5 s is seen by the next check, so the run as a whole misses none.
kmemleak_check() {
	[ -w $KMEMLEAK ] || return 0
	leaks=$(kmemleak_scan)
	if [ -z "$leaks" ]; then
		say "ok - kmemleak: no leak after $1"
	else
		say "not ok - kmemleak: leaks after $1"
		echo "$leaks" | head -n 40 | sed 's/^/# /' >&3
		echo clear >$KMEMLEAK
	fi
}

case $(cat /etc/secmap/mode) in
lockdown-*)
	mode=$(cat /etc/secmap/mode)
	t0=$(date +%s)
	/lib/secmap/lockdown_test.sh "${mode#lockdown-}" >&3 2>&3 &&
		say "ok - lockdown_test.sh ran to completion ($(($(date +%s) - t0)) s)" ||
		say "not ok - lockdown_test.sh exited with status $?"
	;;
sig-enforce)
	t0=$(date +%s)
	/lib/secmap/sigenforce_test.sh >&3 2>&3 &&
		say "ok - sigenforce_test.sh ran to completion ($(($(date +%s) - t0)) s)" ||
		say "not ok - sigenforce_test.sh exited with status $?"
	;;
test)
	# On the debug kernel a missing kmemleak would silently skip every scan.
	case $(uname -r) in
	*-secmap-debug)
		[ -w $KMEMLEAK ] && say "ok - debug kernel: kmemleak is there" ||
			say "not ok - debug kernel: kmemleak is there"
		;;
	esac
	if [ -w $KMEMLEAK ]; then
		# The checkers are on, and kmemleak finds a leak made on purpose
		# (aged past its 5 s), or a clean run would prove nothing.
		dmesg | grep -q 'KernelAddressSanitizer initialized' &&
			say "ok - debug kernel: KASAN is on" || say "not ok - debug kernel: KASAN is on"
		[ -e /proc/lockdep ] &&
			say "ok - debug kernel: lockdep is on" || say "not ok - debug kernel: lockdep is on"
		# Loaded while scanned: the backtrace names secmap_leak_alloc.
		insmod /lib/modules/secmap/secmap_test_leak.ko
		sleep 6
		leaks=$(kmemleak_scan)
		if echo "$leaks" | grep -q secmap_leak_alloc; then
			say "ok - debug kernel: kmemleak reports secmap_test_leak's leak"
		else
			say "not ok - debug kernel: kmemleak reports secmap_test_leak's leak"
			echo "$leaks" | head -n 20 | sed 's/^/# /' >&3
		fi
		rmmod secmap_test_leak
		# What boot, the early modules and the canary leaked is not ours to report.
		echo clear >$KMEMLEAK
		say "# kmemleak: on, scanned after each test program"
	fi
	for t in /tests/*; do
		rc=0
		t0=$(date +%s)
		"$t" >&3 2>&3 || rc=$?
		# A crash mid-run leaves no "not ok" line; count the exit status too.
		if [ $rc -eq 0 ]; then say "ok - ${t##*/} ran to completion ($(($(date +%s) - t0)) s)"
		else say "not ok - ${t##*/} exited with status $rc"; fi
		kmemleak_check "${t##*/}"
	done
	if [ -w $KMEMLEAK ]; then
		# secmap.ko's own teardown, after the last program's objects aged.
		rmmod secmap || say "not ok - rmmod secmap at the end"
		sleep 6
		kmemleak_check "rmmod secmap, 6 s later"
	fi
	;;
bench)
	# Before the 1000 extra modules: recording around perf is its own figure.
	/bench/record_bench.sh 200 >&3 2>&3
	/bench/bench >&3 2>&3
	/bench/bench "0 extra" 9 >&3 2>&3
	n=0
	for ko in /lib/modules/$(uname -r)/extra/bench/*.ko; do
		insmod "$ko" || say "# insmod $ko failed"
		n=$((n + 1))
		case $n in
		100 | 1000) /bench/bench "$n extra" 9 >&3 2>&3 ;;
		esac
	done
	/bench/record_bench.sh 200 "$n extra modules" >&3 2>&3
	# Where the time goes, by perf: 20 dumps of each kind, the top of
	# each profile by object (kernel, libc, the dynamic loader, secmap)
	# and by symbol.
	for args in "--json --no-ko" "--json"; do
		rm -f /tmp/prof.data /tmp/prof.data.old
		perf record -q -F 4000 -o /tmp/prof.data -- sh -c "
			i=0; while [ \$i -lt 20 ]; do secmap dump $args >/dev/null; i=\$((i + 1)); done" \
			>/dev/null 2>/tmp/prof.err || sed 's/^/bench: profile: perf record: /' /tmp/prof.err >&3
		for sort in dso dso,sym; do
			perf report -i /tmp/prof.data --stdio --no-children --sort $sort 2>/tmp/prof.err |
				grep -E '^ +[0-9]' | head -n 20 |
				sed "s/^/bench: profile: dump $args: /" >&3
			grep -i error /tmp/prof.err | head -n 3 | sed 's/^/bench: profile: perf report: /' >&3
		done
	done
	rm -f /tmp/prof.data /tmp/prof.data.old
	;;
demo)
	# Our own modules are not in modules.dep: say where they are.
	say "\$ secmap dump --ko-path /lib/modules/secmap"
	secmap dump --ko-path /lib/modules/secmap >&3 2>&3
	say "\$ secmap dump --pretty dummy"
	secmap dump --pretty dummy >&3 2>&3
	;;
esac
if [ -n "$(ls -A /out)" ]; then
	# Raw: no CR added before each LF; the host checks the end marker.
	say "# sending /out to ttyS2 at $(cut -d' ' -f1 /proc/uptime)s"
	stty -F /dev/ttyS2 raw -echo
	{ tar -C /out -czf - . | base64; echo SECMAP-FILES-END; } >/dev/ttyS2
	say "# /out sent at $(cut -d' ' -f1 /proc/uptime)s"
fi
say "SECMAP-VM-DONE"
poweroff -f
