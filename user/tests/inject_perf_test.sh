#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# secmap inject on perf.data files made by the real perf, with no module
# in them (this host has none; tests/perf_maps_test.sh has modules): what
# perf shows of a file (report, script, buildid-list, the header with every
# feature, the raw event dump) must be byte for byte the same before and
# after, read by the host's perf and, when the sid build root has one, by
# perf 7.x, and perf inject must work on it. Then the command's refusals:
# each one line naming the file, exit status 8 (SECMAP_EXIT_BAD_INPUT) or 2
# (usage), the input left as it was.
# TAP output; exits 1 if any check fails. Needs root for perf record -a
# and the chroot.
#
#   inject_perf_test.sh SECMAP_BINARY
set -u

bin=${1:?usage: $0 SECMAP_BINARY}
cache=${SECMAP_CACHE:-/var/cache/secmap}
sid_root=$cache/sid-root
tmp=$(mktemp -d)
sid_tmp=
cleanup() {
	rm -rf "$tmp"
	[ -n "$sid_tmp" ] && rm -rf "$sid_tmp"
}
trap cleanup EXIT
. "$(dirname "$0")/../../scripts/tap.sh"

# The smallest valid recording: a 64-byte file header, no records.
rec=$tmp/secmap.data
{ printf 'SECMAPv1\001\000\000\000\100\000\000\000'; head -c 48 /dev/zero; } >"$rec"

# run_secmap EXPECTED_STATUS STDERR_FILE ARGS...: secmap ARGS exits with EXPECTED_STATUS.
run_secmap() {
	local want=$1 err=$2 st

	shift 2
	"$bin" "$@" >"$tmp/stdout" 2>"$err"
	st=$?
	[ "$st" -eq "$want" ] && return
	echo "# secmap $*: exit $st, expected $want: $(head -c 300 "$err")"
	return 1
}

# One line on stderr, "Error: FILE: ..." containing TEXT.
one_error() {	# one_error STDERR_FILE FILE TEXT
	[ "$(wc -l <"$1")" -eq 1 ] && grep -qF -- "Error: $2: " "$1" && grep -qF -- "$3" "$1" &&
		return
	echo "# stderr: $(cat "$1")"
	return 1
}

# --- the command line ----------------------------------------------------------

check "no -i: usage error" run_secmap 2 "$tmp/err" inject -m "$rec"
check "-i without a value: usage error" run_secmap 2 "$tmp/err" inject -i
check "extra argument: usage error" run_secmap 2 "$tmp/err" inject -i x y
check "unknown option: usage error" run_secmap 2 "$tmp/err" inject --frobnicate
check "--help succeeds" run_secmap 0 "$tmp/err" inject --help
check "missing perf.data: exit 1" run_secmap 1 "$tmp/err" inject -i "$tmp/none" -m "$rec"
check "missing perf.data: one line" one_error "$tmp/err" "$tmp/none" "No such file"
printf 'not a recording at all, just text\n' >"$tmp/text"
cp "$tmp/text" "$tmp/text.orig"
check "text as recording: exit 8" run_secmap 8 "$tmp/err" inject -i "$tmp/text" -m "$tmp/text"
check "text as recording: one line" one_error "$tmp/err" "$tmp/text" "not a secmap recording"
check "text as perf.data: exit 8" run_secmap 8 "$tmp/err" inject -i "$tmp/text" -m "$rec"
check "text as perf.data: one line" one_error "$tmp/err" "$tmp/text" "not a perf.data file"
check "text left as it was" cmp -s "$tmp/text" "$tmp/text.orig"

# --- perf --------------------------------------------------------------------

host_perf=$(cat "$cache/perf/host" 2>/dev/null || command -v perf)
sid_perf=$(cat "$cache/perf/sid" 2>/dev/null || echo /usr/bin/perf)
have_sid=false
[ "$(id -u)" -eq 0 ] && [ -x "$sid_root$sid_perf" ] && command -v unshare >/dev/null &&
	have_sid=true

# perf_in WHICH DIR ARGS...: WHICH (host or sid) perf, run in DIR. sid's runs
# in the build root, with a /proc of its own (perf inject crashes without
# one) in a private mount namespace: nothing is mounted for the rest of the system.
perf_in() {
	local which=$1 dir=$2

	shift 2
	if [ "$which" = host ]; then
		(cd "$dir" && exec "$host_perf" "$@")
	else
		unshare --mount-proc --root="$sid_root" --wd="${dir#"$sid_root"}" "$sid_perf" "$@"
	fi
}

# views WHICH DIR: what perf shows of DIR/perf.data, one file per view in
# DIR/views/, stdout and stderr and exit status. Only report's "# (Tip: ...)"
# line is dropped: perf picks it at random. Everything else must match,
# "captured on" included (perf shows the file's mtime; inject keeps it).
views() {
	local which=$1 dir=$2 v name

	mkdir -p "$dir/views"
	for v in "report --stdio" "report --stdio --sort dso,sym -g none" "script" \
		 "script -F ip,sym,dso,time,event" "buildid-list" "report --header-only -I" \
		 "report -D"; do
		name=${v// /_}
		# shellcheck disable=SC2086 # $v is a list of words
		perf_in "$which" "$dir" $v -i perf.data >"$dir/views/$name.out" \
			2>"$dir/views/$name.err"
		echo "exit $?" >>"$dir/views/$name.err"
		sed -i '/^# (Tip: .*)$/d' "$dir/views/$name.out"
	done
}

# same_views WHICH A B: perf shows A/perf.data and B/perf.data the same way.
same_views() {
	views "$1" "$2"
	views "$1" "$3"
	diff -r "$2/views" "$3/views" >"$tmp/views.diff" && return
	sed 's/^/# /' "$tmp/views.diff" | head -20
	return 1
}

# The recording at the end of FILE, where its trailer (the last 72 bytes)
# says, is the recording's. Read with od, not with libsecmap.
u64() {	# u64 FILE OFFSET: the little-endian u64 there (below 2^63)
	echo $((16#$(od -An -t x8 -j "$2" -N 8 "$1" | tr -d ' ')))
}

holds_rec() {	# holds_rec FILE
	local f=$1 size t off len

	size=$(stat -c %s "$f")
	[ "$size" -ge 176 ] || return
	t=$((size - 72))
	[ "$(tail -c 8 "$f")" = SECMAPpd ] || return
	off=$(u64 "$f" $((t + 8)))
	len=$(u64 "$f" $((t + 16)))
	tail -c +$((off + 1)) "$f" | head -c "$len" | cmp -s - "$rec"
}

# perf inject, every mode, exits 0 on FILE and writes a file perf reads.
perf_injects() {	# perf_injects WHICH DIR
	local which=$1 dir=$2 mode

	for mode in "" -b --buildid-all; do
		# shellcheck disable=SC2086 # no mode is no word
		perf_in "$which" "$dir" inject $mode -i perf.data -o pinj.data 2>"$tmp/pinj.err" &&
			perf_in "$which" "$dir" report --stdio -i pinj.data >/dev/null 2>&1 && continue
		echo "# perf inject $mode: exit $?: $(head -c 300 "$tmp/pinj.err")"
		return 1
	done
	rm -f "$dir/pinj.data"
}

# check_file WHICH DIR LABEL: inject into DIR/orig/perf.data, in place and to
# another file, injecting twice, and compare what WHICH perf shows.
check_file() {
	local which=$1 dir=$2 label=$3 size

	mkdir -p "$dir/copy" "$dir/inj" "$dir/twice"
	cp -p "$dir/orig/perf.data" "$dir/copy/perf.data"
	check "$label: inject -o" run_secmap 0 "$tmp/err" inject -i "$dir/copy/perf.data" \
		-m "$rec" -o "$dir/inj/perf.data"
	check "$label: input unchanged" cmp -s "$dir/orig/perf.data" "$dir/copy/perf.data"
	check "$label: the trailer leads to the recording" holds_rec "$dir/inj/perf.data"
	check "$label: $which perf shows the same" same_views "$which" "$dir/orig" "$dir/inj"
	check "$label: $which perf inject (plain, -b, --buildid-all) works on it" \
		perf_injects "$which" "$dir/inj"

	# In place, twice: the second replaces the first, same size, same bytes.
	check "$label: inject in place" run_secmap 0 "$tmp/err" inject -i "$dir/copy/perf.data" \
		-m "$rec"
	check "$label: in place = -o" cmp -s "$dir/copy/perf.data" "$dir/inj/perf.data"
	size=$(stat -c %s "$dir/copy/perf.data")
	cp -p "$dir/inj/perf.data" "$dir/twice/perf.data"
	check "$label: inject twice, with -j" run_secmap 0 "$tmp/err" -j inject \
		-i "$dir/twice/perf.data" -m "$rec"
	check "$label: JSON names output and size" python3 -c '
import json, sys
o = json.load(open(sys.argv[1]))
sys.exit(o["output"] != sys.argv[2] or o["bytes"] != int(sys.argv[3]))' \
		"$tmp/stdout" "$dir/twice/perf.data" "$size"
	check "$label: twice = once" cmp -s "$dir/twice/perf.data" "$dir/inj/perf.data"
}

# A file of the real perf that inject must refuse, left as it was.
check_refused() {	# check_refused LABEL FILE TEXT
	cp -p "$2" "$2.orig"
	check "$1: refused, exit 8" run_secmap 8 "$tmp/err" inject -i "$2" -m "$rec"
	check "$1: one line naming the file" one_error "$tmp/err" "$2" "$3"
	check "$1: left as it was" cmp -s "$2" "$2.orig"
	check "$1: no file left behind" test "$(find "$(dirname "$2")" -mindepth 1 | wc -l)" -eq 2
}

record() {	# record DIR PERF_RECORD_ARGS...: DIR/orig/perf.data
	local dir=$1

	shift
	mkdir -p "$dir/orig"
	(cd "$dir/orig" && "$host_perf" record -q -o perf.data -e cpu-clock "$@" \
		>/dev/null 2>"$tmp/record.err") && return
	echo "# perf record $*: $(head -c 300 "$tmp/record.err")"
	return 1
}

if [ -z "$host_perf" ] || ! "$host_perf" version >/dev/null 2>&1; then
	ok "host perf # SKIP perf not installed"
elif ! record "$tmp/one" -- sleep 0.3; then
	# No perf events here (a container, perf_event_paranoid): not secmap's to test.
	ok "host perf # SKIP perf record does not work here"
else
	hv=$("$host_perf" version)
	check_file host "$tmp/one" "$hv, sleep"
	if [ "$(id -u)" -ne 0 ]; then
		ok "perf record -a # SKIP needs root"
	elif record "$tmp/all" -a -- sleep 0.3; then
		check_file host "$tmp/all" "$hv, -a"
	else
		not_ok "perf record -a -- sleep 0.3"
	fi

	# perf inject first, secmap inject last: the recording can be taken
	# from a perf.data that holds it.
	mkdir -p "$tmp/pinj/orig" "$tmp/pinj/inj"
	"$host_perf" inject -i "$tmp/one/orig/perf.data" -o "$tmp/pinj/orig/perf.data" \
		2>/dev/null
	check "no recording in perf inject's output" run_secmap 8 "$tmp/err" inject \
		-i "$tmp/pinj/orig/perf.data" -m "$tmp/pinj/orig/perf.data"
	check "no recording in perf inject's output: said so" one_error "$tmp/err" \
		"$tmp/pinj/orig/perf.data" "holds no secmap recording"
	check "recording taken from another perf.data" run_secmap 0 "$tmp/err" inject \
		-i "$tmp/pinj/orig/perf.data" -m "$tmp/one/inj/perf.data" \
		-o "$tmp/pinj/inj/perf.data"
	check "recording taken from another perf.data: same bytes" holds_rec \
		"$tmp/pinj/inj/perf.data"
	check "perf inject's output: host perf shows the same" same_views host \
		"$tmp/pinj/orig" "$tmp/pinj/inj"
	# perf inject after secmap inject drops the recording, but keeps secmap's
	# module maps: said so, not "holds no recording".
	"$host_perf" inject -i "$tmp/one/inj/perf.data" -o "$tmp/pinj/again.data" 2>/dev/null
	check "perf inject after secmap inject: exit 0" test $? -eq 0

	# Pipe mode: no feature sections at all.
	mkdir -p "$tmp/pipe"
	(cd "$tmp/pipe" && "$host_perf" record -q -o - -e cpu-clock -- sleep 0.2 \
		>perf.data 2>/dev/null)
	check_refused "pipe mode" "$tmp/pipe/perf.data" "pipe-mode perf.data is not supported (it cannot carry"

	# Cut short: inside the feature sections, then inside the data.
	size=$(stat -c %s "$tmp/one/orig/perf.data")
	mkdir -p "$tmp/cut1" "$tmp/cut2"
	head -c $((size - 10)) "$tmp/one/orig/perf.data" >"$tmp/cut1/perf.data"
	check_refused "cut in a feature section" "$tmp/cut1/perf.data" \
		"ends past end of file"
	head -c $(($(u64 "$tmp/one/orig/perf.data" 40) + 10)) "$tmp/one/orig/perf.data" \
		>"$tmp/cut2/perf.data"
	check_refused "cut in the data" "$tmp/cut2/perf.data" "truncated (data section"
	# The reason is the library's (secmap_error_reason()): every reader says it.
	for cmd in report script show; do
		prefix=
		[ $cmd = show ] && prefix="show: "	# show names itself
		check "cut in the data: $cmd says why, exit 8" run_secmap 8 "$tmp/err" $cmd \
			-i "$tmp/cut2/perf.data"
		check "cut in the data: $cmd's one line" one_error "$tmp/err" \
			"$prefix$tmp/cut2/perf.data" "truncated (data section ends past end of file)"
	done
fi

if ! $have_sid; then
	ok "sid perf # SKIP sid perf not installed"
elif [ ! -f "$tmp/one/orig/perf.data" ]; then
	ok "sid perf # SKIP no perf.data from the host perf"
else
	sid_tmp=$(mktemp -d "$sid_root/tmp/secmap-inject.XXXXXX")
	sv=$(perf_in sid / version)
	for f in one all; do
		[ -f "$tmp/$f/orig/perf.data" ] || continue
		mkdir -p "$sid_tmp/$f/orig"
		cp -p "$tmp/$f/orig/perf.data" "$sid_tmp/$f/orig/"
		check_file sid "$sid_tmp/$f" "$sv, file of $f"
	done
	# perf inject from a pipe (6.12 on) writes the attrs after the data:
	# they move, and their offset in the header changes with them.
	mkdir -p "$sid_tmp/conv/orig"
	"$host_perf" record -q -o - -e cpu-clock -- sleep 0.2 >"$sid_tmp/conv/pipe.data" \
		2>/dev/null
	perf_in sid "$sid_tmp/conv" inject -i pipe.data -o orig/perf.data 2>/dev/null
	check_file sid "$sid_tmp/conv" "$sv, perf inject from a pipe"
fi

# --- secmap record --inject: the file the command's perf record writes ----------

if [ "$(id -u)" -ne 0 ] || ! "$host_perf" record -q -e cpu-clock -o "$tmp/probe.data" -- true \
	>/dev/null 2>&1; then
	ok "record --inject # SKIP perf record does not run here (needs root and perf events)"
	tap_done
fi
ri=$tmp/ri
mkdir -p "$ri"
# Another run's perf.data in the directory, older than the recording.
cp "$tmp/probe.data" "$ri/perf.data"
touch -d '-1 hour' "$ri/perf.data"
cp -p "$ri/perf.data" "$ri/perf.data.orig"
(cd "$ri" && "$bin" record -q -o rec.data --inject -- \
	"$host_perf" record -q -e cpu-clock -o run2.data -- sleep 0.1) >/dev/null 2>"$ri/err"
st=$?
check "record --inject -- perf record -o run2.data: exit 0" sh -c '[ "$1" -eq 0 ] ||
	{ echo "# exit $1: $(head -c 300 "$2")"; exit 1; }' sh $st "$ri/err"
check "record --inject -- perf record -o run2.data: the recording is in run2.data" \
	sh -c '"$1" show -i "$2/run2.data" >/dev/null' sh "$bin" "$ri"
check "record --inject -- perf record -o run2.data: the old perf.data untouched" \
	cmp -s "$ri/perf.data" "$ri/perf.data.orig"
for form in "--output=run3.data" "--output run3.data" "-o run3.data" "-orun3.data" \
	"-ao run3.data" "-e cpu-clock -F 99 --out run3.data"; do
	rm -f "$ri/run3.data"
	# shellcheck disable=SC2086 # $form is a list of words
	(cd "$ri" && "$bin" record -q -o rec.data --inject -- \
		"$host_perf" record -q -e cpu-clock $form -- sleep 0.05) >/dev/null 2>"$ri/err"
	check "record --inject -- perf record $form: injected into run3.data" \
		sh -c '"$1" show -i "$2/run3.data" >/dev/null ||
			{ echo "# $(head -c 300 "$2/err")"; exit 1; }' sh "$bin" "$ri"
done
# The exit status is perf's when perf fails: perf 6.1 record has been seen
# to abort in its build-id pass (util/build-id.c:1010), not ours; once more then.
check "record --inject=perf.data older than the recording: exit 8, said so" sh -c '
	cd "$2" || exit 1
	for try in 1 2; do
		"$1" record -q -o rec.data --inject=perf.data -- \
			"$3" record -q -e cpu-clock -o run4.data -- true >/dev/null 2>err
		st=$?; [ $st -lt 128 ] && break
	done
	[ $st -eq 8 ] && grep -q "perf.data was not written while recording" err ||
		{ echo "# exit $st: $(cat err)"; exit 1; }' sh "$bin" "$ri" "$host_perf"
check "record --inject=perf.data older: perf.data untouched" cmp -s "$ri/perf.data" "$ri/perf.data.orig"
rm -f "$ri/rec.data"
check "record --inject -- perf record -o -: refused at once, pipe named, no recording" sh -c '
	cd "$2" && "$1" record -q -o rec.data --inject -- "$3" record -q -o - -- true \
		>/dev/null 2>err
	st=$?; [ $st -eq 2 ] && grep -q "writes to a pipe" err && [ ! -e rec.data ] ||
		{ echo "# exit $st: $(cat err)"; exit 1; }' sh "$bin" "$ri" "$host_perf"
check "record --inject -- perf record, stdout a pipe: refused (perf would write the pipe)" sh -c '
	cd "$2" && "$1" record -q -o rec.data --inject -- "$3" record -q -- true 2>err | cat
	grep -q "writes to a pipe" err || { echo "# $(cat err)"; exit 1; }' sh "$bin" "$ri" "$host_perf"

tap_done
