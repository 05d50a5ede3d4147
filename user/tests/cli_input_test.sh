#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The command line and the files it is pointed at, as a careless or hostile
# user would give them: options used wrongly name the option as typed, a
# FIFO or a directory where a file should be is refused at once (not waited
# on), and every refusal is one line with a usage (2) or bad-input (8)
# status. Needs no kernel module. TAP output; exits 1 if any check fails.
#
#   cli_input_test.sh SECMAP_BINARY
set -u

bin=${1:?usage: $0 SECMAP_BINARY}
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

check "dump --json=1: names --json, takes no value" \
	fails 2 "option '--json' takes no value" dump --json=1
check "report --force=1: names --force" \
	fails 2 "option '--force' takes no value" report --force=1
check "script --no-ko=yes: names --no-ko" \
	fails 2 "option '--no-ko' takes no value" script --no-ko=yes
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
tap_done
