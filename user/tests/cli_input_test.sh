#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The command line and the files it is pointed at, as a careless or hostile
# user would give them: options used wrongly name the option as typed, a
# FIFO or a directory where a file should be is refused at once (not waited
# on), and every refusal is one line with a usage (2) or bad-input (8)
# status. Needs no kernel module. TAP output; exits 1 if any check fails.
#
#   cli_input_test.sh SECMAP_BINARY [NO_TMPFILE_SO]
set -u

bin=${1:?usage: $0 SECMAP_BINARY [NO_TMPFILE_SO]}
no_tmpfile=${2:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/../../scripts/tap.sh"

# fails STATUS PATTERN ARGS...: secmap ARGS exits STATUS within 10 s with one
# line on stderr that matches PATTERN (grep -E).
fails() {
	local want=$1 pattern=$2 st lines

	shift 2
	timeout 10 "$bin" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	st=$?
	lines=$(wc -l <"$tmp/err")
	if [ "$st" -eq "$want" ] && [ "$lines" -ge 1 ] && head -1 "$tmp/err" | grep -qE -- "$pattern"; then
		return 0
	fi
	echo "# secmap $*: exit $st (expected $want), stderr: $(head -c 300 "$tmp/err")"
	return 1
}

# help COMMAND is COMMAND --help, word for word.
check "help report: report's own help, exit 0" sh -c \
	'[ "$("$1" help report)" = "$("$1" report --help)" ] && "$1" help report | grep -q "^Usage: .* report"' \
	sh "$bin"
check "help nope: unknown command" fails 2 "unknown command 'nope'" help nope
check "help dump x: unexpected argument" fails 2 "unexpected argument 'x'" help dump x

check "dump --json=1: names --json, takes no value" \
	fails 2 "option '--json' takes no value" dump --json=1
check "report --force=1: names --force" \
	fails 2 "option '--force' takes no value" report --force=1
check "script --no-ko=yes: names --no-ko" \
	fails 2 "option '--no-ko' takes no value" script --no-ko=yes
# perf's sample filters: values as perf takes them, or one line and exit 2.
check "report --sort sym,sym: each key once" \
	fails 2 "each once, not 'sym,sym'" report --sort sym,sym
check "report --sort pid,nonsense: the keys named" \
	fails 2 "--sort takes comm, pid, tid, cpu, dso, sym, module, section and symbol" \
	report --sort pid,nonsense
check "report --percentage half: absolute or relative" \
	fails 2 "--percentage takes absolute or relative, not 'half'" report --percentage half
check "report --percent-limit 101: a percentage" \
	fails 2 "--percent-limit takes a percentage from 0 to 100, not '101'" report --percent-limit 101
check "report --percent-limit 5x: a number" \
	fails 2 "--percent-limit takes a percentage from 0 to 100, not '5x'" report --percent-limit 5x
check "report --dsos '': a list of names" \
	fails 2 "--dsos: a comma-separated list of file names expected" report --dsos ''
check "script --time abc: perf's forms expected" \
	fails 2 "--time: START,STOP in seconds" script --time abc
check "script --time 10%/11: past the recording's end" \
	fails 2 "--time: START,STOP in seconds" script --time 10%/11
check "report --time 5,3: a range backwards" \
	fails 2 "--time: START,STOP in seconds" report --time 5,3
check "report --time 1.5: no comma, no range" \
	fails 2 "--time: START,STOP in seconds" report --time 1.5
check "script -F addr: a field secmap does not print" \
	fails 2 "-F takes a list of comm" script -F addr
check "script -F +pid,comm: a change and a list at once" \
	fails 2 "-F takes a list of comm" script -F +pid,comm
check "script -F sym: a function needs its address" \
	fails 2 "sym and dso need ip" script -F sym
check "script --pid abc: a list of process ids expected" \
	fails 2 "--pid: a comma-separated list of process ids expected, not 'abc'" script --pid abc
check "script --tid 5,: a list of thread ids expected" \
	fails 2 "--tid: a comma-separated list of thread ids expected" script --tid 5,
check "script --cpu 3-1: a backward range refused" \
	fails 2 "--cpu: a list of CPUs and ranges" script --cpu 3-1
check "script --cpu 4096: past the CPUs a map holds" \
	fails 2 "--cpu: a list of CPUs and ranges" script --cpu 4096
check "script --comm '': no name" fails 2 "--comm: a comma-separated list" script --comm ''
check "script --pid without a value: needs a value" \
	fails 2 "option '--pid' needs a value" script --pid
check "dump --bogus: unknown option, as typed" \
	fails 2 "unknown option '--bogus'" dump --bogus
check "dump -Z: unknown short option" \
	fails 2 "unknown option '-Z'" dump -Z
check "resolve --clock without a value: needs a value" \
	fails 2 "option '--clock' needs a value" resolve --clock
check "monitor --count without a value: needs a value" \
	fails 2 "'--count' needs a value" monitor --count

mkfifo "$tmp/fifo"
mkdir "$tmp/dir"
for cmd in show report script; do
	check "$cmd -i FIFO: refused at once" fails 8 "fifo" "$cmd" -i "$tmp/fifo"
	check "$cmd -i DIRECTORY: refused" fails 8 "dir" "$cmd" -i "$tmp/dir"
done
check "resolve -m FIFO: refused at once" fails 8 "fifo" resolve -m "$tmp/fifo" 0x1
check "inject -i FIFO: refused at once" fails 8 "fifo" inject -i "$tmp/fifo" -m "$tmp/fifo"

# Outputs: a FIFO, a device or a directory is never replaced; a symlink is
# written through (the link stays), even to a file still to be made.
ln -s /dev/null "$tmp/null"
is_kind() {	# is_kind TEST PATH: still what it was
	test "$1" "$2" || { echo "# $2 was replaced: $(ls -l "$2")"; return 1; }
}
check "record -o FIFO: refused, left a FIFO" fails 2 "fifo: not a regular file" \
	record -q -o "$tmp/fifo" -- true
check "record -o FIFO: still a FIFO" is_kind -p "$tmp/fifo"
check "record -o LINK-TO-/dev/null: refused" fails 2 "not a regular file" \
	record -q -o "$tmp/null" -- true
check "record -o LINK-TO-/dev/null: /dev/null still a device, the link a link" \
	sh -c 'test -c /dev/null && test -L "$1"' sh "$tmp/null"
check "record -o DIRECTORY: refused" fails 2 "is a directory" record -q -o "$tmp/dir" -- true
ln -s rec.data "$tmp/rec-link"
check "record -o LINK to a file still to be made: made, the link kept" sh -c '
	"$1" record -q -o "$2/rec-link" -- true 2>/dev/null && test -L "$2/rec-link" &&
		test -f "$2/rec.data" && "$1" show -i "$2/rec-link" >/dev/null' sh "$bin" "$tmp"
check "record -o LINK again: the old file kept as rec.data.old, beside it" \
	sh -c '"$1" record -q -o "$2/rec-link" -- true 2>/dev/null && test -f "$2/rec.data.old" &&
		test -L "$2/rec-link"' sh "$bin" "$tmp"
if [ -s "$tmp/rec.data" ]; then
	check "archive -o LINK-TO-/dev/null: refused, /dev/null a device" sh -c '
		"$1" archive -m "$2/rec.data" -o "$2/null" >/dev/null 2>"$2/err"; st=$?
		[ $st -eq 2 ] && grep -q "not a regular file" "$2/err" && test -c /dev/null ||
			{ echo "# exit $st: $(cat "$2/err")"; exit 1; }' sh "$bin" "$tmp"
	check "archive -o FIFO: refused at once" fails 2 "not a regular file" \
		archive -m "$tmp/rec.data" -o "$tmp/fifo"
	ln -s out.tar.xz "$tmp/tar-link"
	check "archive -o LINK: the archive where it leads, the link kept" sh -c '
		"$1" archive -m "$2/rec.data" -o "$2/tar-link" >/dev/null 2>&1
		test -L "$2/tar-link" && tar -tJf "$2/out.tar.xz" >/dev/null' sh "$bin" "$tmp"
fi
if [ -s "$tmp/rec.data" ]; then
	for q in -1 0x10@-5 0x10@+5 " 0x10" 0x10@18446744073709551615 0x1@99999999999999999999 \
		10000000000000000 0x10@1.1234567891 0x10@1. 0x10@5x; do
		check "resolve '$q': not ADDR[@TIME], said so" fails 2 "is not ADDR" \
			resolve -m "$tmp/rec.data" -- "$q"
	done
	check "resolve ADDR@SECONDS.FRACTION: perf script's time, in nanoseconds" sh -c '
		"$1" resolve -j -m "$2" 0x10@397.751055 | grep -q "\"time\":397751055000,"' \
		sh "$bin" "$tmp/rec.data"
	check "resolve: a NUL inside a line of standard input is refused, not cut" sh -c '
		printf "0x10\0000x20\n" | "$1" resolve -m "$2" >/dev/null 2>"$3/err"; st=$?
		[ $st -eq 2 ] && grep -q "NUL byte" "$3/err"' sh "$bin" "$tmp/rec.data" "$tmp"
	check "resolve: a 20 MB bad line is not echoed whole" sh -c '
		head -c 20000000 /dev/zero | tr "\0" z | "$1" resolve -m "$2" >/dev/null 2>"$3/err"
		[ $? -eq 2 ] && [ "$(grep "is not ADDR" "$3/err" | wc -c)" -gt 0 ] &&
			[ "$(grep "is not ADDR" "$3/err" | wc -c)" -lt 200 ]' \
		sh "$bin" "$tmp/rec.data" "$tmp"
	check "resolve with a bad ADDR among others: refused before the recording is read" \
		fails 2 "is not ADDR" resolve -m "$tmp/no-such.data" 0x10 zz 0x20
fi
# A build-id of 255 bytes (the record format's most; none is over 64):
# corrupt, not "not a secmap recording".
python3 -c '
import struct, sys
sys.path.insert(0, sys.argv[2])
import fake_modules as fm
open(sys.argv[1], "wb").write(b"".join([
    struct.pack("<8sHHIQ40x", b"SECMAPv1", 1, 0, 64, 0), fm.kernel_rec(), fm.resync_rec(0, 0, 1),
    fm.map_rec(fm.F_EXEC, 1000, 0xffffffffc0000000, 0x1000, 0, 1, ".text", "m", b"\x11" * 255),
    fm.finished_rec(2000)]))' "$tmp/bid255.data" "$(dirname "$0")"
check "resolve: a 255-byte build-id is a corrupt recording, exit 8" \
	fails 8 "truncated or corrupt" resolve -m "$tmp/bid255.data" 0xffffffffc0000010
# Recordings too large, refused before they are read, in little memory:
# 2 GiB (a valid header, then holes) took inject 4.2 GB and 52 s, show
# said "File too large" with exit 1; 1 GiB, just within the limit, junk
# after its header, was read whole (1 GB) before the check failed.
# small LIMIT_KB STATUS PATTERN ARGS...: as fails, with one line on stderr,
# and secmap's peak resident memory under LIMIT_KB.
small() {
	local limit=$1 want=$2 pattern=$3 st kb

	shift 3
	read -r st kb < <(python3 - "$tmp/err" timeout 60 "$bin" "$@" <<'EOF'
import resource, subprocess, sys
with open(sys.argv[1], "wb") as err:
    st = subprocess.run(sys.argv[2:], stdin=subprocess.DEVNULL,
                        stdout=subprocess.DEVNULL, stderr=err).returncode
print(st, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
EOF
)
	if [ "$st" = "$want" ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
		grep -qE -- "$pattern" "$tmp/err" && [ "${kb:-0}" -lt "$limit" ]; then
		return 0
	fi
	echo "# secmap $*: exit $st (expected $want), peak RSS ${kb:-?} KiB (at most $limit)," \
		"stderr: $(head -c 300 "$tmp/err")"
	return 1
}
python3 -c '
import struct, sys
for path in sys.argv[1:]:
    open(path, "wb").write(struct.pack("<8sHHIQ40x", b"SECMAPv1", 1, 0, 64, 0) + b"\xff" * 64)
' "$tmp/big.data" "$tmp/limit.data"
truncate -s 2G "$tmp/big.data"
truncate -s 1G "$tmp/limit.data"
check "inject -m a 2 GiB recording: refused unread, exit 8" \
	small 200000 8 "big.data: larger than secmap reads \(a recording is 1 GiB at most\)" \
	inject -i "$tmp/in.data" -m "$tmp/big.data" -o "$tmp/out.data"
check "show -i a 2 GiB recording: refused unread, exit 8" \
	small 200000 8 "larger than secmap reads" show -i "$tmp/big.data"
check "resolve -m a 2 GiB recording: refused unread, exit 8" \
	small 200000 8 "larger than secmap reads" resolve -m "$tmp/big.data" 0x1
check "inject -m 1 GiB of junk after a header: corrupt, exit 8, not read whole" \
	small 200000 8 "limit.data: truncated or corrupt recording" \
	inject -i "$tmp/in.data" -m "$tmp/limit.data" -o "$tmp/out.data"
rm -f "$tmp/big.data" "$tmp/limit.data"
# 2000 loads of 500 module builds, half without a build-id: each build
# packed once (none has a .ko here: exit 7), no undefined behaviour (the
# sanitizer lane), the same answer whatever the order.
python3 "$(dirname "$0")/fake_modules.py" many "$tmp/many.data" 2000 500
check "archive of 2000 loads of 500 builds, half without build-id: 500, exit 7" sh -c '
	"$1" archive -j -m "$2/many.data" -o "$2/many.tar.xz" >"$2/many.json" 2>/dev/null
	st=$?; [ $st -eq 7 ] && grep -q "\"modules\":500," "$2/many.json" ||
		{ echo "# exit $st: $(cat "$2/many.json")"; exit 1; }' sh "$bin" "$tmp"
check "resolve over 500 builds without a .ko: 20 warnings, then one line for the 480 others" sh -c '
	"$1" resolve -m "$2/many.data" 0x10 2>"$2/many.err" >/dev/null
	[ "$(grep -c "no .ko found" "$2/many.err")" -eq 20 ] &&
		grep -q "^Warning: 480 more modules without symbols" "$2/many.err" ||
		{ echo "# $(wc -l <"$2/many.err") lines: $(tail -1 "$2/many.err")"; exit 1; }' sh "$bin" "$tmp"
# FORK records back and forth between two pids (40, after 100 maps): each
# copied the other's maps again, doubling like Fibonacci (30 took 45 s and
# 12.6 GB). Now each map is inherited once.
if [ "$(id -u)" -eq 0 ] && [ -s "$tmp/rec.data" ] &&
	perf record -q -e cpu-clock -o "$tmp/fk-base.data" -- true >/dev/null 2>&1; then
	python3 "$(dirname "$0")/fake_modules.py" forks "$tmp/fk-base.data" "$tmp/fk.data" 100 40
	check "script: 40 FORKs back and forth over 100 maps, done (not Fibonacci)" \
		sh -c 'timeout 120 "$1" script -i "$2/fk.data" -m "$2/rec.data" >/dev/null' sh "$bin" "$tmp"
	# perf's lost records, counted as perf report counts them.
	python3 "$(dirname "$0")/fake_modules.py" lost "$tmp/fk-base.data" "$tmp/lost.data"
	perf report --stdio -i "$tmp/lost.data" >"$tmp/lost.perf" 2>&1
	chunks=$(sed -n 's/.*lost \([0-9]*\) chunks!.*/\1/p' "$tmp/lost.perf")
	samples=$(sed -n 's/^# Total Lost Samples: \([0-9]*\).*/\1/p' "$tmp/lost.perf" | head -1)
	check "report -j: perf's lost chunks and samples, as perf report counts them ($chunks, $samples)" \
		sh -c '"$1" report -j -i "$2/lost.data" -m "$2/rec.data" 2>/dev/null |
			grep -q "^{\"lost\":{\"chunks\":$3,\"events\":12,\"samples\":$4}"' \
		sh "$bin" "$tmp" "${chunks:-x}" "${samples:-x}"
	check "report, script: the loss said on the report and on stderr" sh -c '
		"$1" report -i "$2/lost.data" -m "$2/rec.data" 2>/dev/null | grep -q "^# Lost: 12 events in 2 chunks, 3 samples" &&
		"$1" script -i "$2/lost.data" -m "$2/rec.data" 2>&1 >/dev/null |
			grep -q "perf lost 12 events in 2 chunks and 3 samples"' sh "$bin" "$tmp"
else
	ok "script: FORKs back and forth # SKIP perf record does not run here (needs root and perf)"
fi
# A signal that ends secmap while its output has a temporary name on disk
# (no O_TMPFILE, as on vfat; or the moment before the rename): the name is
# removed, the old file stays, and the exit is the signal's. tests/
# no_tmpfile.so holds the output there, in rename(), until the signal.
signal_leaves_nothing() {	# SIGNAL [ALLOW_TMPFILE]
	local d="$tmp/sig-$1" pid st i

	mkdir -p "$d" && echo old >"$d/out.data"
	# (ASan wants its runtime first; the shim only passes calls on to it.)
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0 \
		NO_TMPFILE_STALL=1 NO_TMPFILE_ALLOW=${2:-} LD_PRELOAD=$no_tmpfile \
		"$bin" record -q -o "$d/out.data" -- true 2>/dev/null &
	pid=$!
	for i in $(seq 300); do
		ls -A "$d" | grep -q "^\.out\.data\.secmap-" && break
		sleep 0.1
	done
	ls -A "$d" | grep -q "^\.out\.data\.secmap-" || { echo "# no temporary file seen"; kill -KILL $pid; return 1; }
	kill -s "$1" $pid
	wait $pid 2>/dev/null
	st=$?
	[ $st -eq $((128 + $(kill -l "$1"))) ] || { echo "# exit $st"; return 1; }
	[ "$(ls -A "$d")" = out.data ] && [ "$(cat "$d/out.data")" = old ] ||
		{ echo "# left: $(ls -A "$d")"; return 1; }
}
if [ -n "$no_tmpfile" ] && "$bin" record -q -o "$tmp/sig.probe" -- true 2>/dev/null; then
	check "record -o, no O_TMPFILE, SIGHUP: the named temporary file removed, exit 129" \
		signal_leaves_nothing HUP
	check "record -o, SIGUSR1 while its file is linked for the rename: removed, exit 138" \
		signal_leaves_nothing USR1 1
	rm -f "$tmp/sig.probe"
else
	ok "signals remove temporary files # SKIP record cannot run here or no tests/no_tmpfile.so"
fi
check "no temporary file left beside the outputs" \
	sh -c '! ls -A "$1" | grep -E "tmp|secmap-" ' sh "$tmp"
tap_done
