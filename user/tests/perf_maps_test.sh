#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Stock perf gets module samples right after secmap inject, and every perf
# command works on what it writes. This host cannot load modules, so the
# modules are fake (tests/fake_modules.py: ET_REL objects built with gcc
# and ld, like a .ko) and their samples are spliced into files of the real
# perf: one module loaded before the recording, one loaded during it (init
# runs, is freed) and unloaded, a third loaded into its old range, the
# second again elsewhere. The expected function of each sample comes from
# readelf's symbols and the scenario, not from secmap.
#
# For files of perf 6.1 (plain, -g, -z, two events) and of perf 7.x (plain,
# -z), read by the perf that can (6.1 reads no COMPRESSED2) and by perf 7.x:
#   - perf script names every module sample right (stock: printed beside);
#   - report, report --header, report -D, script -F, annotate, diff, data
#     convert --to-json, buildid-list and inject (plain, -b, --buildid-all,
#     -o -) exit 0, and show what they showed before but for module lines;
#     the module samples stay right through perf inject;
#   - perf archive, and secmap archive, unpacked into an empty build-id
#     cache give every module sample right, offline;
#   - injecting twice gives the same file; --strip gives back perf's;
#     secmap's records sit where perf's ordering needs them;
#   - secmap script reads the file; after perf inject, secmap says the
#     recording was dropped;
#   - hotspot's perfparser names the module functions (but, as hotspot 1.3
#     keeps one symbol per address, not those of a module in a range
#     another module had: printed, not counted).
# Then files secmap refuses. TAP; exits 1 on failure. Needs root.
#
#   perf_maps_test.sh SECMAP_BINARY [REWRITE_CHECK]
#
# REWRITE_CHECK (tests/rewrite_check.c) then cuts and changes the files of
# perf 6.1, plain and -z, to check the rewrite against damaged input.
set -u

secmap=${1:?usage: $0 SECMAP_BINARY [REWRITE_CHECK]}
rewrite_check=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
cache=${SECMAP_CACHE:-/var/cache/secmap}
sid_root=$cache/sid-root
host_perf=$(cat "$cache/perf/host" 2>/dev/null || command -v perf)
sid_perf=$(cat "$cache/perf/sid" 2>/dev/null || echo /usr/bin/perf)
perfparser=/usr/lib/x86_64-linux-gnu/libexec/hotspot-perfparser
if [ "$(id -u)" -eq 0 ] && [ -x "$sid_root$sid_perf" ] && [ -d "$sid_root/tmp" ] &&
	command -v unshare >/dev/null; then
	tmp=$(mktemp -d "$sid_root/tmp/secmap-maps.XXXXXX")
	have_sid=true
else
	tmp=$(mktemp -d)
	have_sid=false
fi
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
. "$here/../../scripts/tap.sh"
. "$here/perf_in.sh"
perf_in_pidns=1
fm() { python3 "$here/fake_modules.py" "$@"; }

if [ "$(id -u)" -ne 0 ] || ! "$host_perf" record -q -e cpu-clock -a -o "$tmp/probe.data" \
	-- true >/dev/null 2>&1; then
	ok "perf maps # SKIP perf record -a does not run here (needs root and perf events)"
	tap_done
fi
cd "$tmp" || exit 1
check "fake modules built (gcc, ld -r --build-id)" fm kos kos

# The build-id cache of variant V as perf WHICH sees it (7.x runs chrooted).
cache_of() {	# cache_of WHICH V
	if [ "$1" = host ]; then echo "$tmp/$2/debug"; else echo "${tmp#"$sid_root"}/$2/debug"; fi
}
pscript() {	# pscript WHICH CACHE FILE: "time ip sym" of every sample, no call chains
	perf_in "$1" --buildid-dir $2 script -i "$3" -F time,ip,sym --ns -G 2>/dev/null
}
right() {	# right WHICH V FILE [CACHE]: every module sample on its function
	pscript "$1" "${4:-$(cache_of "$1" "$2")}" "$3" >"$2/script.out"
	fm check "$2/expected.txt" "$2/script.out"
}
# Lines of perf's that are not about modules: their rows, symbols, file
# names, addresses; the data size and the offset of the features after it
# (the section grew), and the random tip. Columns are as wide as their
# widest name: spaces are squeezed. perf 7 runs chrooted in sid's root,
# where the user binaries are not those this host ran: their symbols come
# out as they may, and its user lines are left out (its inlined frames
# too: addr2line under a time limit finds them in one run, not the next).
unmoduled() {	# unmoduled WHICH
	grep -v -E 'secmap_fake|fake_[abc]_|\.secmap/|\[secmap\]|ffffffffc1[0-3]|# data size|# feat offset|^# \(Tip:|^# ?$|^# \.\.\.' |
		sed -E 's/^ *[0-9.]+%//' | tr -s ' ' | grep -v '^ *$' |
		if [ "$1" = sid ]; then grep -v -E '\[\.\]| [0-7][0-9a-f]{0,15} .*\(/|\(inlined\)$'; else cat; fi
}
same_unmoduled() {	# same_unmoduled WHICH V ARGS...: perf ARGS the same on fab and inj
	local which=$1 v=$2 f

	shift 2
	for f in fab inj; do
		perf_in "$which" --buildid-dir "$(cache_of "$which" "$v")" "$@" -i "$v/$f.data" \
			>"$v/$f.view" 2>/dev/null || { echo "# perf $*: exit $? on $f.data"; return 1; }
		unmoduled "$which" <"$v/$f.view" | sort >"$v/$f.view.sorted"
	done
	diff "$v/fab.view.sorted" "$v/inj.view.sorted" >"$v/view.diff" && return
	sed 's/^/# /' "$v/view.diff" | head -10
	return 1
}
# perf report -D: every sample as it was; perf's map gone, secmap's 7 maps and 4 unmaps in.
raw_counts() {	# raw_counts WHICH V FILE: "TYPE COUNT" lines
	perf_in "$1" report -D -i "$3" 2>/dev/null |
		grep -oE 'PERF_RECORD_[A-Z0-9_]+' | sort | uniq -c | awk '{ print $2, $1 }'
}
same_raw() {
	local which=$1 v=$2

	raw_counts "$which" "$v" "$v/fab.data" >"$v/fab.raw"
	raw_counts "$which" "$v" "$v/inj.data" >"$v/inj.raw"
	python3 - "$v/fab.raw" "$v/inj.raw" <<'PY'
import sys
a, b = (dict((l.split()[0], int(l.split()[1])) for l in open(f)) for f in sys.argv[1:])
want = dict(a)
want["PERF_RECORD_MMAP"] = a.get("PERF_RECORD_MMAP", 0) - 1
want["PERF_RECORD_MMAP2"] = a.get("PERF_RECORD_MMAP2", 0) + 7
want["PERF_RECORD_KSYMBOL"] = a.get("PERF_RECORD_KSYMBOL", 0) + 4
want = {k: v for k, v in want.items() if v}
if want != b:
    print("# record counts:", {k: (want.get(k), b.get(k)) for k in set(want) | set(b)
                               if want.get(k) != b.get(k)})
    sys.exit(1)
PY
}
# perf inject in every mode: exit 0, and the module samples still right.
through_inject() {	# through_inject WHICH V
	local which=$1 v=$2 mode c

	c=$(cache_of "$which" "$v")
	for mode in "" -b --buildid-all; do
		# shellcheck disable=SC2086 # no mode is no word
		perf_in "$which" --buildid-dir $c inject $mode -i "$v/inj.data" \
			-o "$v/pinj.data" 2>"$v/pinj.err" ||
			{ echo "# perf inject $mode: exit $?: $(head -c 200 "$v/pinj.err")"; return 1; }
		right "$which" "$v" "$v/pinj.data" >"$v/pinj.check" ||
			{ echo "# after perf inject $mode:"; cat "$v/pinj.check"; return 1; }
	done
	perf_in "$which" --buildid-dir $c inject -i "$v/inj.data" -o - >"$v/pipe.data" \
		2>"$v/pinj.err" || { echo "# perf inject -o -: exit $?"; return 1; }
	right "$which" "$v" "$v/pipe.data" >"$v/pinj.check" ||
		{ echo "# after perf inject -o -:"; cat "$v/pinj.check"; return 1; }
}
objects_listed() {	# objects_listed WHICH V: buildid-list names every object
	local which=$1 v=$2 id

	perf_in "$which" buildid-list -i "$v/inj.data" >"$v/bids" 2>/dev/null || return
	# The objects' build-ids: perf adds its own entries to the cache.
	for id in $(ls "$v/debug/.secmap"); do
		grep -q "^$id " "$v/bids" ||
			{ echo "# $id not listed:"; sed 's/^/#   /' "$v/bids"; return 1; }
	done
}
runs() {	# runs WHICH V ARGS...: perf ARGS exits 0 on inj.data
	local which=$1 v=$2

	shift 2
	perf_in "$which" --buildid-dir "$(cache_of "$which" "$v")" "$@" >"$v/runs.out" \
		2>"$v/runs.err" && return
	echo "# perf $*: exit $?: $(tail -c 300 "$v/runs.err")"
	return 1
}
# perf ARGS (on inj.data) exits as with fab.data for inj.data, and not by a signal.
like_stock() {	# like_stock WHICH V ARGS...
	local which=$1 v=$2 a b c

	shift 2
	c=$(cache_of "$which" "$v")
	perf_in "$which" --buildid-dir $c "${@//inj.data/fab.data}" >/dev/null 2>&1
	a=$?
	perf_in "$which" --buildid-dir $c "$@" >"$v/runs.out" 2>"$v/runs.err"
	b=$?
	# A signal is 128 + its number; perf's exit(-1) is 255.
	[ "$a" -eq "$b" ] && { [ "$b" -lt 129 ] || [ "$b" -gt 160 ]; } && return
	echo "# perf $*: exit $b, on fab.data $a: $(tail -c 300 "$v/runs.err")"
	return 1
}
converts() {	# converts WHICH V: perf data convert --to-json, and JSON it is
	rm -f "$2/inj.json"
	runs "$1" "$2" data convert --to-json "$2/inj.json" -i "$2/inj.data" &&
		python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$2/inj.json"
}
# The cache inject wrote is out of the way while the archive is checked:
# the files the records name must not be where they say, as on another machine.
away() { mv "$1/debug" "$1/debug.away"; }
back() { mv "$1/debug.away" "$1/debug"; }
# perf archive of inj.data, unpacked into an empty cache: still right.
archived_right() {	# archived_right WHICH V
	local which=$1 v=$2 c st

	rm -rf "$v/unpacked" && mkdir -p "$v/unpacked"
	perf_in "$which" --buildid-dir "$(cache_of "$which" "$v")" archive "$v/inj.data" \
		>/dev/null 2>"$v/archive.err" || { echo "# perf archive: exit $?"; return 1; }
	tar -xjf "$v/inj.data.tar.bz2" -C "$v/unpacked" || return
	rm -f "$v/inj.data.tar.bz2"
	c=$(cache_of "$which" "$v")
	away "$v"
	right "$which" "$v" "$v/inj.data" "${c%/debug}/unpacked" >"$v/archive.check"
	st=$?
	back "$v"
	[ $st -eq 0 ] || { cat "$v/archive.check"; return 1; }
}
# secmap archive, unpacked into an empty cache: every perf right offline.
secmap_archived_right() {	# secmap_archived_right V READERS...
	local v=$1 which c

	shift
	rm -rf "$v/sunpacked" && mkdir -p "$v/sunpacked"
	"$secmap" archive -i "$v/inj.data" -o "$v/s.tar.xz" --ko-path kos >/dev/null 2>&1 ||
		{ echo "# secmap archive: exit $?"; return 1; }
	tar -xJf "$v/s.tar.xz" -C "$v/sunpacked" || return
	away "$v"
	for which in "$@"; do
		c=$(cache_of "$which" "$v")
		right "$which" "$v" "$v/inj.data" "${c%/debug}/sunpacked" >"$v/sarchive.check" ||
			{ echo "# $which:"; cat "$v/sarchive.check"; back "$v"; return 1; }
	done
	back "$v"
}
# secmap script on inj.data, from its trailer: module samples on their function.
secmap_right() {	# secmap_right V
	# With call chains the sample's address is the first frame, on the next line.
	"$secmap" script --ns -i "$1/inj.data" --ko-path kos 2>"$1/secmap.err" |
		awk 'match($0, /[0-9]+\.[0-9]+: +[0-9]+ +[^ ]+:/) {
			t = substr($0, RSTART, RLENGTH); sub(/:.*/, "", t)
			rest = substr($0, RSTART + RLENGTH)
			if (rest !~ /[0-9a-f]/) { getline rest }
			print t ": " rest }' >"$1/secmap.out"
	fm check "$1/expected.txt" "$1/secmap.out" >"$1/secmap.check" ||
		{ cat "$1/secmap.check"; head -n 5 "$1/secmap.err" | sed 's/^/# stderr: /'; return 1; }
}
hotspot_right() {	# hotspot_right V: reused ranges printed, not counted
	"$perfparser" --input "$1/inj.data" --output "$1/inj.stream" >/dev/null 2>"$1/pp.err" &&
		python3 "$here/perfparser_stream.py" "$1/inj.stream" >"$1/inj.pp" || return
	fm check "$1/expected.txt" "$1/inj.pp" 99 2:secmap_fake_c ||
		{ head -n 5 "$1/pp.err" | sed 's/^/# stderr: /'; return 1; }
}

# variant V RECORDER [TEMPLATE_VARIANT] -- PERF_RECORD_ARGS...
variant() {
	local v=$1 rec=$2 tmpl=$3 after readers which st

	shift 4
	mkdir -p "$v"
	# perf 6.1 record has been seen to fail an assertion in its build-id
	# pass at the end (util/build-id.c:1010: an MMAP2 whose build-id flag
	# the kernel left set, see lib/perf/perf_data.c): not ours; once more then.
	if ! perf_in "$rec" record -q -o "$v/base.data" -F 999 -a "$@" -- sleep 0.3 \
		>/dev/null 2>"$v/record.err" &&
		! perf_in "$rec" record -q -o "$v/base.data" -F 999 -a "$@" -- sleep 0.3 \
		>/dev/null 2>"$v/record.err"; then
		not_ok "$v: perf record $*: $(head -c 200 "$v/record.err")"
		return
	fi
	after=$(perf_in "$rec" script -i "$v/base.data" -F time --ns 2>/dev/null | tail -n 1 |
		tr -d ' :.')
	check "$v: module samples spliced in" fm scenario kos "$v/base.data" "$v/fab.data" \
		"$v/rec.data" "$v/expected.txt" "${after:-0}" ${tmpl:+"$tmpl/base.data"}
	[ -s "$v/fab.data" ] || return
	cp -p "$v/fab.data" "$v/fab.orig"
	"$secmap" -j inject -i "$v/fab.data" -m "$v/rec.data" -o "$v/inj.data" --ko-path kos \
		--buildid-dir "$tmp/$v/debug" >"$v/inject.json" 2>"$v/inject.err"
	st=$?
	check "$v: secmap inject exits 0" test $st -eq 0
	[ $st -eq 0 ] || { sed 's/^/# /' "$v/inject.err"; return; }
	check "$v: perf's map replaced by 7 maps and 4 unmaps of 7 regions, 5 objects" python3 -c '
import json, sys
m = json.load(open(sys.argv[1]))["perf_maps"]
ok = (m["perf_maps_removed"] == 1 and m["maps"] == 7 and m["unmaps"] == 4 and
      m["regions"] == 7 and m["objects"] == 5 and m["loads_without_ko"] == 0)
ok or print("#", m)
sys.exit(not ok)' \
		"$v/inject.json"
	check "$v: input unchanged" cmp -s "$v/fab.data" "$v/fab.orig"

	# 6.1 cannot read 7.x's compressed records.
	readers=sid
	[ "$rec" = host ] && readers="host sid"
	$have_sid || readers=${readers/sid/}
	for which in $readers; do
		pscript "$which" "$(cache_of "$which" "$v")" "$v/fab.data" >"$v/stock.out"
		echo "# $v, $which perf before secmap inject (stock):"
		fm check "$v/expected.txt" "$v/stock.out" 0 | grep -E 'samples|missing' | head -20
		check "$v: $which perf script: every module sample on its function" \
			right "$which" "$v" "$v/inj.data"
		check "$v: $which perf report --sort dso,sym: the same but module rows" \
			same_unmoduled "$which" "$v" report --stdio --sort dso,sym -g none --no-children
		check "$v: $which perf report --stdio (call graphs, if any) runs" runs "$which" "$v" \
			report --stdio -i "$v/inj.data"
		check "$v: $which perf report --header: the same but module rows and data size" \
			same_unmoduled "$which" "$v" report --stdio --header -g none --no-children
		check "$v: $which perf script -F comm,tid,cpu,time,event,ip,sym,dso: the same but modules" \
			same_unmoduled "$which" "$v" script -F comm,tid,cpu,time,event,ip,sym,dso --ns
		check "$v: $which perf report -D: the same records but perf's map, secmap's 11 in" \
			same_raw "$which" "$v"
		check "$v: $which perf inject (plain, -b, --buildid-all, -o -): module samples right" \
			through_inject "$which" "$v"
		check "$v: $which perf buildid-list names every object" objects_listed "$which" "$v"
		check "$v: $which perf annotate --stdio runs" runs "$which" "$v" annotate --stdio \
			-i "$v/inj.data"
		check "$v: $which perf diff fab inj ends as perf diff fab fab" \
			like_stock "$which" "$v" diff "$v/fab.data" "$v/inj.data"
		check "$v: $which perf data convert --to-json runs, valid JSON" \
			converts "$which" "$v"
		check "$v: $which perf archive, unpacked into an empty cache: module samples right" \
			archived_right "$which" "$v"
	done
	check "$v: secmap archive, unpacked into an empty cache: right for $readers" \
		secmap_archived_right "$v" $readers
	check "$v: injecting again gives the same file" sh -c '
		"$1" inject -i "$2/inj.data" -m "$2/rec.data" -o "$2/inj2.data" --ko-path kos \
			--buildid-dir "$3" 2>/dev/null && cmp -s "$2/inj.data" "$2/inj2.data"' \
		sh "$secmap" "$v" "$tmp/$v/debug"
	check "$v: --strip gives back perf's file, byte for byte" sh -c '
		"$1" inject --strip -i "$2/inj.data" -o "$2/back.data" 2>/dev/null &&
			cmp -s "$2/back.data" "$2/fab.data"' sh "$secmap" "$v"
	if [ "$v" = "${v%-z}" ]; then
		check "$v: secmap's records where perf's ordering needs them" fm order "$v/inj.data"
	fi
	check "$v: secmap script reads the recording: module samples on their function" \
		secmap_right "$v"
	if [ -x "$perfparser" ] && [ "$rec" = host ]; then
		echo "# $v, hotspot's perfparser:"
		check "$v: hotspot's perfparser names the module functions" hotspot_right "$v"
	fi
}

variant host-plain host "" --
variant host-g host "" -- -g
variant host-z host host-plain -- -z
variant host-two host "" -- -e cpu-clock -e task-clock
if $have_sid; then
	variant sid-plain sid "" --
	variant sid-z sid sid-plain -- -z
fi

# A .ko of another build-id (the same code, ld's --build-id=0x...): not used
# (6), its module keeps perf's own map; --force uses it.
v=host-plain
if [ -s "$v/fab.data" ]; then
	mkdir -p kos-other
	cp kos/secmap_fake_b.ko kos/secmap_fake_c.ko kos-other/
	ld -r --build-id=0x5ec3a9000000000000000000000000000000aaaa -o kos-other/secmap_fake_a.ko \
		kos/secmap_fake_a.o
	"$secmap" -j inject -i "$v/fab.data" -m "$v/rec.data" -o "$v/other.data" --ko-path kos-other \
		--buildid-dir "$tmp/$v/debug-other" >"$v/other.json" 2>"$v/other.err"
	st=$?
	check "a .ko of another build-id: exit 6, said so, the file written without its maps" \
		python3 -c '
import json, sys
m = json.load(open(sys.argv[1]))["perf_maps"]
ok = (sys.argv[3] == "6" and "another build-id" in open(sys.argv[2]).read() and
      m["perf_maps_removed"] == 0 and m["maps"] == 6 and m["loads_without_ko"] == 1)
ok or print("#", sys.argv[3], m, open(sys.argv[2]).read())
sys.exit(not ok)' "$v/other.json" "$v/other.err" $st
	"$secmap" inject -i "$v/fab.data" -m "$v/rec.data" -o "$v/other.data" --ko-path kos-other \
		--buildid-dir "$tmp/$v/debug" --force 2>/dev/null
	check "--force: that .ko used, every module sample right" sh -c '
		[ "$1" -eq 0 ]' sh $?
	check "--force: host perf script names every module sample right" \
		right host "$v" "$v/other.data"
fi

# Damaged input: an error, or a file that strips back to it.
for v in host-plain host-z; do
	[ -n "$rewrite_check" ] && [ -s "$v/fab.data" ] || continue
	"$rewrite_check" "$v/fab.data" "$v/rec.data" kos >"$v/rewrite.tap"
	check "$v: the rewrite of cut and changed files" test $? -eq 0
	sed 's/^/#   /' "$v/rewrite.tap"
done

# After perf inject, the recording is gone but secmap's maps stay: said so.
v=host-plain
if [ -s "$v/inj.data" ]; then
	"$host_perf" inject -i "$v/inj.data" -o "$v/dropped.data" 2>/dev/null
	"$secmap" show -i "$v/dropped.data" >/dev/null 2>"$v/dropped.err"
	st=$?
	check "perf inject after secmap inject: secmap show says the recording was dropped (8)" \
		sh -c '[ "$1" -eq 8 ] && grep -q "dropped it (perf inject does)" "$2"' sh $st \
		"$v/dropped.err"
fi

# perf record --threads writes a directory: refused, said why.
mkdir -p threads
if "$host_perf" record -q --threads -o threads/perf.data -e cpu-clock -a -- sleep 0.1 \
	>/dev/null 2>&1 && [ -d threads/perf.data ]; then
	"$secmap" inject -i threads/perf.data -m host-plain/rec.data --ko-path kos 2>threads/err
	st=$?
	check "perf record --threads output: refused (8), naming --threads" \
		sh -c '[ "$1" -eq 8 ] && [ "$(wc -l <"$2")" -eq 1 ] && grep -q -- "--threads" "$2"' \
		sh $st threads/err
else
	ok "perf record --threads # SKIP this perf cannot record with --threads"
fi

tap_done
