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
. "$(dirname "$0")/bench_util.sh"

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
read -r sw sm sr < <(stats secmap.runs)
read -r pw pm pr < <(stats perf.runs)
read -r _ _ qr < <(stats small.runs)
echo "bench inject: secmap inject  best $sw s, median $sm s, peak RSS $((sr / 1024)) MB"
echo "bench inject: perf inject -b best $pw s, median $pm s, peak RSS $((pr / 1024)) MB"
ratios "bench inject: secmap" "goal: at least 1x both" "$runs" secmap.runs perf.runs
echo "bench inject: secmap inject peak RSS on a $(du -m small.data | cut -f1) MB file" \
	"$((qr / 1024)) MB, on the $(du -m big.data | cut -f1) MB one $((sr / 1024)) MB" \
	"(goal: the same, whatever the size)"
rm -f big.data small.data out.data pout.data out.script
