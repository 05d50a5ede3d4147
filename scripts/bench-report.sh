#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make bench, on the host: `secmap report --stdio` against `perf report
# --stdio --sort dso,sym` on the same perf.data of at least a million
# samples, in the same run: wall time and peak RSS of each (best of RUNS),
# and the ratios. The file is recorded here with the host's perf (cpu-clock
# every 10 us on every CPU, kept busy by shell loops) next to a secmap
# recording of this kernel.
#
#   bench-report.sh SECMAP OUTDIR [SECONDS] [RUNS]
set -euo pipefail

secmap=${1:?usage: bench-report.sh SECMAP OUTDIR [SECONDS] [RUNS]}
out=${2:?usage: bench-report.sh SECMAP OUTDIR [SECONDS] [RUNS]}
seconds=${3:-6}
runs=${4:-5}
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

# best WALL_S MAXRSS_KB of RUNS runs of the command. The wall time is
# taken in nanoseconds around time(1), whose own %e has 10 ms steps: too
# coarse for secmap's tenth of a second.
best() {
	local i t0 t1 w r bw= br=
	for ((i = 0; i < runs; i++)); do
		t0=$(date +%s%N)
		/usr/bin/time -f '%M' -o t.txt "$@" >/dev/null 2>&1
		t1=$(date +%s%N)
		w=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')
		read -r r <t.txt
		if [ -z "$bw" ] || awk -v a="$w" -v b="$bw" 'BEGIN { exit !(a < b) }'; then bw=$w; fi
		if [ -z "$br" ] || [ "$r" -lt "$br" ]; then br=$r; fi
	done
	echo "$bw $br"
}
read -r sw sr < <(best "$secmap" report --stdio -q -i big.data -m rec.data)
read -r pw pr < <(best "$perf" report --stdio --sort dso,sym -i big.data)
echo "bench report: secmap report --stdio           $sw s, peak RSS $((sr / 1024)) MB"
echo "bench report: perf report --stdio --sort dso,sym $pw s, peak RSS $((pr / 1024)) MB"
echo "bench report: secmap is $(awk -v a="$pw" -v b="$sw" 'BEGIN { printf "%.1f", a / b }')x faster" \
	"and uses $(awk -v a="$pr" -v b="$sr" 'BEGIN { printf "%.1f", a / b }')x less memory (goal: 10x both)"
rm -f big.data
