#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Work that grows with the input no faster than n log n: each input that a
# quadratic path once took seconds over, at n and 4n items, answered right
# (answers computed by tests/complexity.py from the input alone), and the
# CPU time and peak memory of the larger at most 10 times the smaller's
# (n log n gives 4 to 6, allowing for caches; n^2 gives 16). CPU time, the
# least of three runs: a busy machine slows both sizes alike. TAP output.
#
#   complexity_test.sh SECMAP_BINARY [N]	(N: 20000)
set -u

bin=${1:?usage: $0 SECMAP_BINARY [N]}
size=${2:-20000}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$here/../../scripts/tap.sh"
cx() { python3 "$here/complexity.py" "$@"; }

# grows NAME CMD_N CMD_4N: CPU and RSS of the two within the bound.
grows() {
	local name=$1 small big
	small=$(cx cost sh -c "$2") && big=$(cx cost sh -c "$3") || return 1
	python3 - "$name" "$small" "$big" <<'PY'
import sys
name, (t1, m1), (t4, m4) = sys.argv[1], *(map(float, a.split()) for a in sys.argv[2:])
rt, rm = t4 / max(t1, 1e-3), m4 / max(m1, 1)
print(f"# {name}: {t1:.3f} s -> {t4:.3f} s (x{rt:.1f}), {m1 / 1024:.0f} -> {m4 / 1024:.0f} MiB (x{rm:.1f})")
sys.exit(0 if rt <= 10 and rm <= 10 else 1)
PY
}

# Recordings alone: resolve ADDR@TIME from standard input.
cx sections "$tmp/rec1" "$tmp/q1" 1
for c in sections reloads resyncs overlaps; do
	for k in $size $((4 * size)); do
		cx "$c" "$tmp/$c$k.rec" "$tmp/$c$k.q" "$k"
		cut -d' ' -f1 "$tmp/$c$k.q" >"$tmp/$c$k.in"
	done
	check "resolve, $c: $((4 * size)) answered as the recording says" sh -c '
		"$1" resolve -m "$2.rec" <"$2.in" >"$2.out" 2>/dev/null &&
		python3 "$3/complexity.py" check-resolve "$2.q" "$2.out"' \
		sh "$bin" "$tmp/$c$((4 * size))" "$here"
	check "resolve, $c: n log n in time and memory" grows "$c" \
		"\"$bin\" resolve -m $tmp/$c$size.rec <$tmp/$c$size.in" \
		"\"$bin\" resolve -m $tmp/$c$((4 * size)).rec <$tmp/$c$((4 * size)).in"
done

# archive of many loads of many builds (each build packed once).
for k in $size $((4 * size)); do
	python3 "$here/fake_modules.py" many "$tmp/many$k.rec" "$k" $((k / 4))
done
check "archive, many builds: n log n in time and memory" grows archive \
	"\"$bin\" archive -j -m $tmp/many$size.rec -o $tmp/many$size.tar.xz" \
	"\"$bin\" archive -j -m $tmp/many$((4 * size)).rec -o $tmp/many$((4 * size)).tar.xz"

# perf.data inputs: a base file from perf record, samples spliced in.
if [ "$(id -u)" -ne 0 ] || ! perf record -q -e cpu-clock -o "$tmp/base.data" -- true \
	>/dev/null 2>&1; then
	for c in "user maps" "comms" "tids" "forks"; do
		ok "script, $c: # SKIP perf record does not run here (needs root and perf)"
	done
	tap_done
fi
# tids: fewer, for ids that collided in the old hash at both sizes.
for c in "user-maps overlap" "user-maps spread" "comms" "tids"; do
	set -- $c
	name=$1${2:+-$2}
	small=$size
	[ "$1" = tids ] && small=$((size * 2 / 5))
	for k in $small $((4 * small)); do
		cx "$1" "$tmp/base.data" "$tmp/$name$k.data" "$tmp/$name$k.exp" "$k" ${2:+"$2"}
	done
	check "script, $name, $((4 * small)): every sample named as the input says" sh -c '
		"$1" script -i "$2.data" -m "$3" >"$2.out" 2>/dev/null &&
		python3 "$4/complexity.py" check "$2.exp" "$2.out"' \
		sh "$bin" "$tmp/$name$((4 * small))" "$tmp/rec1" "$here"
	check "script, $name: n log n in time and memory" grows "$name" \
		"\"$bin\" script -i $tmp/$name$small.data -m $tmp/rec1" \
		"\"$bin\" script -i $tmp/$name$((4 * small)).data -m $tmp/rec1"
done
# No FINISHED_ROUND: the samples held back for time order are bounded (the
# older half handed out past 128 MiB), so memory stops growing with the file.
for k in 1200000 2400000; do
	cx no-rounds "$tmp/base.data" "$tmp/norounds$k.data" "$k"
done
# The base file's own samples come along: as many as perf took of `true`
# (2, or more on a busy machine).
base_lines=$("$bin" script -i "$tmp/base.data" -m "$tmp/rec1" 2>/dev/null | wc -l)
check "script, no FINISHED_ROUND, 2.4M samples: all of them, in time order" sh -c '
	"$1" script -i "$2" -m "$3" 2>/dev/null | awk -v want="$4" "{ if (\$3 + 0 < t) bad++; t = \$3 + 0; n++ }
		END { if (bad || n != want) { print \"# \" n \" lines, not \" want \", \" bad + 0 \" out of order\"; exit 1 } }"' \
	sh "$bin" "$tmp/norounds2400000.data" "$tmp/rec1" "$((2400000 + base_lines))"
check "script, no FINISHED_ROUND: twice the samples, at most 1.3 times the memory" sh -c '
	a=$(python3 "$4/complexity.py" cost "$1" script -i "$2" -m "$5") &&
	b=$(python3 "$4/complexity.py" cost "$1" script -i "$3" -m "$5") &&
	python3 -c "import sys; a, b = (float(x.split()[1]) for x in sys.argv[1:]);
print(\"# %.0f -> %.0f MiB\" % (a / 1024, b / 1024)); sys.exit(b > 1.3 * a)" "$a" "$b"' \
	sh "$bin" "$tmp/norounds1200000.data" "$tmp/norounds2400000.data" "$here" "$tmp/rec1"
rm -f "$tmp"/norounds*
# FORKs back and forth between two processes of many maps.
for k in $((size / 100)) $((size / 25)); do
	python3 "$here/fake_modules.py" forks "$tmp/base.data" "$tmp/forks$k.data" 1000 "$k"
done
check "script, forks: n log n in time and memory" grows forks \
	"\"$bin\" script -i $tmp/forks$((size / 100)).data -m $tmp/rec1" \
	"\"$bin\" script -i $tmp/forks$((size / 25)).data -m $tmp/rec1"
tap_done
