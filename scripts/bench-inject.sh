#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make bench, on the host: `secmap inject` (perf-native module maps, the
# default) against `perf inject -b` on the same perf.data of at least a
# million samples, in the same run, taking turns on one CPU: wall time
# (best and median of RUNS) and peak RSS of each, and the ratios. Both read
# every record and write the whole file again. The file is recorded here
# with the host's perf (cpu-clock every 10 us on every CPU) and the fake
# modules of tests/fake_modules.py spliced in (this host loads none), so
# that secmap has module maps to write. Then secmap inject's peak RSS on a
# file four times smaller: streaming, it should not follow the size.
#
#   bench-inject.sh SECMAP OUTDIR [SECONDS] [RUNS]
set -euo pipefail

secmap=${1:?usage: bench-inject.sh SECMAP OUTDIR [SECONDS] [RUNS]}
out=${2:?usage: bench-inject.sh SECMAP OUTDIR [SECONDS] [RUNS]}
seconds=${3:-6}
runs=${4:-5}
top=$(cd "$(dirname "$0")/.." && pwd)
cache=${SECMAP_CACHE:-/var/cache/secmap}
perf=$(cat "$cache/perf/host" 2>/dev/null || command -v perf)
mkdir -p "$out"
cd "$out"

python3 "$top/user/tests/fake_modules.py" kos kos
# record FILE SECONDS: busy CPUs (an idle one takes no cpu-clock samples).
# -B: perf's own build-id pass at the end took minutes here; inject -b does it.
record() {
	"$perf" record -B -q -e cpu-clock -c 10000 -a -o "$1.base" -- sh -c '
		for cpu in $(seq "$(nproc)"); do timeout "$1" sh -c "while :; do :; done" & done
		wait' sh "$2" 2>/dev/null
	python3 "$top/user/tests/fake_modules.py" scenario kos "$1.base" "$1" "$1.rec" \
		"$1.expected"
	rm -f "$1.base"
}
record big.data "$seconds"
record small.data $(((seconds + 3) / 4))
samples=$("$perf" script -i big.data -F time 2>/dev/null | wc -l)
echo "bench inject: $(du -m big.data | cut -f1) MB perf.data, $samples samples"
[ "${samples:-0}" -ge 1000000 ] || echo "bench inject: fewer than a million samples: raise SECONDS"

# WALL_S MAXRSS_KB of one run of the command.
once() {
	local t0 t1 r
	t0=$(date +%s%N)
	/usr/bin/time -f '%M' -o t.txt "$@" >/dev/null 2>&1
	t1=$(date +%s%N)
	read -r r <t.txt
	awk -v a="$t0" -v b="$t1" -v r="$r" 'BEGIN { printf "%.3f %d\n", (b - a) / 1e9, r }'
}
cpu=$(($(nproc) - 1))
: >secmap.runs
: >perf.runs
: >small.runs
for ((i = 0; i < runs; i++)); do
	rm -f out.data pout.data
	once taskset -c "$cpu" "$secmap" inject -i big.data -m big.data.rec -o out.data \
		--ko-path kos --buildid-dir "$out/debug" >>secmap.runs
	once taskset -c "$cpu" "$perf" inject -b -i big.data -o pout.data >>perf.runs
	once taskset -c "$cpu" "$secmap" inject -i small.data -m small.data.rec -o out.data \
		--ko-path kos --buildid-dir "$out/debug" >>small.runs
done
# What was timed was the whole work: the last output puts every module
# sample of the big file on its function, for perf.
"$secmap" inject -i big.data -m big.data.rec -o out.data --ko-path kos \
	--buildid-dir "$out/debug" 2>/dev/null ||
	{ echo "bench inject: secmap inject failed" >&2; exit 1; }
"$perf" --buildid-dir "$out/debug" script -i out.data -F time,ip,sym --ns -G 2>/dev/null \
	>out.script
python3 "$top/user/tests/fake_modules.py" check big.data.expected out.script >/dev/null ||
	{ echo "bench inject: the output is wrong" >&2; exit 1; }
# best_wall median_wall best_rss of a runs file
stats() {
	sort -n "$1" | awk '{ w[NR] = $1; if (NR == 1 || $2 < r) r = $2 }
		END { printf "%s %s %d\n", w[1], w[int((NR + 1) / 2)], r }'
}
read -r sw sm sr < <(stats secmap.runs)
read -r pw pm pr < <(stats perf.runs)
read -r _ _ qr < <(stats small.runs)
echo "bench inject: secmap inject  best $sw s, median $sm s, peak RSS $((sr / 1024)) MB"
echo "bench inject: perf inject -b best $pw s, median $pm s, peak RSS $((pr / 1024)) MB"
echo "bench inject: secmap is $(awk -v a="$pw" -v b="$sw" 'BEGIN { printf "%.1f", a / b }')x faster" \
	"(medians: $(awk -v a="$pm" -v b="$sm" 'BEGIN { printf "%.1f", a / b }')x) and uses" \
	"$(awk -v a="$pr" -v b="$sr" 'BEGIN { printf "%.1f", a / b }')x less memory, over $runs runs each (goal: at least 1x both)"
echo "bench inject: secmap inject peak RSS on a $(du -m small.data | cut -f1) MB file" \
	"$((qr / 1024)) MB, on the $(du -m big.data | cut -f1) MB one $((sr / 1024)) MB" \
	"(goal: the same, whatever the size)"
rm -f big.data small.data out.data pout.data out.script
