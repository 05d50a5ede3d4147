# SPDX-License-Identifier: GPL-2.0
# Sourced by the host benchmarks (bench-report.sh, bench-inject.sh).

# WALL_S MAXRSS_KB of one run of the command. The wall time is taken in
# nanoseconds around time(1), whose own %e has 10 ms steps: too coarse for
# runs of a tenth of a second.
once() {
	local t0 t1 r
	t0=$(date +%s%N)
	/usr/bin/time -f '%M' -o t.txt "$@" >/dev/null 2>&1
	t1=$(date +%s%N)
	read -r r <t.txt
	awk -v a="$t0" -v b="$t1" -v r="$r" 'BEGIN { printf "%.3f %d\n", (b - a) / 1e9, r }'
}

# best_wall median_wall best_rss of a file of once's lines
stats() {
	sort -n "$1" | awk '{ w[NR] = $1; if (NR == 1 || $2 < r) r = $2 }
		END { printf "%s %s %d\n", w[1], w[int((NR + 1) / 2)], r }'
}

# ratios WHAT GOAL RUNS OURS_FILE THEIRS_FILE: "secmap is Nx faster (medians: Nx)
# and uses Nx less memory, over RUNS runs each (GOAL)", from once's lines.
ratios() {
	local what=$1 goal=$2 n=$3 sw sm sr pw pm pr
	read -r sw sm sr < <(stats "$4")
	read -r pw pm pr < <(stats "$5")
	echo "$what is $(awk -v a="$pw" -v b="$sw" 'BEGIN { printf "%.1f", a / b }')x faster" \
		"(medians: $(awk -v a="$pm" -v b="$sm" 'BEGIN { printf "%.1f", a / b }')x) and uses" \
		"$(awk -v a="$pr" -v b="$sr" 'BEGIN { printf "%.1f", a / b }')x less memory, over $n runs each ($goal)"
}
