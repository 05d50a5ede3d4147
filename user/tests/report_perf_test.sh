#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# secmap report and script on files recorded by the host's perf, against
# perf script on the same files: as many samples per event, the same
# kernel symbol (with offset) for every kernel sample (the recording's
# kallsyms against perf's reading of /proc/kallsyms), the same mapped file
# for every user sample; plain, -g, -z, two events, -k CLOCK_MONOTONIC; by
# perf 6.1 and, where the sid build root has it, by perf 7.x.
# This host has no module support: module samples are the VM lane's
# (scripts/check-resolution.py). Then bad input. TAP; exits 1 on failure.
# Needs root (perf record -a).
#
#   report_perf_test.sh SECMAP_BINARY
set -u

secmap=${1:?usage: $0 SECMAP_BINARY}
cache=${SECMAP_CACHE:-/var/cache/secmap}
sid_root=$cache/sid-root
host_perf=$(cat "$cache/perf/host" 2>/dev/null || command -v perf)
sid_perf=$(cat "$cache/perf/sid" 2>/dev/null || echo /usr/bin/perf)
perf=$host_perf
# Under the sid root when there is one, so that its perf 7.x sees the files.
if [ "$(id -u)" -eq 0 ] && [ -x "$sid_root$sid_perf" ] && [ -d "$sid_root/tmp" ] &&
	command -v unshare >/dev/null; then
	tmp=$(mktemp -d "$sid_root/tmp/secmap-report.XXXXXX")
	perfs="host sid"
else
	tmp=$(mktemp -d)
	perfs=host
fi
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
. "$(dirname "$0")/../../scripts/tap.sh"
. "$(dirname "$0")/perf_in.sh"
here=$(cd "$(dirname "$0")" && pwd)

if [ "$(id -u)" -ne 0 ] || ! "$perf" record -q -e cpu-clock -a -o "$tmp/probe.data" -- true \
	>/dev/null 2>&1; then
	ok "report: real perf files # SKIP perf record -a does not run here (needs root and perf events)"
	tap_done
fi
cd "$tmp" || exit 1
"$secmap" record -q -o rec.data -- true 2>/dev/null
check "report: a recording of this kernel (identity and symbols)" [ -s rec.data ]
work='i=0; while [ $i -lt 30000 ]; do i=$((i + 1)); done'
workload=(bash -c "$work")
# Two threads of one process, one renamed alone by prctl(PR_SET_NAME):
# perf names each sample by its thread, and so must secmap script.
cat >"$tmp/threads.py" <<'PY'
import ctypes, threading, time
libc = ctypes.CDLL(None)
def spin(rename):
    if rename:
        libc.prctl(15, b"secmap-worker", 0, 0, 0)
    end = time.time() + 0.4
    while time.time() < end:
        pass
worker = threading.Thread(target=spin, args=(True,))
worker.start()
spin(False)
worker.join()
PY

both_same() { [ "$1" -gt 0 ] && cmp -s "$2" "$3"; }
# mostly_same A B (sorted): at most 1% of A's lines missing from B.
mostly_same() {
	local n miss
	n=$(wc -l <"$1")
	miss=$(comm -23 "$1" "$2" | wc -l)
	[ "$miss" -eq 0 ] || echo "# $miss of $n differ"
	[ "$n" -gt 0 ] && [ $((miss * 100)) -le "$n" ]
}
# status_and_line STATUS FILE PATTERN: the last command's status was STATUS,
# and FILE holds one line matching PATTERN.
last=0
status_and_line() { [ "$last" -eq "$1" ] && [ "$(wc -l <"$2")" -eq 1 ] && grep -q "$3" "$2"; }
# "time ip sym+off" of kernel samples and "time ip dso" of user ones, from
# perf script (-F, the fields given) and from secmap script (its default layout).
perf_kernel() {
	perf_in "$which" script -i "${1##*/}" -F event,time,ip,sym,symoff,dso --ns 2>/dev/null |
		awk '$NF == "([kernel.kallsyms])" { sub(/:$/, "", $1); sub(/:$/, "", $2); print $2, $1, $3, $4 }' | sort
}
# Fields counted from the time's: a comm may hold spaces ("V8 WorkerThread").
ours_kernel() {
	"$secmap" script --ns -i "$1" -m rec.data 2>/dev/null |
		awk '$NF == "([kernel.kallsyms])" {
			for (i = 1; i < NF && $i !~ /^[0-9]+\.[0-9]+:$/; i++)
				;
			sub(/:$/, "", $i); sub(/:$/, "", $(i + 2)); print $(i + 2), $i, $(i + 3), $(i + 4) }' |
		sort
}
perf_user() {
	perf_in "$which" script -i "${1##*/}" -F event,time,ip,dso --ns 2>/dev/null |
		awk '$NF ~ /^\(\// { sub(/:$/, "", $1); sub(/:$/, "", $2); print $2, $1, $3, $NF }' | sort
}
ours_user() {
	"$secmap" script --ns -i "$1" -m rec.data 2>/dev/null |
		awk '$NF ~ /^\(\// {
			for (i = 1; i < NF && $i !~ /^[0-9]+\.[0-9]+:$/; i++)
				;
			sub(/:$/, "", $i); sub(/:$/, "", $(i + 2)); print $(i + 2), $i, $(i + 3), $NF }' |
		sort
}
# The same with the function: "time event ip sym+off (dso)"; C++ names hold spaces.
perf_user_sym() {
	perf_in "$which" script -i "${1##*/}" -F event,time,ip,sym,symoff,dso --ns 2>/dev/null |
		awk '$NF ~ /^\(\// { sub(/:$/, "", $1); sub(/:$/, "", $2); s = $4
			for (i = 5; i < NF; i++) s = s " " $i
			print $2, $1, $3, s, $NF }' | sort
}
ours_user_sym() {
	"$secmap" script --ns -i "$1" -m rec.data 2>/dev/null |
		awk '$NF ~ /^\(\// {
			for (i = 1; i < NF && $i !~ /^[0-9]+\.[0-9]+:$/; i++)
				;
			sub(/:$/, "", $i); sub(/:$/, "", $(i + 2)); s = $(i + 4)
			for (j = i + 5; j < NF; j++) s = s " " $j
			print $(i + 2), $i, $(i + 3), s, $NF }' | sort
}
# Sample lines of a perf script output, in its order, user symbols (at
# addresses below the kernel's half; C++ ones hold spaces) as [unknown].
# Runs of spaces as one: perf 7 widened the tid's column from 5 to 7, the
# parsers split on whitespace; whether a line starts with one is kept.
heads() {
	grep -v -e '^$' -e '^	' | tr -s ' ' |
		sed -E 's/^(.*[0-9]: [0-9]+ [^ ]+: )([0-9a-f]{1,15}|[0-7][0-9a-f]{15}) .+ (\([^)]*\))$/\1\2 [unknown] \3/'
}
# same_heads PERF OURS: line for line the same, but where perf names a
# thread ":TID" and secmap by its name: perf 7 forgets a thread at its
# EXIT, and names the samples the kernel takes after it (tearing down the
# address space) ":TID"; secmap keeps the name, as perf 6.1 does.
same_heads() {
	[ -s "$1" ] && awk 'NR == FNR { want[FNR] = $0; n = FNR; next }
		{ a = want[FNR]; b = $0
		  if (a != b && match(a, /^ ?:[0-9]+ /)) { sub(/^ ?[^ ]+ /, "", a); sub(/^ ?[^ ]+ /, "", b) }
		  if (a != b) bad = 1
		  m = FNR }
		END { exit bad || m != n }' "$1" "$2"
}
count_events() {
	awk '{ n[$1]++ } END { for (e in n) print e, n[e] }' | sort
}

# variant NAME PERF_RECORD_ARGS...: recorded and read by $which perf.
variant() {
	local name=$which-$1 f=$tmp/$which-$1.data cnt lost tries=3
	shift
	# A record perf lost (PERF_RECORD_LOST: a machine too busy for its
	# buffers) may be a FORK or a COMM, without which perf's own answers
	# go wrong in ways no reader should copy (a reused tid keeps its old
	# process): such a file is recorded again, three times at most.
	while :; do
		perf_in "$which" record -q "$@" -a -o "${f##*/}" -- "${workload[@]}" >/dev/null \
			2>"$tmp/record.err"
		lost=$(perf_in "$which" report -i "${f##*/}" --stats 2>/dev/null |
			awk '$1 == "LOST" && $2 == "events:" { print $3; exit }')
		if [ "${lost:-0}" -eq 0 ] || [ $((tries -= 1)) -eq 0 ]; then
			break
		fi
		echo "# $name: perf lost $lost records while recording: recorded again"
	done
	if [ ! -s "$f" ]; then
		not_ok "report: $name: perf record wrote $f"
		return
	fi
	# A file perf itself shows no sample of says nothing: show why.
	if ! perf_in "$which" script -i "${f##*/}" 2>"$tmp/script.err" | grep -q .; then
		echo "# $name: perf script shows no sample; perf record said:" \
			"$(head -c 300 "$tmp/record.err")"
		echo "# perf script said: $(head -c 300 "$tmp/script.err")"
	fi
	# With -g the frames are below each sample: compared further down.
	if [ -z "${CHAIN:-}" ]; then
		perf_kernel "$f" >perf.k
		ours_kernel "$f" >ours.k
		cnt=$(wc -l <perf.k)
		check "report: $name: the same symbol for all $cnt kernel samples as perf script" \
			both_same "$cnt" perf.k ours.k
		cmp -s perf.k ours.k || diff perf.k ours.k | head -4 | sed 's/^/# /'
		# JIT code is named after the map the JIT writes for perf,
		# /tmp/perf-PID.map, by both (the jit variant has one).
		perf_user "$f" >perf.u
		ours_user "$f" >ours.u
		# A workload that runs in the kernel (bpf) on an idle machine may
		# leave perf no user sample: nothing to compare, said as a skip.
		if [ ! -s perf.u ]; then
			ok "report: $name: user samples # SKIP perf script shows none in this recording"
		else
			# perf names user samples by its thread maps replayed in time order;
			# secmap by the latest mapping at the sample's time. A mapping
			# replaced within one sample period can tell them apart: 1% leeway.
			check "report: $name: the same file for >= 99% of $(wc -l <perf.u) user samples as perf script" \
				mostly_same perf.u ours.u
			cmp -s perf.u ours.u || diff perf.u ours.u | head -4 | sed 's/^/# /'
			# And the same function in it. Only by the host's perf: the sid
			# root's perf reads the sid root's files under the recorded paths.
			if [ "$which" = host ]; then
				perf_user_sym "$f" >perf.us
				ours_user_sym "$f" >ours.us
				check "report: $name: the same function for >= 99% of $(wc -l <perf.us) user samples as perf script" \
					mostly_same perf.us ours.us
				cmp -s perf.us ours.us || diff perf.us ours.us | head -4 | sed 's/^/# /'
			fi
		fi
	fi
	# perf script's default layout, byte for byte and in time order, for
	# each sample's first line (with its frame without -g): what
	# stackcollapse-perf.pl and speedscope parse. User symbols aside:
	# secmap names user files only.
	perf_in "$which" script -i "${f##*/}" 2>/dev/null | heads >perf.h
	"$secmap" script -i "$f" -m rec.data 2>/dev/null | heads >ours.h
	check "report: $name: secmap script lays out all $(wc -l <perf.h) samples as perf script does, in its order" \
		same_heads perf.h ours.h
	if [ "${workload[0]}" = python3 ]; then
		check "report: $name: the renamed thread and its process both have samples" \
			eval 'grep -q "^ *secmap-worker " perf.h && grep -q "^ *python3 " perf.h'
	fi
	cmp -s perf.h ours.h || diff perf.h ours.h | head -4 | sed 's/^/# /'
	perf_in "$which" script -i "${f##*/}" -F event --ns 2>/dev/null | sed 's/: *$//; s/^ *//' |
		count_events >perf.n
	"$secmap" report -j -i "$f" -m rec.data 2>/dev/null | python3 -c '
import json, sys
for e in json.load(sys.stdin)["events"]:
    assert sum(r["samples"] for r in e["rows"]) == e["samples"]
    if e["samples"]:
        print(e["event"], e["samples"])' | sort >ours.n
	check "report: $name: report -j counts the samples perf script shows, per event" \
		both_same "$(wc -l <perf.n)" perf.n ours.n
	cmp -s perf.n ours.n || { sed 's/^/# perf: /' perf.n; sed 's/^/# ours: /' ours.n; }
}
for which in $perfs; do
	variant plain -e cpu-clock
	CHAIN=1 variant callchain -g -e cpu-clock
	variant compressed -z -e cpu-clock
	variant two-events -e cpu-clock -e task-clock
	variant monotonic -k CLOCK_MONOTONIC -e cpu-clock
	workload=(python3 threads.py)
	variant threads -e cpu-clock
	workload=(bash -c "$work")
done
which=host

# --pprof: go tool pprof (an independent reader of profile.proto) reads the
# file; per event, each function's samples are secmap report's (their
# total too), user files' mappings carry their own build-id (readelf's),
# and with -g the stacks are there (a function's cumulative count above
# its own).
pprof_check() {
	local f=$1 idx ev
	"$secmap" report -i "$f" -m rec.data --pprof "$f.pb.gz" 2>/dev/null || return 1
	"$secmap" report -j -i "$f" -m rec.data --sort symbol 2>/dev/null >"$f.report.json" || return 1
	go tool pprof -raw "$f.pb.gz" >"$f.raw" 2>/dev/null || return 1
	for ev in $(python3 -c 'import json, sys
for e in json.load(open(sys.argv[1]))["events"]:
    if e["samples"]: print(e["event"])' "$f.report.json"); do
		idx=samples
		[ "$(grep -c '^ *[^ ]*:samples/count' "$f.raw")" -eq 0 ] || idx=$ev:samples
		go tool pprof -top -nodefraction=0 -edgefraction=0 -nodecount=100000000 \
			-symbolize=none -sample_index="$idx" "$f.pb.gz" >"$f.top" 2>/dev/null || return 1
		python3 - "$f.report.json" "$ev" "$f.top" <<'PY' || return 1
import json, re, sys
from collections import Counter
rep = next(e for e in json.load(open(sys.argv[1]))["events"] if e["event"] == sys.argv[2])
want = Counter()
for r in rep["rows"]:
    if r["symbol"] is not None:
        want[r["symbol"]] += r["samples"]
got, total = Counter(), None
for line in open(sys.argv[3]):
    m = re.match(r".*Total samples = (\d+)", line)
    if m:
        total = int(m.group(1))
    f = line.split()
    if len(f) >= 6 and f[0].isdigit() and f[1].endswith("%"):
        name = " ".join(f[5:])
        # Addresses of unknown functions: pprof names them by their mapping.
        if not re.fullmatch(r"\[.*\]|0x[0-9a-f]+", name):
            got[name] += int(f[0])
bad = [(k, want[k], got[k]) for k in set(want) | set(got) if want[k] != got[k]]
print("# %s: %d functions, %d samples; pprof total %s; %d differ %s" %
      (sys.argv[2], len(want), rep["samples"], total, len(bad), bad[:3]))
sys.exit(bool(bad) or total != rep["samples"] or not want)
PY
	done
	python3 - "$f.raw" <<'PY' || return 1
import re, subprocess, sys
ok = 0
for line in open(sys.argv[1]):
    m = re.match(r"\d+: 0x\w+/0x\w+/0x\w+ (/\S+) ([0-9a-f]+)", line)
    if not m or not m.group(1).endswith("libc.so.6"):
        continue
    notes = subprocess.run(["readelf", "-n", m.group(1)], capture_output=True, text=True).stdout
    want = re.search(r"Build ID: ([0-9a-f]+)", notes)
    if not want or want.group(1) != m.group(2):
        print("# %s: mapping build-id %s, readelf %s" % (m.group(1), m.group(2), want and want.group(1)))
        sys.exit(1)
    ok += 1
sys.exit(not ok)
PY
}
# --pprof's file: made whole or not at all, never in place of a FIFO,
# a device or a directory.
mkfifo pprof.fifo
mkdir pprof.dir
ln -s /dev/null pprof.null
for target in pprof.fifo pprof.dir pprof.null; do
	"$secmap" report -i host-plain.data -m rec.data --pprof $target >/dev/null 2>err; last=$?
	check "report --pprof $target: exit 2, one line, left as it was" \
		eval 'status_and_line 2 err "pprof" && [ -e $target ] && ! [ -f $target ]'
done
[ -p pprof.fifo ] && [ -c /dev/null ] || not_ok "report --pprof: a FIFO or /dev/null changed"
if command -v go >/dev/null && go tool pprof -h >/dev/null 2>&1; then
	for f in host-plain.data host-callchain.data host-two-events.data; do
		check "report --pprof: go tool pprof reads $f: samples per function and in all as secmap report's" \
			pprof_check $f
	done
	check "report --pprof: with -g, callers' cumulative samples above their own" \
		awk '$1 ~ /^[0-9]+$/ && $4 > $1 { n++ } END { exit n < 10 }' host-callchain.data.top
else
	ok "report --pprof # SKIP no go tool pprof (Debian's golang-go)"
fi

# perf's filters on the two-thread recording: the samples perf script keeps,
# in its layout, for each filter and for two at once.
read -r wpid wtid < <("$perf" script -i host-threads.data -F comm,pid,tid 2>/dev/null |
	awk '$1 == "secmap-worker" { split($2, a, "/"); print a[1], a[2]; exit }')
for filter in "--comm secmap-worker" "--comm python3,secmap-worker" "--pid ${wpid:-0}" \
	"--tid ${wtid:-0}" "--cpu 0" "--comm python3 --cpu 0-1"; do
	# shellcheck disable=SC2086
	"$perf" script -i host-threads.data $filter 2>/dev/null | heads >perf.f
	# shellcheck disable=SC2086
	"$secmap" script -i host-threads.data -m rec.data $filter 2>/dev/null | heads >ours.f
	check "script $filter: the $(wc -l <perf.f) samples perf script keeps, as it lays them out" \
		same_heads perf.f ours.f
	cmp -s perf.f ours.f || diff perf.f ours.f | head -4 | sed 's/^/# /'
done

# secmap report with perf's sort keys, filters and limits: perf report's
# rows, every one (overhead and the keys' columns). The host has no
# modules, the one place where the two differ on purpose.
# perf sizes its comm column by each thread's last name, and cuts longer
# ones it had before ("perf-exec" becomes "perf-ex" once it is "bash"):
# -w gives that column room.
perf_rows() {
	local f=$1 a widths=0 keys=
	shift
	for a in "$@"; do
		case $keys in --sort) keys=$a ;; esac
		[ "$a" = --sort ] && keys=--sort
	done
	for a in ${keys//,/ }; do
		case $a in comm) widths=$widths,64 ;; *) widths=$widths,0 ;; esac
	done
	"$perf" report -i "$f" --stdio --no-children -g none -w "$widths" "$@" 2>/dev/null |
		grep -v -e '^#' -e '^$' | awk '{ $1 = $1; print }' | sort
}
ours_rows() {
	local f=$1
	shift
	"$secmap" report -i "$f" -m rec.data "$@" 2>/dev/null | grep -v -e '^#' -e '^$' |
		awk '{ $2 = ""; print }' | awk '{ $1 = $1; print }' | sort
}
same_rows() {
	perf_rows "$@" >perf.r
	ours_rows "$@" >ours.r
	[ -s perf.r ] && cmp -s perf.r ours.r
}
# A JIT in miniature (jit_spin.c): its code named from the map it writes
# for perf, /tmp/perf-PID.map. The host's perf only: the sid root's would
# look for that map in the root's /tmp.
if ${CC:-cc} -O2 -o "$tmp/jit" "$here/jit_spin.c" 2>/dev/null; then
	workload=("$tmp/jit")
	variant jit -e cpu-clock
	workload=(bash -c "$work")
	check "report: jit: perf names both JIT functions from the JIT's map" \
		eval 'grep -q " jit_spin_one+0x" perf.us && grep -q " jit spin two \[tier 2\]+0x" perf.us'
	check "report --sort dso,sym: perf report's $(perf_rows host-jit.data --sort dso,sym |
		wc -l) rows of host-jit.data" same_rows host-jit.data --sort dso,sym
	cmp -s perf.r ours.r || diff perf.r ours.r | head -4 | sed 's/^/# /'
	rm -f $("$perf" script -i host-jit.data -F dso 2>/dev/null |
		grep -o '/tmp/perf-[0-9]*\.map' | sort -u)
else
	ok "report: jit # SKIP no C compiler (\$CC or cc) to build the JIT"
fi

# Twin libraries (twin_spin.c): two files of one layout, a function at the
# same offset in each under its own name; a sample in each gets its own
# file's name, as perf script gives it.
src=$here/twin_spin.c
twin_offsets_same() {
	local a b
	a=$(readelf -sW "$tmp/libtwin_a.so" | awk '$NF == "twin_a_spin" { print $2 }' | sort -u)
	b=$(readelf -sW "$tmp/libtwin_b.so" | awk '$NF == "twin_b_spin" { print $2 }' | sort -u)
	[ -n "$a" ] && [ "$a" = "$b" ]
}
if ${CC:-cc} -O1 -fPIC -shared -DTWIN=twin_a -o "$tmp/libtwin_a.so" "$src" 2>/dev/null &&
	${CC:-cc} -O1 -fPIC -shared -DTWIN=twin_b -o "$tmp/libtwin_b.so" "$src" 2>/dev/null &&
	${CC:-cc} -O2 -o "$tmp/twin" "$src" -L"$tmp" -ltwin_a -ltwin_b -Wl,-rpath,"$tmp" 2>/dev/null; then
	workload=("$tmp/twin" 1)
	variant twin -e cpu-clock
	workload=(bash -c "$work")
	check "report: twin: the twins' functions at one offset; perf names both" \
		eval 'twin_offsets_same && grep -q " twin_a_spin+0x" perf.us &&
			grep -q " twin_b_spin+0x" perf.us'
else
	ok "report: twin # SKIP no C compiler (\$CC or cc) to build the twin libraries"
fi

# A stripped program (plt_spin.c) that spends its time in a PLT slot: its
# file gives perf no symbol, so perf names none of its PLT slots (it
# makes them only for a file that gave it symbols) and shows addresses.
plt_unnamed() {
	local lo size a
	read -r lo size < <(readelf -SW "$tmp/plt_spin" | sed 's/^ *\[ *[0-9]*\] *//' |
		awk '$1 == ".plt" { print $3, $5 }')
	[ -n "$lo" ] && ! grep -q ' plt_spin .*@plt' perf.r || return 1
	for a in $(awk '$2 == "plt_spin" && $4 ~ /^0x/ { print $4 }' perf.r); do
		((a >= 0x$lo && a < 0x$lo + 0x$size)) && return 0
	done
	return 1
}
if ${CC:-cc} -O2 -fno-builtin -o "$tmp/plt_spin" "$here/plt_spin.c" 2>/dev/null &&
	strip "$tmp/plt_spin" 2>/dev/null; then
	workload=("$tmp/plt_spin" 1)
	variant stripped -e cpu-clock
	workload=(bash -c "$work")
	check "report --sort dso,sym: perf report's $(perf_rows host-stripped.data --sort dso,sym |
		wc -l) rows of host-stripped.data" same_rows host-stripped.data --sort dso,sym
	cmp -s perf.r ours.r || diff perf.r ours.r | head -4 | sed 's/^/# /'
	check "report: stripped: perf shows the address of a PLT slot, named by no symbol" plt_unnamed
else
	ok "report: stripped # SKIP no C compiler (\$CC or cc) or strip to build the program"
fi

# C++ through the PLT (cxx_spin.cc): perf names a slot after the function
# it jumps to, demangled ("operator delete@plt"). Where a symbol without a
# size (_init) reaches over the PLT, perf's answer depends on the shape of
# its tree of symbols: the slots' rows perf names are compared, and every
# function by the 99% check of variant.
plt_rows_named() {
	grep -q ' cxx_spin \[\.\] operator delete@plt$' perf.r &&
		! grep '@plt$' perf.r | grep -qvxFf ours.r
}
if ${CXX:-c++} -O0 -o "$tmp/cxx_spin" "$here/cxx_spin.cc" 2>/dev/null; then
	workload=("$tmp/cxx_spin" 1)
	variant cxx -e cpu-clock
	workload=(bash -c "$work")
	perf_rows host-cxx.data --sort dso,sym >perf.r
	ours_rows host-cxx.data --sort dso,sym >ours.r
	check "report --sort dso,sym: the $(grep -c '@plt$' perf.r) PLT slots perf names in host-cxx.data, demangled" \
		plt_rows_named
	grep '@plt$' perf.r | grep -vxFf ours.r | head -4 | sed 's/^/# perf: /'
else
	ok "report: cxx # SKIP no C++ compiler (\$CXX or c++) to build the program"
fi

# A BPF program (bpf_spin.c) the kernel runs in a loop: its JITed code is
# named by the KSYMBOL record the kernel writes at its load, as perf names
# it, dso and symbol alike; and by the one perf record synthesizes for a
# program loaded before it started.
bpf_frames() { grep -o ' [0-9a-f]* bpf_prog_[0-9a-f]*_secmap_spin+0x[0-9a-f]* ([^)]*)$' | sort; }
bpf_check() {
	local f=$1
	grep -q "bpf_prog_${tag}_secmap_spin" <("$perf" script -i "$f" -F ip,sym 2>/dev/null) || return 1
	same_rows "$f" --sort dso,sym || return 1
	"$perf" script -i "$f" -F ip,sym,symoff,dso 2>/dev/null | bpf_frames >perf.b
	"$secmap" script -i "$f" -m rec.data 2>/dev/null | bpf_frames >ours.b
	echo "# $f: $(wc -l <perf.b) samples in the program"
	[ -s perf.b ] && cmp -s perf.b ours.b
}
if ${CC:-cc} -O2 -o "$tmp/bpf_spin" "$here/bpf_spin.c" 2>/dev/null &&
	tag=$("$tmp/bpf_spin" 0.1 2>"$tmp/bpf.err"); then
	workload=("$tmp/bpf_spin" 1)
	variant bpf -e cpu-clock
	workload=(bash -c "$work")
	check "report: bpf: a program loaded while perf records: dso, symbol and offset as perf names them" \
		bpf_check host-bpf.data
	cmp -s perf.r ours.r || diff perf.r ours.r | head -4 | sed 's/^/# /'
	"$tmp/bpf_spin" 2 >/dev/null &
	sleep 0.5
	"$perf" record -q -a -e cpu-clock -o host-bpf-before.data -- sleep 0.5 >/dev/null 2>&1
	wait
	check "report: bpf: a program loaded before perf started (perf's synthesized KSYMBOL)" \
		bpf_check host-bpf-before.data
	cmp -s perf.r ours.r || diff perf.r ours.r | head -4 | sed 's/^/# /'
else
	ok "report: bpf # SKIP the kernel runs no JITed BPF program here: $(head -c 200 "$tmp/bpf.err")"
fi

for f in host-callchain.data host-threads.data host-two-events.data; do
	for keys in dso,sym comm,dso cpu,comm sym,dso; do
		check "report --sort $keys: perf report's $(perf_rows $f --sort $keys | wc -l) rows of $f" \
			same_rows $f --sort $keys
		cmp -s perf.r ours.r || diff perf.r ours.r | head -4 | sed 's/^/# /'
	done
	# A thread's rows: perf makes two of a tid it saw forked again, and
	# names them by the thread's last name, even one given after its
	# last sample; secmap one, by the name of its last sample. And with
	# this key perf puts functions of one name in one row (C++
	# overloads, demangled without their parameters). Compared by tid,
	# function name and sample count, rows of one such key added up.
	"$perf" report -i $f --stdio --no-children -g none -n --sort pid,sym 2>/dev/null |
		awk '!/^#/ && NF { sub(/:.*/, "", $3); k = $3; for (i = 4; i <= NF; i++) k = k " " $i
			n[k] += $2 } END { for (k in n) print k, n[k] }' | sort >perf.r
	"$secmap" report -i $f -m rec.data --sort pid,sym 2>/dev/null |
		awk '!/^#/ && NF { sub(/:.*/, "", $3); k = $3; for (i = 4; i <= NF; i++) k = k " " $i
			n[k] += $2 } END { for (k in n) print k, n[k] }' | sort >ours.r
	check "report --sort pid,sym: perf report's $(wc -l <perf.r) threads' functions of $f" \
		eval '[ -s perf.r ] && cmp -s perf.r ours.r'
	cmp -s perf.r ours.r || diff perf.r ours.r | head -4 | sed 's/^/# /'
done
# --time, perf's forms: slices of the recording, and ranges in seconds
# around its middle (from perf's own header: the first and last sample).
read -r t_first t_last < <("$perf" report -i host-callchain.data --header-only 2>/dev/null |
	awk -F' : ' '/time of first sample/ { f = $2 } /time of last sample/ { l = $2 }
		END { print f, l }')
mid=$(awk -v a="${t_first:-0}" -v b="${t_last:-0}" 'BEGIN { printf "%.6f", (a + b) / 2 }')
q1=$(awk -v a="${t_first:-0}" -v b="${t_last:-0}" 'BEGIN { printf "%.6f", a + (b - a) / 4 }')
for t in 10%/2 10%/1,10%/3 0%-50% 25%-50%,75%-100% "$t_first,$mid" ",$mid" "$mid," "$t_first,$q1 $mid,$t_last"; do
	check "report --time '$t': perf report's $(perf_rows host-callchain.data --sort comm,dso,sym \
		--time "$t" | wc -l) rows" same_rows host-callchain.data --sort comm,dso,sym --time "$t"
	cmp -s perf.r ours.r || diff perf.r ours.r | head -4 | sed 's/^/# /'
done
# Ranges that touch or overlap: refused, as perf refuses them.
"$secmap" report -i host-callchain.data -m rec.data --time "$t_first,$mid $mid,$t_last" >/dev/null 2>err
last=$?
check "report --time with touching ranges: exit 2, one line (perf: Invalid time string)" \
	status_and_line 2 err "time"
# --header: perf's lines, for every feature secmap reads (the event's
# line is its name alone), and the recording's.
"$secmap" report -i host-callchain.data -m rec.data --header-only >ours.hdr 2>/dev/null
"$perf" report -i host-callchain.data --header-only >perf.hdr 2>/dev/null
check "report --header-only: $(grep -c -v -e '^# event :' -e '^# secmap' ours.hdr) lines as perf's" \
	eval '[ "$(grep -c -e "^# hostname :" -e "^# cmdline :" -e "^# time of last sample :" ours.hdr)" -eq 3 ] &&
		! grep -v -e "^# event :" -e "^# secmap" ours.hdr | grep -vxFf perf.hdr'
check "report --header-only: the recording's counts, and no table" \
	eval 'grep -q "^# secmap recording : [0-9]* module builds" ours.hdr && ! grep -q "^# Samples" ours.hdr'
# --children on the -g recording: every named function's Children and
# Self as perf report's. Rows of unknown addresses aside: perf keeps a
# callchain's map-relative address (perf 6.1) and gives a frame without
# a map the level of the sample's own ([k] for a user frame).
perf_rows host-callchain.data --sort dso,sym --children | grep -v -e '\] 0x' -e '\] 0000' >perf.c
"$secmap" report -i host-callchain.data -m rec.data --sort dso,sym --children 2>/dev/null |
	grep -v -e '^#' -e '^$' | awk '{ $3 = ""; print }' | awk '{ $1 = $1; print }' |
	grep -v -e '\] 0x' -e '\] 0000' | sort >ours.c
check "report --children: perf report's Children and Self for >= 99% of $(wc -l <perf.c) functions" \
	eval 'mostly_same perf.c ours.c && mostly_same ours.c perf.c'
cmp -s perf.c ours.c || diff perf.c ours.c | head -4 | sed 's/^/# /'
top_sym=$("$perf" report -i host-threads.data --stdio --no-children -g none --sort sym 2>/dev/null |
	awk '$2 == "[.]" { print $3; exit }')
# perf decides whether a row passes --tid by the first sample it counts,
# and then counts every later one, of any thread (hists__findnew_entry()
# keeps the first sample's filter flags). The worker's samples taken
# before its rename share their rows (comm python3) with the main
# thread's: perf shows such a row with both threads' samples, or not at
# all, as the first came. Those rows aside, the rows are perf's; their
# samples are the ones perf script gives the worker under that name.
rows_but_shared() {
	perf_rows "$@" | grep -v '^[0-9.]*% python3 ' >perf.r
	ours_rows "$@" | grep -v '^[0-9.]*% python3 ' >ours.r
	[ -s perf.r ] && cmp -s perf.r ours.r || return 1
	"$perf" script -i host-threads.data --tid "$wtid" -F comm 2>/dev/null |
		awk '$1 == "python3"' | wc -l >perf.n
	"$secmap" report -j -i host-threads.data -m rec.data --tid "$wtid" --sort comm,dso,sym \
		2>/dev/null | python3 -c '
import json, sys
print(sum(r["samples"] for e in json.load(sys.stdin)["events"] for r in e["rows"]
          if r.get("comm") == "python3"))' >ours.n
	echo "# the worker's samples as python3: perf script $(cat perf.n), secmap $(cat ours.n)"
	cmp -s perf.n ours.n
}
nearly_same_rows() {
	case "$*" in
	*--tid*) rows_but_shared "$@" ;;
	*) same_rows "$@" ;;
	esac
}
for opts in "--comm secmap-worker" "--pid ${wpid:-0}" "--tid ${wtid:-0}" "--cpu 0" \
	"--dsos [kernel.kallsyms]" "--symbols ${top_sym:-main}" "--comm python3 --cpu 0-1" \
	"--percent-limit 2" "--percentage relative --comm python3"; do
	# shellcheck disable=SC2086
	check "report $opts: perf report's $(perf_rows host-threads.data --sort comm,dso,sym $opts |
		wc -l) rows" nearly_same_rows host-threads.data --sort comm,dso,sym $opts
	cmp -s perf.r ours.r || diff perf.r ours.r | head -4 | sed 's/^/# /'
done

# report -g: each row's call chains, folded, every one (threshold 0) and
# as perf leaves them (0.5%), callee and caller order, a limit: "row |
# chain" lines of perf report -g folded and of secmap report -g.
# chain_lines DROP ONLY_SHARE: DROP, a row's field to leave out (secmap's samples), or "".
chain_lines() { grep -v '^#' | awk -v drop="$1" -v only_share="$2" '/^ / { if (drop) { $drop = ""; $0 = $0 }
	$1 = $1; row = $0; next } /^[0-9]/ { print row " | " (only_share ? $1 : $0) }' | sort; }
same_chains() {
	local f=$1 sort=$2 args=$3 limited= mode=(--no-children -w 0,64,0,0) ours=() drop=2
	local named='^$'
	# A limit cuts among chains of one share in perf's order of its
	# tree: those compared by their shares alone.
	case $args in *,*,*) limited=1 ;; esac
	# children: rows of named functions only (graph_rows says why).
	if [ "${4:-}" = children ]; then
		mode=(--children -w 0,0,0,0) ours=(--children) drop=3 named='\] (0x|0000)'
	fi
	"$perf" report -i "$f" --stdio "${mode[@]}" --sort "$sort" -g "folded,$args" \
		2>/dev/null | chain_lines "" "$limited" | grep -Ev "$named" >perf.g
	"$secmap" report -i "$f" -m rec.data "${ours[@]}" --sort "$sort" -g "folded,$args" \
		2>/dev/null | chain_lines "$drop" "$limited" | grep -Ev "$named" >ours.g
	[ -s perf.g ] && cmp -s perf.g ours.g
}
for args in 0,callee 0,caller callee caller,0.1 callee,0.1,2; do
	for sort in dso,sym comm,dso,sym; do
		check "report -g $args --sort $sort: perf report -g folded's $(perf_in host report \
			-i host-callchain.data --stdio --no-children --sort $sort -g folded,$args 2>/dev/null |
			grep -c '^[0-9]') chains of host-callchain.data" same_chains host-callchain.data $sort $args
		cmp -s perf.g ours.g || diff perf.g ours.g | head -4 | sed 's/^/# /'
	done
done
"$secmap" report -i host-callchain.data -m rec.data -g graph,count >/dev/null 2>err; last=$?
check "report -g graph,count: exit 2, one line (perf's value that secmap does not print yet)" \
	status_and_line 2 err "count"
# perf's word as -g's own, the next word: refused as perf's, not taken for a file.
"$secmap" report -i host-callchain.data -m rec.data -g address >/dev/null 2>err; last=$?
check "report -g address (the next word): exit 2, one line naming it perf's" \
	status_and_line 2 err "perf's, not secmap's"
"$secmap" report -i host-callchain.data -m rec.data -g folded,bogus >/dev/null 2>err; last=$?
check "report -g folded,bogus: exit 2, one line" status_and_line 2 err "bogus"

# report -g (graph, perf's default layout, and fractal): each row's tree
# under it, as perf report prints it, read back into trees
# (graph_trees.py): every node perf's, in perf's order but among siblings of
# one share (perf orders those by heap addresses), and byte for byte where
# the tree has no such siblings. flat: each row's chains, as sets.
# No column cut: -w 64 for the second, meant for a comm, cut a C++ name of
# the compiler's sorted sym,dso (the VM lane builds kernels meanwhile).
graph_rows() {
	local mode=(--no-children -w 0,0,0,0) ours=() named=()
	# --children: perf's Samples column too, as secmap prints it.
	if [ "${4:-}" = children ]; then
		mode=(--children -n -w 0,0,0,0,0,0) ours=(--children) named=(--named)
	fi
	"$perf" report -i "$1" --stdio "${mode[@]}" --sort "$2" -g "$3" 2>/dev/null >perf.t
	"$secmap" report -i "$1" -m rec.data "${ours[@]}" --sort "$2" -g "$3" 2>/dev/null >ours.t
	case $3 in
	flat*) python3 "$here/graph_trees.py" --flat "${named[@]}" perf.t ours.t ;;
	*) python3 "$here/graph_trees.py" "${named[@]}" perf.t ours.t ;;
	esac
}
for args in graph,callee graph,caller graph,0.1,callee graph,0,caller fractal,callee \
	fractal,caller fractal,0.1,callee fractal,0,caller flat flat,caller flat,0 flat,0.1,callee; do
	for sort in dso,sym sym,dso; do
		check "report -g $args --sort $sort: perf report's chains of host-callchain.data" \
			graph_rows host-callchain.data $sort $args
	done
done
# --children -g: a row of a function in the chains gets the chains from
# its frame on, toward what it called (perf's caller order, its default
# with children) or its callers (callee). Rows of named functions: perf
# 6.1 keys a callchain's unknown frame by its map-relative address, a row
# the sample's own address is not (as in the --children table above).
for args in graph graph,callee fractal,0.1 graph,0,caller flat flat,callee; do
	for sort in dso,sym sym,dso; do
		check "report --children -g $args --sort $sort: perf report's chains of host-callchain.data" \
			graph_rows host-callchain.data $sort $args children
	done
done
for args in 0 0,callee; do
	check "report --children -g folded,$args: perf report's chains of named functions" \
		same_chains host-callchain.data dso,sym $args children
	cmp -s perf.g ours.g || diff perf.g ours.g | head -4 | sed 's/^/# /'
done
# Fractal's "[...]": what the branches shown leave of their parent's share.
graph_rows host-callchain.data dso,sym fractal,callee >/dev/null
rest=$(grep -c -- '--\[\.\.\.\]' perf.t)
check "report -g fractal: perf's $rest '[...]' branches, as many in secmap's" \
	eval '[ "$rest" -gt 0 ] && [ "$(grep -c -- "--\[\.\.\.\]" ours.t)" = "$rest" ]'

# report -F: perf's columns in the order given, every row (perf sorts
# them by the fields, by its own compare functions: compared as sets).
field_rows() {
	local f=$1 fields=$2 a widths=0
	shift 2
	for a in ${fields//,/ }; do
		case $a in comm) widths=$widths,64 ;; *) widths=$widths,0 ;; esac
	done
	# perf 6.1 makes several rows of one unknown address now and then
	# (the same text, a sample or two each), by a key it does not show:
	# where the sample count is a column, a row's samples are added up
	# by the rest of its text (field sets with the count before any
	# key, whose text may have spaces: "[JIT] tid 42").
	local merge='{ $1 = $1; print }' col=0 i=0
	for a in ${fields//,/ }; do
		i=$((i + 1))
		[ "$a" = sample ] && col=$i
	done
	[ $col -gt 0 ] &&
		merge="{ n = \$$col; \$$col = \"\"; \$0 = \$0; \$1 = \$1; c[\$0] += n }
			END { for (k in c) print c[k], k }"
	"$perf" report -i "$f" --stdio --no-children -g none -w "${widths#0,}" -F "$fields" "$@" \
		2>/dev/null | grep -v -e '^#' -e '^$' | awk "$merge" | sort >perf.r
	"$secmap" report -i "$f" -m rec.data -F "$fields" "$@" 2>/dev/null |
		grep -v -e '^#' -e '^$' | awk "$merge" | sort >ours.r
	[ -s perf.r ] && cmp -s perf.r ours.r
}
for f in host-callchain.data host-two-events.data; do
	for fields in overhead,period,sample,comm,dso sample,dso,sym "sample,dso -s sym" \
		comm,overhead period,pid "sample,sym --cpu 0" cpu,sample,overhead; do
		# shellcheck disable=SC2086
		check "report -F $fields: perf report's $(field_rows $f $fields; wc -l <perf.r) rows of $f" \
			field_rows $f $fields
		cmp -s perf.r ours.r || diff perf.r ours.r | head -4 | sed 's/^/# /'
	done
done
"$secmap" report -i host-plain.data -m rec.data -F overhead,bogus >/dev/null 2>err; last=$?
check "report -F overhead,bogus: exit 2, one line" status_and_line 2 err "bogus"
"$secmap" report -i host-plain.data -m rec.data -F overhead_children >/dev/null 2>err; last=$?
check "report -F overhead_children without --children: exit 2, one line" \
	status_and_line 2 err "children"

# script -F: perf's fields, in perf's layout and order, line for line
# (the host's perf; frame lines of -g files aside: perf 6.1 prints user
# callchain addresses relative to their map, perf 7 as they are, as
# secmap does).
for F in comm,tid,time,ip,sym,dso comm,pid,tid,time,event,period,ip,sym,symoff,dso +pid \
	-cpu,-period time,event,period ip,dso ip,sym,symoff comm,cpu,event; do
	for f in host-plain.data host-two-events.data host-callchain.data; do
		"$perf" script -i $f -F $F 2>/dev/null | grep -v '^	' >perf.F
		"$secmap" script -i $f -m rec.data -F $F 2>/dev/null | grep -v '^	' >ours.F
		check "script -F $F: perf script's $(wc -l <perf.F) lines of $f" \
			eval '[ -s perf.F ] && cmp -s perf.F ours.F'
		cmp -s perf.F ours.F || diff perf.F ours.F | head -4 | sed 's/^/# /'
	done
done
"$secmap" script -i host-plain.data -m rec.data -F sym >/dev/null 2>err; last=$?
check "script -F sym: no address, no function: exit 2, one line" status_and_line 2 err "need ip"
# Without -a perf records no CPU: perf script -F cpu refuses, and so does secmap.
"$perf" record -q -e cpu-clock -o noa.data -- "${workload[@]}" >/dev/null 2>&1
"$perf" script -i noa.data -F comm,cpu,ip >/dev/null 2>&1; perf_st=$?
"$secmap" script -i noa.data -m rec.data -F comm,cpu,ip >/dev/null 2>err; last=$?
check "script -F cpu on samples without one: refused as perf refuses (exit 2, one line)" \
	eval '[ $perf_st -ne 0 ] && status_and_line 2 err "cpu attribute"'

# -g: every frame of every sample, kernel ones named as perf names them.
# Samples are keyed by time (perf script sorts them by it; secmap script
# keeps the file's order).
frames() {
	awk '/^\t/ { if ($NF == "([kernel.kallsyms])") f = f " " $1 " " $2; next }
	     NF == 0 { if (key != "") print key f; key = ""; next }
	     { for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) key = $i; f = "" }
	     END { if (key != "") print key f }' | sort
}
"$perf" script -i host-callchain.data 2>/dev/null | frames >perf.g
"$secmap" script -i host-callchain.data -m rec.data 2>/dev/null | frames >ours.g
check "report: callchain: the same kernel frames, in order, for all $(wc -l <perf.g) samples as perf script" \
	both_same "$(wc -l <perf.g)" perf.g ours.g
cmp -s perf.g ours.g || diff perf.g ours.g | head -4 | sed 's/^/# /'
# ... and every user frame's function and file, frame by frame.
user_frames() {
	awk '/^\t/ { n++; if ($NF ~ /^\(\//) { s = $2; for (i = 3; i < NF; i++) s = s " " $i
			print key, n, s, $NF }; next }
	     { for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) key = $i; n = 0 }' | sort
}
"$perf" script -i host-callchain.data 2>/dev/null | user_frames >perf.uf
"$secmap" script -i host-callchain.data -m rec.data 2>/dev/null | user_frames >ours.uf
check "report: callchain: the same function for >= 99% of $(wc -l <perf.uf) user frames as perf script" \
	mostly_same perf.uf ours.uf
cmp -s perf.uf ours.uf || diff perf.uf ours.uf | head -4 | sed 's/^/# /'
# Recorded without kernel symbols: those of this kernel, the same build,
# are taken instead (HOME elsewhere: no build-id cache), and said so.
"$secmap" record -q --no-kallsyms -o nokallsyms.data -- true 2>/dev/null
HOME=$PWD/nohome "$secmap" script -i host-callchain.data -m nokallsyms.data 2>nokallsyms.err |
	frames >nokallsyms.g
check "report: a recording without kallsyms: this kernel's symbols, the same frames" \
	both_same "$(wc -l <perf.g)" perf.g nokallsyms.g
check "report: a recording without kallsyms: says whose symbols it used" \
	grep -q "no kernel symbols; using those of this machine's kernel" nokallsyms.err
# perf's build-id cache copy of the same build's kallsyms from another
# boot (KASLR put _text elsewhere): moved back by the recorded _text.
kbid=$("$secmap" show -i nokallsyms.data | awk '$3 == "kernel" { for (i = 4; i < NF; i++)
	if ($i == "build-id") print $(i + 1); exit }')
mkdir -p "otherboot/.debug/[kernel.kallsyms]/$kbid" "thisboot/.debug/[kernel.kallsyms]/$kbid"
python3 - "otherboot/.debug/[kernel.kallsyms]/$kbid/kallsyms" \
	"thisboot/.debug/[kernel.kallsyms]/$kbid/kallsyms" <<'PY'
import sys
other, this = open(sys.argv[1], "w"), open(sys.argv[2], "w")
for line in open("/proc/kallsyms"):
    addr, rest = line.split(" ", 1)
    other.write("%016x %s" % ((int(addr, 16) + 0x3400000) % (1 << 64), rest))
    # This boot's copy, one name marked: the recorder's text must be it.
    this.write(line.replace(" schedule\n", " secmap_cached_schedule\n"))
PY
HOME=$PWD/otherboot "$secmap" script -i host-callchain.data -m nokallsyms.data 2>otherboot.err |
	frames >otherboot.g
check "report: another boot's kallsyms from the build-id cache, moved by _text: the same frames" \
	both_same "$(wc -l <perf.g)" perf.g otherboot.g
check "report: ... and says it used the build-id cache" \
	grep -q "no kernel symbols; using those of the build-id cache" otherboot.err
# The recorder copies perf's cached kallsyms of this boot, and not another boot's.
HOME=$PWD/otherboot "$secmap" record -q -j -o otherboot.data -- true >otherboot.json 2>/dev/null
check "record: another boot's cached kallsyms is not taken (/proc/kallsyms read)" \
	grep -q '"kallsyms":"/proc/kallsyms"' otherboot.json
HOME=$PWD/thisboot "$secmap" record -q -j -o thisboot.data -- true >thisboot.json 2>/dev/null
check "record: this boot's cached kallsyms is taken" \
	grep -q '"kallsyms":"build-id cache"' thisboot.json
sched=$(awk '$3 == "schedule" { print $1; exit }' /proc/kallsyms)
check "record: ... its text is the one recorded" \
	sh -c '"$1" resolve -m thisboot.data "0x$2" | grep -q " secmap_cached_schedule+0x0"' sh \
	"$secmap" "$sched"
"$secmap" script --folded -i host-callchain.data -m rec.data >folded 2>folded.err
folded_status=$?
# Under ASan a leak is exit 23 (a buffer per sample leaked once).
check "report: --folded exits 0 (no leak under the sanitizers)" sh -c '[ "$1" -eq 0 ] ||
	{ echo "# exit $1: $(head -c 300 "$2")"; exit 1; }' sh $folded_status folded.err
check "report: --folded: counts add up to the samples" \
	[ "$(awk '{ n += $NF } END { print n }' folded)" -eq "$(awk 'NF == 0' <("$secmap" script -i host-callchain.data -m rec.data 2>/dev/null) | wc -l)" ]

# A thread name is the process's to choose, any byte but NUL: one holding
# a ';' (which separates folded frames), an escape and a newline must not
# split a folded line, add a frame, or reach the terminal raw.
cat >"$tmp/hostile.py" <<'PY'
import ctypes, time
ctypes.CDLL(None).prctl(15, b"a;b\x1bc\n", 0, 0, 0)
end = time.time() + 0.4
while time.time() < end:
    pass
PY
"$perf" record -q -g -e cpu-clock -a -o hostile.data -- python3 hostile.py >/dev/null 2>&1
"$secmap" script --folded -i hostile.data -m rec.data >hostile.folded 2>/dev/null
"$secmap" script -i hostile.data -m rec.data >hostile.script 2>/dev/null
"$secmap" report -i hostile.data -m rec.data >hostile.report 2>/dev/null
check "report: a thread named 'a;b<ESC>c<LF>': its folded stacks under one escaped name" \
	grep -q '^a:b\\x1bc\\x0a;' hostile.folded
check "report: a thread named 'a;b<ESC>c<LF>': every folded line is 'frames count'" \
	awk '!/^[^ ;][^;]*(;[^;]+)* [0-9]+$/ { bad = 1 } END { exit bad || NR == 0 }' hostile.folded
check "report: a thread named 'a;b<ESC>c<LF>': no escape byte out of script or report" \
	eval '! grep -q "$(printf "\033")" hostile.folded hostile.script hostile.report'

# A reader of perf script output, unchanged: speedscope (its release, in
# Chromium) loads secmap script's text and perf script's of the same -g
# file, and must see the same stacks per thread in each. (FlameGraph's
# stackcollapse-perf.pl parses as speedscope does, which follows it; it is
# in no package this machine can install.)
consumers=$cache/consumers/node_modules
if command -v node >/dev/null && [ -d "$consumers/speedscope" ] && [ -d "$consumers/playwright-core" ] &&
	[ -x "${CHROMIUM:-/usr/bin/chromium}" ]; then
	"$perf" script -i host-callchain.data >cc-perf.txt 2>/dev/null
	"$secmap" script -i host-callchain.data -m rec.data >cc-ours.txt 2>/dev/null
	node "$here/speedscope_export.mjs" "$consumers" cc-perf.txt >cc-perf.json 2>err &&
		node "$here/speedscope_export.mjs" "$consumers" cc-ours.txt >cc-ours.json 2>>err
	last=$?
	sed 's/^/# /' err
	cmp_rc=1
	[ $last -eq 0 ] && { python3 "$here/speedscope_stacks.py" cc-perf.json cc-ours.json >cmp.txt 2>&1; cmp_rc=$?; }
	check "report: speedscope reads secmap script -g as perf script's: the same stacks per thread" \
		[ $cmp_rc -eq 0 ]
	[ -f cmp.txt ] && sed 's/^\([^#]\)/# \1/' cmp.txt | head -n 5
else
	ok "report: speedscope reads secmap script -g # SKIP speedscope, playwright-core or Chromium not installed (scripts/setup.sh installs them)"
fi

# Another reader, unchanged: the Firefox Profiler's own importer, through
# its command-line client, must make the same kernel functions (self and
# total samples) of secmap script -g's text as of perf script's, thread by
# thread (the threads with the most samples).
cli=$consumers/@firefox-devtools/profiler-cli/dist/profiler-cli.js
if command -v node >/dev/null && [ -f "$cli" ]; then
	[ -f cc-perf.txt ] || "$perf" script -i host-callchain.data >cc-perf.txt 2>/dev/null
	[ -f cc-ours.txt ] ||
		"$secmap" script -i host-callchain.data -m rec.data >cc-ours.txt 2>/dev/null
	bash "$here/firefox_functions.sh" "$cli" cc-perf.txt >ff-perf.txt 2>err &&
		bash "$here/firefox_functions.sh" "$cli" cc-ours.txt >ff-ours.txt 2>>err
	last=$?
	sed 's/^/# /' err
	cnt=$([ $last -eq 0 ] && wc -l <ff-perf.txt || echo 0)
	check "report: the Firefox Profiler reads secmap script -g as perf script's: $cnt kernel functions, the same samples" \
		both_same "$cnt" ff-perf.txt ff-ours.txt
	cmp -s ff-perf.txt ff-ours.txt || diff ff-perf.txt ff-ours.txt | head -4 | sed 's/^/# /'
else
	ok "report: the Firefox Profiler reads secmap script -g # SKIP node or profiler-cli not installed (scripts/setup.sh installs them)"
fi

# Bad input: one line on stderr, exit 8; usage: exit 2.
head -c 3000 host-plain.data >cut.data
"$secmap" report -i cut.data -m rec.data >/dev/null 2>err; last=$?
check "report: a truncated perf.data: exit 8, one line" status_and_line 8 err cut.data
"$secmap" report -i host-plain.data >/dev/null 2>err; last=$?
check "report: perf.data without a recording and no -m: exit 8, says so" \
	status_and_line 8 err "holds no secmap recording"
echo text >text.data
"$secmap" script -i text.data -m rec.data >/dev/null 2>err; last=$?
check "report: script of a text file: exit 8, one line" status_and_line 8 err text.data
"$secmap" report -i host-plain.data -m rec.data --sort nonsense >/dev/null 2>err; last=$?
check "report: --sort nonsense: exit 2, one line" status_and_line 2 err sort
cp host-plain.data before.data
"$secmap" report -i host-plain.data -m rec.data >/dev/null 2>&1
check "report: the input is left as it was" cmp -s host-plain.data before.data
tap_done
