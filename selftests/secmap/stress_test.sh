#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# In the VM: load/unload cycles of test modules with dumps running beside
# them, a listener (secmap monitor) and secmap.ko itself reloaded three
# times. Every event the listener sees must pair up (new, then live, then
# gone; a failed init goes new, gone), and none may be missing unless a
# resync said so. The console check (vm-run.sh) and kmemleak (vm-init.sh)
# cover what the kernel thinks of it; on the debug kernel that is KASAN,
# lockdep and kmemleak. Cycles: /etc/secmap/stress-cycles (vm-run.sh: 1000
# on the debug kernel, fewer on the others).
mods=/lib/modules/secmap
tmp=/tmp/stress
mkdir -p "$tmp"
. /lib/secmap/tap.sh
# shellcheck source=vm_util.sh
. /lib/secmap/vm_util.sh

cycles=$(cat /etc/secmap/stress-cycles 2>/dev/null || echo 100)
reloads=3

grep -q '^secmap ' /proc/modules || insmod $mods/secmap.ko
# Its idle timeout is only a backstop: the run stops it once its output is
# quiet. With 5 s, a debug kernel beside the host tests took longer than
# that to load secmap.ko again, and the monitor left in the gap.
secmap monitor -j --timeout-ms 120000 >"$tmp/monitor.jsonl" 2>"$tmp/monitor.err" &
monitor_pid=$!
# The monitor's first line is its subscription's snapshot (a resync would
# not be written for it): wait until it has subscribed, then a moment more.
wait_subscribed $monitor_pid || echo "# monitor not seen subscribed after 20 s"
sleep 1

# Dumps beside the cycles, counted by outcome and by the source used:
# netlink (sysfs while secmap.ko reloads) and sysfs, whose walk races every
# unload (the files of a going module vanish under it).
: >"$tmp/dumps"
(
	n=0
	while [ ! -e "$tmp/stop" ]; do
		n=$((n + 1))
		if [ $((n % 2)) -eq 0 ]; then src=sysfs; else src=auto; fi
		rc=0
		secmap dump -j --no-ko --source $src >"$tmp/dump.out" 2>"$tmp/dump.err" || rc=$?
		if [ $rc -eq 0 ]; then
			if grep -q '"source":"sysfs"' "$tmp/dump.out"; then
				echo "ok sysfs"
			else
				echo "ok netlink"
			fi
		else
			# In JSON mode the error is JSON on stdout, as bpftool does.
			echo "fail (status $rc) $(head -c 200 "$tmp/dump.err" "$tmp/dump.out" | grep -i error | head -n 1)"
		fi
	done >"$tmp/dumps"
) &
dumper_pid=$!

reload_resyncs() { grep -c '"event":"resync","reason":"reload"' "$tmp/monitor.jsonl"; }

start=$(cut -d' ' -f1 /proc/uptime)
# rmmod secmap while the dumper runs: a netlink dump in progress holds a
# reference on the module (netlink_dump_start), and busybox rmmod does not
# wait (O_NONBLOCK): EAGAIN, which a slow VM on a busy host hit. Retried
# for up to 30 s, as modprobe -r --wait would.
unload_secmap() {
	local n=0

	until rmmod secmap 2>"$tmp/rmmod.err"; do
		grep -q "temporarily unavailable" "$tmp/rmmod.err" && [ $n -lt 300 ] ||
			{ cat "$tmp/rmmod.err" >&2; return 1; }
		n=$((n + 1))
		sleep 0.1
	done
}
loads=0
fails=0
reloaded=0
insmod_errors=0
i=1
while [ $i -le "$cycles" ]; do
	# Alternate two modules so that each load may land where the other was.
	if [ $((i % 2)) -eq 0 ]; then m=secmap_test_late; else m=secmap_test_stamp; fi
	if insmod $mods/$m.ko; then
		loads=$((loads + 1))
		rmmod $m || insmod_errors=$((insmod_errors + 1))
	else
		insmod_errors=$((insmod_errors + 1))
	fi
	# A load whose init fails: new, then gone, never live.
	if [ $((i % 10)) -eq 0 ]; then
		insmod $mods/secmap_test_fail.ko 2>/dev/null && insmod_errors=$((insmod_errors + 1))
		fails=$((fails + 1))
	fi
	if [ $((i % (cycles / (reloads + 1)))) -eq 0 ] && [ $reloaded -lt $reloads ]; then
		unload_secmap && insmod $mods/secmap.ko || insmod_errors=$((insmod_errors + 1))
		reloaded=$((reloaded + 1))
		# No load may fall between the reload and the monitor's new
		# subscription, or it would be lost without a resync to say so.
		w=0
		while [ "$(reload_resyncs)" -lt $reloaded ] && [ $w -lt 300 ]; do
			sleep 0.1
			w=$((w + 1))
		done
	fi
	i=$((i + 1))
done
end=$(cut -d' ' -f1 /proc/uptime)
touch "$tmp/stop"
wait $dumper_pid
# The last unloads reach the monitor; then its output stays quiet for 5 s
# (at most 60 s in all). SIGTERM: an asynchronous command of a script
# ignores SIGINT.
quiet=0 w=0 size=-1
while [ $quiet -lt 50 ] && [ $w -lt 600 ]; do
	now=$(wc -c <"$tmp/monitor.jsonl")
	if [ "$now" = "$size" ]; then quiet=$((quiet + 1)); else quiet=0 size=$now; fi
	sleep 0.1
	w=$((w + 1))
done
kill -TERM $monitor_pid 2>/dev/null
wait $monitor_pid
monitor_rc=$?

check "stress: every insmod/rmmod did as expected ($insmod_errors errors)" [ $insmod_errors -eq 0 ]
check "stress: secmap.ko reloaded $reloads times" [ $reloaded -eq $reloads ]
check "stress: the monitor exits 0 after the run (SIGTERM; status $monitor_rc)" [ $monitor_rc -eq 0 ]
[ -s "$tmp/monitor.err" ] && sed 's/^/# monitor: /' "$tmp/monitor.err" | head -n 5

# Pair the events per module: state absent -> new -> live -> absent. A
# resync replaces the states with the modules it lists. Prints the counts
# and the first few faults.
awk -v mods="secmap_test_late secmap_test_stamp secmap_test_fail" '
function name_after(s, key,    i, rest) {
	i = index(s, key)
	if (!i)
		return ""
	rest = substr(s, i + length(key))
	return substr(rest, 1, index(rest, "\"") - 1)
}
function fault(msg) {
	faults++
	if (faults <= 5)
		print "# fault: line " NR ": " msg
}
BEGIN {
	n = split(mods, list, " ")
	for (i = 1; i <= n; i++)
		ours[list[i]] = 1
}
/^\{"event":"resync"/ {
	if (index($0, "\"reason\":\"reload\""))
		reload++
	else
		lost++
	for (m in ours)
		state[m] = ""
	rest = $0
	while ((i = index(rest, "{\"name\":\""))) {
		rest = substr(rest, i + 9)
		m = substr(rest, 1, index(rest, "\"") - 1)
		if (!(m in ours))
			continue
		st = name_after(rest, "\"state\":\"")
		state[m] = st == "live" ? "live" : "new"
	}
	next
}
/^\{"event":"(new|live|gone)"/ {
	ev = name_after($0, "\"event\":\"")
	m = name_after($0, "\"module\":{\"name\":\"")
	if (!(m in ours))
		next
	count[ev]++
	if (m == "secmap_test_fail")
		count["fail_" ev]++
	if (ev == "new") {
		if (state[m] != "")
			fault("new " m " while " state[m])
		state[m] = "new"
	} else if (ev == "live") {
		if (state[m] != "new")
			fault("live " m " while " (state[m] == "" ? "absent" : state[m]))
		state[m] = "live"
	} else {
		if (state[m] == "")
			fault("gone " m " while absent")
		state[m] = ""
	}
	next
}
END {
	for (m in ours)
		if (state[m] != "")
			fault(m " still " state[m] " at the end")
	printf "new %d live %d gone %d fail_new %d reload %d lost %d faults %d\n",
		count["new"], count["live"], count["gone"], count["fail_new"], reload, lost,
		faults + 0
}' "$tmp/monitor.jsonl" >"$tmp/pairs"
grep '^#' "$tmp/pairs"
set -- $(grep -v '^#' "$tmp/pairs")
new=$2 live=$4 gone=$6 fail_new=$8 reload=${10} lost=${12} faults=${14}

dumps_ok=$(grep -c '^ok' "$tmp/dumps")
dumps_sysfs=$(grep -c '^ok sysfs' "$tmp/dumps")
dumps_failed=$(grep -c '^fail' "$tmp/dumps")
grep '^fail' "$tmp/dumps" | sort | uniq -c | head -n 3 | sed 's/^/# dump: /'
dump_failure=$(grep -m 1 '^fail' "$tmp/dumps")
secs=$(echo "$start $end" | awk '{ printf "%.1f", $2 - $1 }')
echo "# stress: $cycles cycles ($loads loads, $fails failed inits) in ${secs}s" \
	"($(echo "$loads $secs" | awk '{ printf "%.1f", ($2 > 0) ? $1 / $2 : 0 }') loads/s)," \
	"$reloaded secmap.ko reloads, $dumps_ok dumps ($dumps_sysfs from sysfs, $dumps_failed failed)"
echo "# stress: monitor saw new $new ($fail_new of the failing module), live $live, gone $gone;" \
	"resyncs: $reload reload, $lost lost"

check "stress: every event pairs up (new, live, gone; $faults faults)" [ "$faults" -eq 0 ]
check "stress: a resync for each secmap.ko reload ($reload)" [ "$reload" -eq $reloads ]
if [ "$lost" -eq 0 ]; then
	check "stress: no event lost: new = loads, besides the failing module ($((new - fail_new)) = $loads)" \
		[ $((new - fail_new)) -eq $loads ]
	# busybox insmod tries init_module after finit_module fails: two each.
	check "stress: no event lost: a new for each failed init ($fail_new >= $fails)" \
		[ "$fail_new" -ge $fails ]
	check "stress: no event lost: live = loads ($live = $loads)" [ "$live" -eq $loads ]
	check "stress: no event lost: gone = new ($gone = $new)" [ "$gone" -eq "$new" ]
else
	# Allowed, when announced: the pairing above still held across them.
	echo "# stress: $lost lost-event resyncs: event counts not compared"
	check "stress: no more events than loads ($((new - fail_new)) <= $loads)" \
		[ $((new - fail_new)) -le $loads ]
fi
check "stress: dumps ran beside the cycles ($dumps_ok)" [ "$dumps_ok" -gt 0 ]
check "stress: sysfs dumps ran beside the cycles ($dumps_sysfs)" [ "$dumps_sysfs" -gt 0 ]
# The first failure in the test's name: CI logs keep only the "not ok" lines.
check "stress: no dump failed ($dumps_failed${dump_failure:+; first: $dump_failure})" \
	[ "$dumps_failed" -eq 0 ]
tap_done
