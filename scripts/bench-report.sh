#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make bench, on the host: secmap's readers against perf's, like for like,
# on the same perf.data of at least a million samples, in the same run:
# wall time (best and median of RUNS) and peak RSS of each, and the ratios.
#
#   1. report, -g recording, user and kernel: `secmap report --sort
#      dso,sym` against `perf report --sort dso,sym --no-children -g none`:
#      the same table, every user sample named from its file on both
#      sides (perf builds no call graph for it, and neither does secmap);
#   2. report, kernel only (-e cpu-clock:k, no -g): the same commands;
#   3. script, the -g recording: `secmap script` against `perf script`,
#      every frame of every sample printed and named (goal 3x faster).
#
# The files are recorded here with the host's perf (cpu-clock every 10 us
# on every CPU, kept busy by shell loops, or dd's system calls for the
# kernel's) next to a secmap recording of this kernel.
#
#   bench-report.sh SECMAP OUTDIR [SECONDS] [RUNS]
set -euo pipefail
. "$(dirname "$0")/bench_util.sh"

secmap=${1:?usage: bench-report.sh SECMAP OUTDIR [SECONDS] [RUNS]}
out=${2:?usage: bench-report.sh SECMAP OUTDIR [SECONDS] [RUNS]}
seconds=${3:-6}
runs=${4:-7}
cache=${SECMAP_CACHE:-/var/cache/secmap}
perf=$(cat "$cache/perf/host" 2>/dev/null || command -v perf)
mkdir -p "$out"
cd "$out"

"$secmap" record -q -o rec.data -- true 2>/dev/null
# record FILE SECONDS WORK PERF_ARGS...: every CPU busy with WORK (an
# idle one takes no cpu-clock samples). -B: collecting build-ids at the
# end took perf 6.1 minutes here (perf kept sampling its own pass over
# the file); neither reader needs them, the files are still here.
record() {
	local file=$1 secs=$2 work=$3
	shift 3
	"$perf" record -B -q "$@" -c 10000 -a -o "$file" -- sh -c '
		for cpu in $(seq "$(nproc)"); do timeout "$1" sh -c "$2" & done
		wait' sh "$secs" "$work" 2>/dev/null
}
count() {
	"$secmap" report -j -i "$1" -m rec.data -q | python3 -c '
import json, sys
print(sum(e["samples"] for e in json.load(sys.stdin)["events"]))'
}
# say FILE HOW: its size and samples.
say() {
	local samples
	samples=$(count "$1")
	echo "bench report: $1: $(du -m "$1" | cut -f1) MB perf.data, $samples samples ($2)"
	[ "$samples" -ge 1000000 ] || echo "bench report: fewer than a million samples: raise SECONDS"
}
# record_enough FILE SECONDS WORK PERF_ARGS...: at least a million
# samples. A -g recording keeps fewer a second than one without (the
# kernel throttles its interrupts, and perf record cannot write its large
# samples as fast as they come: here 14 000 a second kept, millions lost),
# and how many depends on the machine: from SECONDS on, as long again as a
# million and a fifth would take at the rate kept, up to three times.
record_enough() {
	local file=$1 secs=$2 tries=3 kept
	shift 2
	while :; do
		record "$file" "$secs" "$@"
		kept=$(count "$file")
		[ "$kept" -lt 1000000 ] && [ $((tries -= 1)) -gt 0 ] || break
		secs=$(((1200000 * secs + kept - 1) / (kept ? kept : 1)))
	done
	say "$file" "${*:2}"
}
record_enough chain.data "$seconds" 'while :; do :; done' -g -e cpu-clock
# Kernel samples come from system calls: dd's one-byte ones.
record_enough kernel.data "$seconds" 'dd if=/dev/zero of=/dev/null bs=1' -e cpu-clock:k

# compare TITLE RUNS GOAL FILE SECMAP_ARGS -- PERF_ARGS: RUNS of each,
# the two taking turns on one CPU: a host whose speed drifts over seconds
# then weighs on both alike (perf report alone read 1.8 and 2.7 s in two
# runs of this script the same morning), and neither pays for a
# migration, or for a CPU busier than the other's. Both run one thread
# (perf report's user + system time is its wall time). The best run of
# each is what each costs when nothing else runs; the medians say how
# steady that is.
compare() {
	local title=$1 n=$2 goal=$3 file=$4 cpu=$(($(nproc) - 1)) i
	local -a ours=() theirs=()
	shift 4
	while [ "$1" != -- ]; do
		ours+=("$1")
		shift
	done
	shift
	theirs=("$@")
	: >secmap.runs
	: >perf.runs
	for ((i = 0; i < n; i++)); do
		once taskset -c "$cpu" "$secmap" "${ours[@]}" -q -i "$file" -m rec.data >>secmap.runs
		once taskset -c "$cpu" "$perf" "${theirs[@]}" -i "$file" >>perf.runs
	done
	read -r sw sm sr < <(stats secmap.runs)
	read -r pw pm pr < <(stats perf.runs)
	echo "bench report: $title: secmap ${ours[*]}: best $sw s, median $sm s, peak RSS $((sr / 1024)) MB"
	echo "bench report: $title: perf ${theirs[*]}: best $pw s, median $pm s, peak RSS $((pr / 1024)) MB"
	ratios "bench report: $title: secmap" "$goal" "$n" secmap.runs perf.runs
}
compare "-g, user and kernel" "$runs" "goal: 10x both" chain.data report --stdio --sort dso,sym -- \
	report --stdio --sort dso,sym --no-children -g none
compare "kernel only" "$runs" "goal: 10x both" kernel.data report --stdio --sort dso,sym -- \
	report --stdio --sort dso,sym --no-children -g none
compare "script, -g" "$(((runs + 1) / 2))" "goal: 3x faster" chain.data script -- script
rm -f chain.data kernel.data
