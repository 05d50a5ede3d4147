#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# perf works in the test VM: a system-wide recording of cpu-clock samples and
# the module:module_load / module:module_free tracepoints while a test module
# comes and goes. perf is the host's Debian linux-perf (scripts/vm-run.sh
# copies it in). Left in /out, which /init sends to the host (and
# selftests/secmap/perf_host_check.sh reads there):
#   perf-basic.data       the recording
#   perf-basic.script     `perf script` of it in this VM (live kallsyms)
#   perf-*.err            perf's messages
# and, taken while secmap_test_late was loaded:
#   kallsyms              /proc/kallsyms: the modules' symbols and _text/_stext
#                         (the kernel's own ~50-140k symbols take 3-7 s on the
#                         serial port); all text symbols (t T w W, what perf
#                         resolves samples with) if /etc/secmap/kallsyms says
#                         "full" (scripts/vm-run.sh: SECMAP_VM_KALLSYMS=full)
#   modules, sections     /proc/modules and every /sys/module/*/sections/*
#                         ("path:address" lines)
# shellcheck source=../../scripts/tap.sh
. /lib/secmap/tap.sh

OUT=/out
LATE=secmap_test_late
DATA=$OUT/perf-basic.data

t0=${PERF_TEST_T0:-$(cut -d' ' -f1 /proc/uptime)}
export PERF_TEST_T0="$t0"
stamp() { echo "# $* at +$(awk -v t0="$t0" '{ printf "%.2f", $1 - t0 }' /proc/uptime)s"; }
spin() {	# burn CPU in this shell for a while
	i=0
	while [ $i -lt "$1" ]; do i=$((i + 1)); done
}

# What perf records: busy, load, snapshot, busy, unload, busy.
if [ "${1:-}" = workload ]; then
	spin 3000
	stamp "workload starts"
	insmod /lib/modules/secmap/$LATE.ko || exit 1
	stamp "insmod done"
	# -F: a regular expression takes seconds under TCG.
	if [ "$(cat /etc/secmap/kallsyms 2>/dev/null)" = full ]; then
		grep -F -e ' t ' -e ' T ' -e ' w ' -e ' W ' /proc/kallsyms
	else
		grep -F -e '[' -e ' T _text' -e ' T _stext' /proc/kallsyms
	fi >$OUT/kallsyms
	cat /proc/modules >$OUT/modules
	grep -r . /sys/module/*/sections/ >$OUT/sections
	stamp "snapshots done"
	spin 3000
	rmmod $LATE || exit 1
	stamp "rmmod done"
	spin 1000
	exit 0
fi

# Root would manage without; these rule out any restriction on kernel samples
# and addresses. Restored afterwards: the other tests check secmap's
# permission model against the kernel's defaults.
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
kptr=$(cat /proc/sys/kernel/kptr_restrict)
echo -1 >/proc/sys/kernel/perf_event_paranoid
echo 0 >/proc/sys/kernel/kptr_restrict
restore() {
	echo "$paranoid" >/proc/sys/kernel/perf_event_paranoid
	echo "$kptr" >/proc/sys/kernel/kptr_restrict
}
trap restore EXIT

mkdir -p $OUT
echo "# $(perf version) on $(uname -r)"
check "the tracepoint module:module_load is there (tracefs mounted)" \
	test -r /sys/kernel/tracing/events/module/module_load/format

# -N: no build-id cache (~/.debug); build-ids still go into the file.
# -F 1000: enough samples, and a smaller file to carry out.
stamp "perf record starts"
rc=0
perf record -q -N -a -F 1000 -e cpu-clock -e module:module_load -e module:module_free \
	-o $DATA -- "$0" workload 2>$OUT/perf-record.err || rc=$?
sed 's/^/# perf record: /' $OUT/perf-record.err
check "perf record -a with cpu-clock and module tracepoints exits 0 (status $rc)" test $rc -eq 0

stamp "perf record done"
rc=0
perf script -i $DATA >$OUT/perf-basic.script 2>$OUT/perf-script.err || rc=$?
check "perf script reads it (status $rc)" test $rc -eq 0
stamp "perf script done"
samples=$(grep -c ' cpu-clock:' $OUT/perf-basic.script)
check "perf script shows cpu-clock samples ($samples)" test "$samples" -ge 10
check "perf script shows module_load of $LATE" \
	grep -qE "module:module_load: +$LATE( |$)" $OUT/perf-basic.script
check "perf script shows module_free of $LATE" \
	grep -qE "module:module_free: +$LATE( |$)" $OUT/perf-basic.script
check "kallsyms taken during the recording has $LATE's symbols at real addresses" \
	grep -qE "^ffff[0-9a-f]{12} [tT] [^ ]+[[:space:]]+\[$LATE\]" $OUT/kallsyms
check "sysfs sections of $LATE were snapshotted" \
	grep -qE "^/sys/module/$LATE/sections/\.text:0xffff" $OUT/sections
tap_done
