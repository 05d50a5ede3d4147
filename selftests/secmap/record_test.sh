#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# In the VM: `secmap record` around `perf record -e cpu-clock -a` while a
# module is loaded during the recording (its init burns CPU), unloaded, and
# loaded again after another module; then a recording across a secmap.ko
# reload and one whose reader is starved into losing events. Each point's
# /sys/module/*/sections is captured into /out for the host-side checker
# (scripts/check-recording.py), which compares them with the recordings and
# with perf's samples. Here: TAP for what can be told inside the VM.
# Only small text files go to /out (the serial port carries ~250 KB/s): the
# recordings and perf.data stay in /tmp.
mods=/lib/modules/secmap
out=/out
tmp=/tmp/rec
mkdir -p "$out" "$tmp"
. /lib/secmap/tap.sh
# shellcheck source=vm_util.sh
. /lib/secmap/vm_util.sh

if ! command -v perf >/dev/null; then
	echo "# perf is not in the VM image; recording tests need it"
	not_ok "record: perf available in the VM"
	tap_done
fi

# The workload perf records: the phases, with sysfs captured at each.
cat >/tmp/workload.sh <<'WL'
#!/bin/sh
mods=/lib/modules/secmap
# One grep for every file, not a cat each: on the debug kernel the 800
# processes of three captures took most of the test's two to four
# minutes. (Not the shell's read either: it takes a byte at a time, and
# these files answer only a read at offset 0; grep reads a block.)
capture() {
	grep -H '' /sys/module/*/sections/.[!.]* /sys/module/*/sections/* 2>/dev/null |
		sed -n 's|^/sys/module/\([^/]*\)/sections/\(.*\):\(0x[0-9a-f]*\)$|\1 \2 \3|p' \
		>"/out/sysfs-$1.txt"
}
burn() { echo "$1" >/sys/module/secmap_test_burn/parameters/burn; }
# Loaded before the recording (init long done): .text, .text.unlikely,
# .noinstr.text, then .exit.text as it goes.
capture before
burn 200
rmmod secmap_test_burn
# Loaded during it: .init.text too, and before it, while its parameters are
# parsed (burn=N), .text, .text.unlikely and .noinstr.text.
insmod $mods/secmap_test_burn.ko burn=100 burn_ms=300 burn_exit_ms=200
capture burn1
burn 200
rmmod secmap_test_burn
# Again, after another module took the old range.
insmod $mods/secmap_test_late.ko
insmod $mods/secmap_test_burn.ko burn=100 burn_ms=300 burn_exit_ms=200
capture burn2
burn 200
rmmod secmap_test_burn
rmmod secmap_test_late
WL

insmod $mods/secmap_test_burn.ko burn_ms=0 burn_exit_ms=200
# With callchains (-g), but on the debug kernel: there -g cost this test
# 35 s more (430 s against 395), and that VM, beside the host lanes, runs
# in 1500-1680 s of its 1800 (the other kernels check the module's
# frames in the chains; scripts/check-resolution.py).
case $(uname -r) in
*-debug) callgraph= ;;
*) callgraph=-g; : >"$out/callchains" ;;
esac
# --inject: one command line leaves one self-contained perf.data. Around it
# a second recorder, without kernel symbols: its recording, injected into a
# copy of perf.data, is small enough to go to the host, which resolves the
# samples offline (scripts/check-recording.py). perf's module tracepoints
# give the load and unload times independently of secmap. Between the two,
# a recorder of the uevent backend (what a machine that refuses secmap.ko
# records): the host resolves the same samples with it, for the fraction
# that backend gets right (scripts/check-resolution.py).
# shellcheck disable=SC2086 # no call graph is no word
secmap record -q --no-kallsyms -o "$tmp/gt.data" -- \
	secmap record -q --no-kallsyms --source uevent -o "$tmp/uev.data" --ko-path "$mods" -- \
	secmap record -j -o "$tmp/rec.data" --inject="$tmp/perf.data" --ko-path "$mods" -- \
	perf record -q $callgraph -F 1000 -e cpu-clock -e module:module_load -e module:module_free -a \
	-o "$tmp/perf.data" -- sh /tmp/workload.sh >"$out/record.json" 2>"$out/record.stderr"
rc=$?
check "record: secmap record around perf record exits 0 (perf's status)" [ "$rc" -eq 0 ]
[ "$rc" -eq 0 ] || sed 's/^/# /' "$out/record.stderr"
echo "# record summary: $(cat "$out/record.json")"
check "record: the recording was written" [ -s "$tmp/rec.data" ]
check "record: perf.data was written" [ -s "$tmp/perf.data" ]
secmap show -j -i "$tmp/rec.data" >"$out/rec.jsonl" 2>"$out/show.stderr"
check "record: secmap show reads the recording" [ $? -eq 0 ]
check "record: the recording ends with a finished record" grep -q '"type":"finished"' "$out/rec.jsonl"
perf script -i "$tmp/perf.data" -F ip,time --ns -G >"$out/perf-script.txt" 2>/dev/null
check "record: perf script reads perf.data" [ -s "$out/perf-script.txt" ]
# --inject made perf.data right for stock perf; --strip gives back the file
# perf wrote, to see what stock perf makes of it.
secmap inject --strip -i "$tmp/perf.data" -o "$tmp/stock.data"
check "record: secmap inject --strip gives back perf's file" [ $? -eq 0 ]
# For the resolver's ground truth on the host: the module events, stock
# perf's own attribution of the module samples (live kallsyms here), perf's
# attribution after secmap inject, and both reports side by side in the log.
# Stock perf at its best: kernel symbols readable (kptr_restrict 0) while it
# reports, and the module's .ko where it looks for module files.
kptr=$(cat /proc/sys/kernel/kptr_restrict)
echo 0 >/proc/sys/kernel/kptr_restrict
mkdir -p "/lib/modules/$(uname -r)/extra"
cp "$mods/secmap_test_burn.ko" "/lib/modules/$(uname -r)/extra/"
perf script -i "$tmp/stock.data" -F event,time,trace --ns 2>/dev/null |
	grep -E 'module_(load|free)' >"$out/modev.txt"
# Module samples only, or nearly (the module area starts at
# 0xffffffffa0000000, 0xffffffffc0000000 under KASLR, above the kernel's
# image; a KASLR image may reach past 0xffffffffa0000000 too): the serial
# port is slow. -G: the sample's own address, not its call chain.
module_samples() {
	perf script -i "$1" -F event,time,ip,sym --ns -G 2>/dev/null |
		grep -E 'cpu-clock: +ffffffff[a-f]' >"$2"
}
module_samples "$tmp/stock.data" "$out/perf-mod.txt"
module_samples "$tmp/perf.data" "$out/perf-inj.txt"
check "record: perf script of the injected perf.data, with secmap's module objects" \
	[ -s "$out/perf-inj.txt" ]
# perf inject in every mode works on it; -b's output is checked on the host too.
for mode in "" -b --buildid-all; do
	# shellcheck disable=SC2086 # no mode is no word
	perf inject $mode -i "$tmp/perf.data" -o "$tmp/pinj.data" 2>"$out/pinj.stderr"
	check "record: perf inject ${mode:-(plain)} on the injected perf.data exits 0" [ $? -eq 0 ]
	[ "$mode" = -b ] && module_samples "$tmp/pinj.data" "$out/perf-injb.txt"
done
rm -f "$tmp/pinj.data"
secmap inject -i "$tmp/perf.data" -m "$tmp/gt.data" -o "$out/gt-perf.data" --ko-path "$mods"
check "record: a second recorder around the first recorded too (injected into a copy)" [ $? -eq 0 ]
secmap archive -i "$out/gt-perf.data" -o "$out/gt.tar.xz" --ko-path "$mods" 2>"$out/gt-archive.stderr"
rc=$?
check "record: secmap archive of that perf.data (exit 0 or 7: some not in the VM)" \
	[ $rc -eq 0 -o $rc -eq 7 ]
secmap report --stdio -q -i "$tmp/perf.data" --ko-path "$mods" >"$out/secmap-report.txt" 2>&1
check "record: secmap report reads the injected perf.data" [ $? -eq 0 ]
perf report -i "$tmp/stock.data" --stdio --no-children -g none --sort dso,sym 2>/dev/null |
	grep -E 'secmap_test_burn|^# Samples|^$' | head -40 >"$out/perf-report.txt"
perf report -i "$tmp/perf.data" --stdio --no-children -g none --sort dso,sym 2>/dev/null |
	grep -E 'secmap_test_burn|^# Samples|^$' | head -40 >"$out/perf-report-inj.txt"
echo "$kptr" >/proc/sys/kernel/kptr_restrict
rm "/lib/modules/$(uname -r)/extra/secmap_test_burn.ko"
secmap show -j -i "$tmp/perf.data" | cmp -s - "$out/rec.jsonl"
check "record: --inject embedded the recording into perf.data, reading the same" [ $? -eq 0 ]
# Injecting again gives the same file.
cp "$tmp/perf.data" "$tmp/again.data"
secmap inject -i "$tmp/again.data" -m "$tmp/rec.data" --ko-path "$mods" &&
	cmp -s "$tmp/perf.data" "$tmp/again.data"
check "record: injecting again gives the same file" [ $? -eq 0 ]
rm -f "$tmp/again.data" "$tmp/stock.data"

# The uevent backend's recording of the same run (to the host, small
# without kallsyms): loads seen from their finit_module() where the kernel
# has syscall tracepoints (the host checks it then), init sections freed.
[ -d /sys/kernel/tracing/events/syscalls/sys_enter_finit_module ] && : >"$out/syscall-tracepoints"
secmap show -j -i "$tmp/uev.data" >"$out/uev.jsonl"
check "record --source uevent: secmap show reads its recording" [ $? -eq 0 ]
cp "$tmp/uev.data" "$out/"
check "record --source uevent: starts from a snapshot, source uevent" \
	grep -q '"reason":"start","source":"uevent"' "$out/uev.jsonl"
check "record --source uevent: both loads during the recording are maps of their own" \
	[ "$(grep '"type":"map".*"module":"secmap_test_burn","section":".text",' "$out/uev.jsonl" |
		grep -vc '"flags":"[a-z,-]*snapshot')" -eq 2 ]
check "record --source uevent: init sections, the snapshot's and both loads', marked freed" \
	[ "$(grep '"module":"secmap_test_burn","section":".init.text",' "$out/uev.jsonl" |
		grep -c '"flags":"[a-z,-]*freed')" -eq 3 ]
check "record --source uevent: three unloads of secmap_test_burn" \
	[ "$(grep -c '"type":"unmap".*"module":"secmap_test_burn","init_only":false' \
		"$out/uev.jsonl")" -eq 3 ]

# Exit status is COMMAND's, and a signal reaches COMMAND.
secmap record -q -o /tmp/x.data -- sh -c 'exit 3'
check "record: exit status is COMMAND's (3)" [ $? -eq 3 ]
# Signalled only once COMMAND has set its trap: before that, SIGTERM would
# kill it (status 143), and the recorder's start-up takes seconds under TCG.
rm -f /tmp/x.ready
secmap record -q -o /tmp/x.data -- \
	sh -c 'trap "exit 42" TERM; : >/tmp/x.ready; while :; do sleep 0.1; done' &
pid=$!
w=0
while [ ! -e /tmp/x.ready ] && [ $w -lt 600 ]; do
	sleep 0.1
	w=$((w + 1))
done
kill -TERM $pid
wait $pid
check "record: SIGTERM reaches COMMAND, whose status is returned (42)" [ $? -eq 42 ]
check "record: an interrupted recording is complete" sh -c 'secmap show -i /tmp/x.data | grep -q finished'

# secmap.ko unloaded and loaded again mid-recording: resumes, gap recorded.
# A monitor beside it subscribes again and says so. It is stopped once it
# has shown the last event, not by an idle timeout: a debug kernel beside
# the host tests took more than 4 s to load secmap.ko again.
secmap monitor -j --timeout-ms 60000 >"$out/monitor-reload.jsonl" \
	2>"$out/monitor-reload.stderr" &
monitor_pid=$!
wait_subscribed $monitor_pid || echo "# monitor not seen subscribed after 20 s"
secmap record -q --no-kallsyms -o "$tmp/reload.data" -- sh -c "
	sleep 1; rmmod secmap; insmod $mods/secmap_test_late.ko; sleep 1
	insmod $mods/secmap.ko; sleep 2; rmmod secmap_test_late; sleep 1" 2>"$out/reload.stderr"
check "record: recording across a secmap.ko reload exits 0" [ $? -eq 0 ]
i=0
while [ $i -lt 300 ] && ! grep -q '"event":"gone".*"secmap_test_late"' "$out/monitor-reload.jsonl"; do
	sleep 0.1
	i=$((i + 1))
done
# SIGTERM: an asynchronous command of a script ignores SIGINT.
kill -TERM $monitor_pid
wait $monitor_pid
check "monitor: across a secmap.ko reload exits 0 (SIGTERM)" [ $? -eq 0 ]
echo "# monitor: $(head -c 600 "$out/monitor-reload.jsonl") $(head -c 300 "$out/monitor-reload.stderr")"
check "monitor: the reload is a resync listing what loaded meanwhile (secmap_test_late)" \
	grep -q '"event":"resync","reason":"reload",.*"secmap_test_late"' "$out/monitor-reload.jsonl"
check "monitor: events after the reload are seen (secmap_test_late gone)" \
	grep -q '"event":"gone".*"secmap_test_late"' "$out/monitor-reload.jsonl"
secmap show -j -i "$tmp/reload.data" >"$out/reload.jsonl"
cp "$tmp/reload.data" "$out/"
check "record: the reload is recorded as a resync with a gap" grep -q '"reason":"reload"' "$out/reload.jsonl"
check "record: events after the reload are recorded (secmap_test_late unmapped)" \
	grep -q '"type":"unmap","time_local_ns":[0-9]*,"time_mono_ns":[0-9]*,"module":"secmap_test_late","init_only":false' "$out/reload.jsonl"

# Without secmap.ko: the uevent backend, said on stderr and in the file; a
# load and an unload while recording are seen. --source netlink refuses.
rmmod secmap
insmod $mods/secmap_test_late.ko
secmap record -q --no-kallsyms -o "$tmp/sysfs.data" -- \
	sh -c "sleep 1; insmod $mods/secmap_test_stamp.ko; sleep 1; rmmod secmap_test_stamp; sleep 1" \
	2>"$out/sysfs.stderr"
check "record: without secmap.ko, records anyway (exit 0)" [ $? -eq 0 ]
check "record: without secmap.ko, says so on stderr" grep -q 'secmap module not loaded' "$out/sysfs.stderr"
secmap show -j -i "$tmp/sysfs.data" >"$out/sysfs.jsonl"
check "record: without secmap.ko, the file starts from a snapshot of the uevent source" \
	grep -q '"reason":"start","source":"uevent"' "$out/sysfs.jsonl"
check "record: the snapshot has secmap_test_late's .text" \
	grep -q '"module":"secmap_test_late","section":".text"' "$out/sysfs.jsonl"
check "record: without secmap.ko, a load while recording is recorded (secmap_test_stamp)" \
	grep -q '"type":"map".*"module":"secmap_test_stamp","section":".gnu.linkonce.this_module"' \
	"$out/sysfs.jsonl"
check "record: without secmap.ko, its unload too" \
	grep -q '"type":"unmap".*"module":"secmap_test_stamp"' "$out/sysfs.jsonl"
secmap resolve -m "$tmp/sysfs.data" 0 2>"$out/sysfs-resolve.stderr" >/dev/null
check "resolve: says what a recording without secmap.ko cannot know" \
	grep -q 'recorded without the secmap module, from uevents' "$out/sysfs-resolve.stderr"
secmap record -q --source netlink -o "$tmp/none.data" -- true 2>"$out/netlink.stderr"
check "record --source netlink: without secmap.ko, fails (exit 3)" [ $? -eq 3 ]
rmmod secmap_test_late
insmod $mods/secmap.ko

# The .ko files of that recording, by build-id, for the host to unpack
# (scripts/check-recording.py); small without kallsyms.
secmap archive -j -m "$tmp/reload.data" -o "$out/reload.tar.xz" --ko-path "$mods" \
	>"$out/archive.json" 2>"$out/archive.stderr"
rc=$?
echo "# archive: $(cat "$out/archive.json") $(head -c 300 "$out/archive.stderr")"
check "record: secmap archive packs the recording's modules (exit 0 or 7: some not in the VM)" \
	[ $rc -eq 0 -o $rc -eq 7 ]

# A starved reader: stopped while modules come and go. A small receive
# buffer (SO_RCVBUF is capped by rmem_max) makes sure it overruns: 8 KiB,
# which these cycles (three events each, a NEW 1 KiB or more) overflow many
# times over. Two modules take turns (secmap_test_late and, without its
# spin, secmap_test_burn); a third is loaded and unloaded last, entirely
# inside the stop. The kernel's module_load/module_free trace says what
# happened.
STARVED="secmap_test_late secmap_test_burn secmap_test_stamp"
trace=/sys/kernel/tracing
starve() {	# starve NAME CYCLES: record while stopped through CYCLES load/unloads
	local i=0 rmem pid ev m

	echo 0 >$trace/tracing_on
	echo >$trace/trace
	echo 1 >$trace/events/module/module_load/enable
	echo 1 >$trace/events/module/module_free/enable
	echo 1 >$trace/tracing_on
	rmem=$(cat /proc/sys/net/core/rmem_max)
	echo 8192 >/proc/sys/net/core/rmem_max
	secmap record -q -j --no-kallsyms -o "$tmp/$1.data" >"$out/$1.summary" &
	pid=$!
	wait_subscribed $pid || echo "# recorder not seen subscribed after 20 s"
	echo "$rmem" >/proc/sys/net/core/rmem_max
	kill -STOP $pid
	while [ $i -lt "$2" ]; do
		if [ $((i % 2)) -eq 0 ]; then
			insmod $mods/secmap_test_late.ko && rmmod secmap_test_late
		else
			insmod $mods/secmap_test_burn.ko burn_ms=0 && rmmod secmap_test_burn
		fi
		i=$((i + 1))
	done
	# One module loaded and gone entirely inside the stop, never seen by a snapshot.
	insmod $mods/secmap_test_stamp.ko && rmmod secmap_test_stamp
	insmod $mods/secmap_test_late.ko
	kill -CONT $pid
	sleep 3
	kill -INT $pid
	wait $pid
	check "record: starved recorder ($1) exits 0 on SIGINT" [ $? -eq 0 ]
	echo 0 >$trace/events/module/module_load/enable
	echo 0 >$trace/events/module/module_free/enable
	for ev in load free; do
		for m in $STARVED; do
			grep -c "module_$ev: $m\b" $trace/trace >"$tmp/$1.$ev.$m"
		done
	done
	secmap show -j -i "$tmp/$1.data" >"$out/$1.jsonl"
	check "record: the file is consistent after the loss ($1)" [ $? -eq 0 ]
	echo "# $1: $(cat "$out/$1.summary")"
}
json_num() { sed -n "s/.*\"$2\":\([0-9]*\).*/\1/p" "$1"; }
# count_records FILE MODULE: "LOADS UNLOADS" recorded from events: the
# distinct sequence numbers of its maps (not snapshots'), and its unmaps.
count_records() {
	echo "$(grep "\"type\":\"map\".*\"module\":\"$2\"," "$1" | grep -v snapshot |
		sed -n 's/.*"seq":\([0-9]*\).*/\1/p' | sort -u | wc -l)" \
		"$(grep -c "\"type\":\"unmap\".*\"module\":\"$2\",\"init_only\":false" "$1")"
}

# With the journal: every event comes back. 1000 cycles take some 2.5 MiB
# of events (1 MiB, the default, holds about 600): the journal is made
# large enough for them, as the documentation tells a user expecting bursts.
kb=$(cat /sys/module/secmap/parameters/journal_kb)
echo 8192 >/sys/module/secmap/parameters/journal_kb
starve journal 1000
jbytes=$(cat /sys/module/secmap/parameters/journal_bytes)
jcap=$(($(cat /sys/module/secmap/parameters/journal_kb) * 1024))
echo "$kb" >/sys/module/secmap/parameters/journal_kb
check "record: the journal holds events within its cap (0 < $jbytes <= $jcap bytes)" \
	[ "$jbytes" -gt 0 -a "$jbytes" -le "$jcap" ]
check "record: the journal gave back lost events (replayed > 0)" \
	[ "$(json_num "$out/journal.summary" replayed)" -gt 0 ]
check "record: with the journal, no event lost (no lost resync, lost 0)" sh -c '
	! grep -q "\"reason\":\"lost\"" "$1" && [ "$2" = 0 ]' sh "$out/journal.jsonl" \
	"$(json_num "$out/journal.summary" lost)"
for m in $STARVED; do
	set -- $(count_records "$out/journal.jsonl" $m)
	loads=$(cat "$tmp/journal.load.$m") frees=$(cat "$tmp/journal.free.$m")
	check "record: every load of $m recorded with its sections ($1 = $loads traced)" \
		[ "$1" -eq "$loads" -a "$loads" -gt 0 ]
	check "record: every unload of $m recorded ($2 = $frees traced)" \
		[ "$2" -eq "$frees" -a "$frees" -gt 0 ]
done
rmmod secmap_test_late

# Without a journal (journal_kb=0, on purpose): a lost resync, saying
# exactly how many: those lost and those delivered make every event the
# trace shows (a load is NEW and LIVE, an unload GONE).
kb=$(cat /sys/module/secmap/parameters/journal_kb)
echo 0 >/sys/module/secmap/parameters/journal_kb
starve nojournal 60
check "record: journal_kb=0 leaves the journal empty ($(cat /sys/module/secmap/parameters/journal_bytes) bytes)" \
	[ "$(cat /sys/module/secmap/parameters/journal_bytes)" -eq 0 ]
echo "$kb" >/sys/module/secmap/parameters/journal_kb
check "record: lost events became a resync record" grep -q '"reason":"lost"' "$out/nojournal.jsonl"
loads=0 frees=0
for m in $STARVED; do
	loads=$((loads + $(cat "$tmp/nojournal.load.$m")))
	frees=$((frees + $(cat "$tmp/nojournal.free.$m")))
done
lost=$(json_num "$out/nojournal.summary" lost)
events=$(json_num "$out/nojournal.summary" events)
check "record: the resync says exactly how many were lost ($lost + $((events - 1)) delivered = $((2 * loads + frees)) traced)" \
	[ $((lost + events - 1)) -eq $((2 * loads + frees)) ]
# The gap starts at the last event delivered before it: known up to there.
check "record: the lost resync's gap starts at the last event delivered, before the resync" \
	awk -F'"time_local_ns":' '
	{ split($2, t, ","); now = t[1] }
	/"reason":"lost"/ {
		match($0, /"gap_local_ns":[0-9]+/); gap = substr($0, RSTART + 15, RLENGTH - 15)
		ok = gap + 0 > 0 && gap == last && gap + 0 < now + 0; exit
	}
	/"type":"(map|unmap)"/ && now > 0 { last = now }
	END { if (!ok) print "# gap " gap ", last event " last ", resync " now; exit !ok }' \
	"$out/nojournal.jsonl"
check "record: the resync's snapshot holds the module loaded during the loss" \
	grep -q '"module":"secmap_test_late","section":".text".*"flags":"[a-z,]*snapshot' "$out/nojournal.jsonl"
# Its address (sysfs) inside the gap: resolved, and flagged as a guess;
# after the resync: not flagged.
text=$(cat /sys/module/secmap_test_late/sections/.text)
gap=$(sed -n 's/.*"reason":"lost".*"gap_local_ns":\([0-9]*\).*/\1/p' "$out/nojournal.jsonl" | head -1)
at=$(sed -n 's/.*"time_local_ns":\([0-9]*\),.*"reason":"lost".*/\1/p' "$out/nojournal.jsonl" | head -1)
check "resolve: secmap_test_late's .text inside the lost gap is flagged in_gap" sh -c '
	secmap resolve -j -m "$1" "$2@$3" | grep -q "\"module\":\"secmap_test_late\".*\"in_gap\":true"' \
	sh "$tmp/nojournal.data" "$text" "$(( (gap + at) / 2 ))"
check "resolve: and after the resync, not" sh -c '
	secmap resolve -j -m "$1" "$2@$3" | grep -q "\"module\":\"secmap_test_late\".*\"in_gap\":false"' \
	sh "$tmp/nojournal.data" "$text" "$((at + 1000))"
rmmod secmap_test_late

# A load event larger than a reader's first receive buffer (600 sections
# with long names: over 32 KiB) reaches it cut, and the journal hands it
# back whole: each section /sys/module lists, at its address; none lost.
secmap record -q -j --no-kallsyms -o "$tmp/many.data" -- sh -c "
	insmod $mods/secmap_test_many.ko || exit 1
	grep -H '' /sys/module/secmap_test_many/sections/.[!.]* /sys/module/secmap_test_many/sections/* |
		sed -n 's|^.*/sections/\(.*\):0x0*\([0-9a-f]*\)$|\1 \2|p' | sort >$tmp/many.sysfs
	secmap dump --source netlink --ko-path $mods secmap_test_many >$tmp/many.dump 2>&1
	echo \$? >$tmp/many.dump.rc
	rmmod secmap_test_many" >"$out/many.summary" 2>"$out/many.stderr"
check "record: a module of 600 sections loaded and unloaded while recording (exit 0)" [ $? -eq 0 ]
secmap show -j -i "$tmp/many.data" | grep '"type":"map"' | grep -v snapshot |
	sed -n 's/.*"module":"secmap_test_many","section":"\([^"]*\)","start":"0x0*\([0-9a-f]*\)".*/\1 \2/p' |
	sort >"$tmp/many.recorded"
check "record: ... each of its $(wc -l <"$tmp/many.sysfs") sysfs sections recorded at its address" \
	sh -c '[ "$(wc -l <"$1")" -ge 600 ] && cmp -s "$1" "$2"' sh "$tmp/many.sysfs" "$tmp/many.recorded"
check "record: ... the cut event given back by the journal (replayed $(json_num "$out/many.summary" replayed)), lost $(json_num "$out/many.summary" lost)" \
	[ "$(json_num "$out/many.summary" replayed)" -ge 1 -a "$(json_num "$out/many.summary" lost)" -eq 0 ]
echo "# many: $(cat "$out/many.summary") $(head -c 300 "$out/many.stderr")"
# Its snapshot too: a dump's parts are made large enough for it.
check "dump: a module whose message exceeds a dump part's default size (exit $(cat "$tmp/many.dump.rc"))" \
	[ "$(cat "$tmp/many.dump.rc")" = 0 ]
[ "$(cat "$tmp/many.dump.rc")" = 0 ] || sed 's/^/# /' "$tmp/many.dump" | head -n 3
check "dump: ... lists its 600 sections" \
	[ "$(grep -c secmap_many_tables "$tmp/many.dump")" -eq 600 ]

tap_done
