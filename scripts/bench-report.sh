#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make bench, on the host: `secmap report --stdio` against `perf report
# --stdio --sort dso,sym` on the same perf.data of at least a million
# samples, in the same run: wall time (best and median of RUNS) and peak
# RSS of each, and the ratios. The file is recorded here with the host's
# perf (cpu-clock every 10 us on every CPU, kept busy by shell loops) next
# to a secmap recording of this kernel.
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
# Busy CPUs: an idle one takes no cpu-clock samples.
# -B: collecting build-ids at the end took perf 6.1 minutes here (perf
# kept sampling its own pass over the file); neither report needs them.
"$perf" record -B -q -e cpu-clock -c 10000 -a -o big.data -- sh -c '
	for cpu in $(seq "$(nproc)"); do timeout "$1" sh -c "while :; do :; done" & done
	wait' sh "$seconds" 2>/dev/null
samples=$("$secmap" report -j -i big.data -m rec.data -q | python3 -c '
import json, sys
print(sum(e["samples"] for e in json.load(sys.stdin)["events"]))')
echo "bench report: $(du -m big.data | cut -f1) MB perf.data, $samples samples"
[ "$samples" -ge 1000000 ] || echo "bench report: fewer than a million samples: raise SECONDS"

# RUNS of each, the two taking turns on one CPU: a host whose speed drifts
# over seconds then weighs on both alike (perf report alone read 1.8 and
# 2.7 s in two runs of this script the same morning), and neither pays
# for a migration, or for a CPU busier than the other's. Both run one
# thread (perf report's user + system time is its wall time). The best
# run of each is what each costs when nothing else runs; the medians say
# how steady that is.
cpu=$(($(nproc) - 1))
: >secmap.runs
: >perf.runs
for ((i = 0; i < runs; i++)); do
	once taskset -c "$cpu" "$secmap" report --stdio -q -i big.data -m rec.data >>secmap.runs
	once taskset -c "$cpu" "$perf" report --stdio --sort dso,sym -i big.data >>perf.runs
done
read -r sw sm sr < <(stats secmap.runs)
read -r pw pm pr < <(stats perf.runs)
echo "bench report: secmap report --stdio              best $sw s, median $sm s, peak RSS $((sr / 1024)) MB"
echo "bench report: perf report --stdio --sort dso,sym best $pw s, median $pm s, peak RSS $((pr / 1024)) MB"
echo "bench report: secmap is $(awk -v a="$pw" -v b="$sw" 'BEGIN { printf "%.1f", a / b }')x faster" \
	"(medians: $(awk -v a="$pm" -v b="$sm" 'BEGIN { printf "%.1f", a / b }')x) and uses" \
	"$(awk -v a="$pr" -v b="$sr" 'BEGIN { printf "%.1f", a / b }')x less memory, over $runs runs each (goal: 10x both)"
rm -f big.data
