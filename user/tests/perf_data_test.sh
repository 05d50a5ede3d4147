#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# libsecmap's perf.data reader on files made by the real perf: every sample
# that `perf script` shows (event, ip, tid, time, cpu, period) must come out
# of tests/perf_data_dump the same, and as many of them. Files are recorded
# by the host's perf (6.1 here) and, when the sid build root has one, by
# perf 7.x, then read back by both: plain, -z (compressed), -g
# (callchains), two events, -k CLOCK_MONOTONIC. With -g, the callchains
# perf 7.x prints are compared too (perf 6.1 prints some user entries
# relative to their map, so its chains are not raw addresses).
# TAP output; exits 1 if any check fails. Needs root (perf record -a, chroot).
#
#   perf_data_test.sh PERF_DATA_DUMP_BINARY
set -u

dump=${1:?usage: $0 PERF_DATA_DUMP_BINARY}
cache=${SECMAP_CACHE:-/var/cache/secmap}
sid_root=$cache/sid-root
host_perf=$(cat "$cache/perf/host" 2>/dev/null || command -v perf)
sid_perf=$(cat "$cache/perf/sid" 2>/dev/null || echo /usr/bin/perf)
tmp=
cleanup() { [ -n "$tmp" ] && rm -rf "$tmp"; }
trap cleanup EXIT
. "$(dirname "$0")/../../scripts/tap.sh"

# The files live under the sid root when there is one, so that its perf sees them too.
have_sid=false
if [ "$(id -u)" -eq 0 ] && [ -x "$sid_root$sid_perf" ] && command -v unshare >/dev/null &&
	[ -d "$sid_root/tmp" ]; then
	have_sid=true
	tmp=$(mktemp -d "$sid_root/tmp/secmap-perf-data.XXXXXX")
else
	tmp=$(mktemp -d)
fi

. "$(dirname "$0")/perf_in.sh"

# perf script's lines as "EVENT IP TID TIME_NS CPU PERIOD", a callchain
# (one "\tADDR" line per entry) joined with commas in place of IP.
norm() {
	awk '
	function flush() {
		if (have)
			print ev, (nch ? chain : ip), tid, t, cpu, per
		have = 0
	}
	/^\t/ { chain = nch++ ? chain "," $1 : $1; next }
	NF == 0 { flush(); next }
	{
		flush()
		tid = $1; cpu = $2; gsub(/[][]/, "", cpu); sub(/^0+/, "", cpu)
		if (cpu == "") cpu = 0
		t = $3; sub(/:$/, "", t); sub(/\./, "", t); sub(/^0+/, "", t)
		if (t == "") t = 0
		per = $4; ev = $5; sub(/:$/, "", ev); ip = $6; nch = 0; chain = ""; have = 1
	}
	END { flush() }'
}

# Chains with each run of one address shown once: perf 7 sometimes shows
# the first user entry twice after a kernel chain (its own presentation).
dedup_chain() {
	awk '{
		n = split($2, a, ","); c = a[1]
		for (i = 2; i <= n; i++)
			if (a[i] != a[i - 1]) c = c "," a[i]
		$2 = c; print
	}'
}

# perf_died STATUS WHICH: perf script was killed by a signal, its output no
# reference. perf 6.1 copies an MMAP2's build-id by the size the record
# gives, into a 20-byte buffer: on a record whose build-id flag a kernel
# left set over the classic fields (see perf_data.c) it overruns its stack
# and aborts.
perf_died() {
	[ "$1" -ge 128 ] || return 1
	echo "# $2 perf script died (status $1): $(grep -a -m1 -v '^ *$' "$tmp/script.err" | head -c 200)"
}

# same WHICH FILE [-g]: perf_data_dump shows the samples WHICH perf script
# shows; 2 when that perf cannot read the file.
same() {
	local which=$1 f=$2 g=${3:-} n skipped

	if [ -z "$g" ]; then
		perf_in "$which" script -i "$f" -F event,ip,tid,time,cpu,period --ns -G \
			>"$tmp/perf.raw" 2>"$tmp/script.err"
		perf_died $? "$which" && return 2
		norm <"$tmp/perf.raw" | sort >"$tmp/perf.out"
		"$dump" "$tmp/$f" 2>"$tmp/dump.err" | sort >"$tmp/ours.out"
	else
		# Samples whose chain perf leaves empty (it could not resolve the
		# thread) are left out of the chain check, and counted.
		perf_in "$which" script -i "$f" -F event,ip,tid,time,cpu,period --ns \
			>"$tmp/perf.raw" 2>"$tmp/script.err"
		perf_died $? "$which" && return 2
		norm <"$tmp/perf.raw" | sort >"$tmp/perf.all"
		awk 'NF == 6' "$tmp/perf.all" | dedup_chain >"$tmp/perf.out"
		skipped=$(awk 'NF != 6' "$tmp/perf.all" | wc -l)
		"$dump" -g "$tmp/$f" 2>"$tmp/dump.err" | sort |
			awk -v skip="$tmp/perf.all" 'BEGIN {
				while ((getline l < skip) > 0) {
					if (split(l, a) == 5)	# no chain: event tid time cpu period
						drop[a[1] " " a[2] " " a[3] " " a[4]] = 1
				}
			}
			!(($1 " " $3 " " $4 " " $5) in drop)' | dedup_chain >"$tmp/ours.out"
	fi
	n=$(wc -l <"$tmp/perf.out")
	if [ "$n" -eq 0 ]; then
		echo "# $which perf script showed no sample: $(head -c 300 "$tmp/script.err")"
		return 1
	fi
	if ! cmp -s "$tmp/perf.out" "$tmp/ours.out"; then
		echo "# $which perf: $n samples, perf_data_dump: $(wc -l <"$tmp/ours.out")"
		echo "# $(head -c 300 "$tmp/dump.err")"
		diff "$tmp/perf.out" "$tmp/ours.out" | head -5 | sed 's/^/# /'
		return 1
	fi
	echo "# $f, $which perf: $n samples the same${g:+ with callchains, $skipped without chain left out}"
}

# compare DESCRIPTION WHICH FILE [-g]: same, as a TAP line. A perf that dies
# reading the file is a skip, not a pass: the other perf's reading of it
# is still compared.
compare() {
	local desc=$1 st

	shift
	same "$@"
	st=$?
	case $st in
	0) ok "$desc" ;;
	2) ok "$desc # SKIP $1 perf dies reading this file" ;;
	*) not_ok "$desc" ;;
	esac
}

record() {	# record WHICH FILE ARGS...
	local which=$1 f=$2

	shift 2
	# -B: what is compared here is the samples, not the build-id table, and
	# perf 6.1's pass over the DSOs it sampled (system-wide: any process's)
	# aborted once on one of them (util/build-id.c:1010, buffer overflow).
	perf_in "$which" record -B -q -o "$f" "$@" >/dev/null 2>"$tmp/record.err" && return
	echo "# $which perf record $*: $(head -c 300 "$tmp/record.err")"
	return 1
}

variants=(
	"plain|-e cpu-clock -a"
	"zstd|-z -e cpu-clock -a"
	"callchain|-g -e cpu-clock -a"
	"two events|-e cpu-clock,task-clock -a"
	"monotonic|-k CLOCK_MONOTONIC -e cpu-clock -a"
	"all at once|-z -g -k CLOCK_MONOTONIC -e cpu-clock,task-clock -a"
)

run_perf() {	# run_perf WHICH
	local which=$1 v label args f g readers r

	readers=host
	$have_sid && readers="host sid"
	for v in "${variants[@]}"; do
		label=${v%%|*}
		args=${v#*|}
		f="$which-${label// /_}.data"
		# shellcheck disable=SC2086 # $args is a list of words
		if ! record "$which" "$f" $args -- sleep 0.3; then
			not_ok "$which perf record $args"
			continue
		fi
		for r in $readers; do
			# perf 6.1 refuses perf 7's files ("incompatible file format").
			[ "$which" = sid ] && [ "$r" = host ] && continue
			compare "$which perf's $label, read by $r perf" "$r" "$f"
		done
		if [[ $args == *-g* ]] && $have_sid; then
			compare "$which perf's $label: callchains as sid perf shows them" sid "$f" -g
		fi
	done
}

if [ -z "$host_perf" ] || ! "$host_perf" version >/dev/null 2>&1; then
	ok "host perf # SKIP perf not installed"
elif [ "$(id -u)" -ne 0 ]; then
	ok "host perf # SKIP perf record -a needs root"
elif ! record host probe.data -e cpu-clock -a -- true; then
	ok "host perf # SKIP perf record does not work here ($(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null) in perf_event_paranoid)"
else
	echo "# host: $("$host_perf" version)"
	run_perf host
fi

if ! $have_sid; then
	ok "sid perf # SKIP no sid build root with perf (or not root)"
elif ! record sid probe7.data -e cpu-clock -a -- true; then
	not_ok "sid perf record"
else
	echo "# sid: $(perf_in sid version)"
	ok "host perf reading sid perf's files # SKIP perf 6.1 refuses them: incompatible file format"
	run_perf sid
fi

tap_done
