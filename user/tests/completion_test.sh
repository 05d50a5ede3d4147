#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Help, man pages and bash completion must not drift apart (as bpftool's
# test_bpftool.py checks): every command listed by "secmap --help" and every
# long option listed by "secmap CMD --help" must appear in the completion
# script and in the command's man page. Then a few completions are run.
# TAP output; exits 1 if any check fails.
#
#   completion_test.sh SECMAP_BINARY COMPLETION_SCRIPT MAN_RST_DIR
set -u

bin=${1:?usage: $0 SECMAP_BINARY COMPLETION_SCRIPT MAN_RST_DIR}
comp=${2:?}
mandir=${3:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/../../scripts/tap.sh"

# WORD as a whole word (not a prefix of a longer option) in FILE.
has_word() {
	grep -qE -- "(^|[^A-Za-z0-9_-])$1([^A-Za-z0-9_-]|\$)" "$2"
}

# Long options of a help text: from the Usage line and the Options section.
long_opts() {
	grep -oE -- '(^|[^A-Za-z0-9-])--[a-z][a-z0-9-]*' | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u
}

main_help=$("$bin" --help) || { echo "Bail out! $bin --help failed"; exit 1; }
commands=$(printf '%s\n' "$main_help" |
	awk '/^Commands:/ { on = 1; next } on && /^$/ { exit } on { print $1 }')
[ -n "$commands" ] || { echo "Bail out! no commands in $bin --help"; exit 1; }

for cmd in $commands; do
	check "command '$cmd' in completion" has_word "$cmd" "$comp"
	check "command '$cmd' in secmap.8" has_word "$cmd" "$mandir/secmap.8.rst"
done

for opt in $(printf '%s\n' "$main_help" | long_opts); do
	check "global option $opt in completion" has_word "$opt" "$comp"
	check "global option $opt in secmap.8" has_word "$opt" "$mandir/secmap.8.rst"
done

for cmd in $commands; do
	[ "$cmd" = help ] && continue
	page=$mandir/secmap-$cmd.8.rst
	check "man page secmap-$cmd.8 exists" test -f "$page"
	check "secmap-$cmd.8 in secmap.8's SEE ALSO" has_word "secmap-$cmd" "$mandir/secmap.8.rst"
	help=$("$bin" "$cmd" --help) || { check "secmap $cmd --help succeeds" false; continue; }
	# The command's branch of the completion's "case $cmd", plus the
	# options it shares with the others.
	block=$tmp/$cmd.bash
	awk -v cmd="$cmd" '$0 ~ "^\t" cmd "\\)" { on = 1; next }
		on && /^\t([a-z|-]+\)|esac)/ { exit } on' "$comp" >"$block"
	grep -q 'out_opts' "$block" && grep -E "^[[:space:]]*local out_opts=" "$comp" >>"$block"
	check "completion has a branch for '$cmd'" test -s "$block"
	for opt in $(printf '%s\n' "$help" | long_opts); do
		check "$cmd option $opt in its completion" has_word "$opt" "$block"
		check "$cmd option $opt in secmap-$cmd.8" has_word "$opt" "$page"
	done
done

# Run the completion function itself. Without the bash-completion package,
# stand-ins for the two helpers it uses.
run_completion() {	# run_completion WORD... ; the last word is being completed
	bash -c '
		if [ -r /usr/share/bash-completion/bash_completion ]; then
			. /usr/share/bash-completion/bash_completion
		fi
		if ! declare -F _init_completion >/dev/null; then
			_init_completion() {
				words=("${COMP_WORDS[@]}"); cword=$COMP_CWORD
				cur=${words[cword]}; prev=${words[cword-1]}
			}
			_filedir() { COMPREPLY=(); }
		fi
		. "$1"; shift
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
		_secmap secmap "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
		printf "%s\n" "${COMPREPLY[@]}" | sort | tr "\n" " "
	' _ "$comp" "$@"
}

expect_completion() {	# expect_completion "EXPECTED" WORD...
	local want=$1 got
	shift
	got=$(run_completion "$@")
	check "complete '$*' -> '$want'" test "$got" = "$want "
}

expect_completion "dump" secmap d
expect_completion "monitor" secmap -j mon
expect_completion "--json" secmap --js
expect_completion "--source" secmap dump --so
expect_completion "auto netlink sysfs" secmap dump --source ""
expect_completion "sysfs" secmap -p dump --source s
expect_completion "--count" secmap monitor --cou
expect_completion "record report resolve" secmap help re
expect_completion "" secmap help report ""

tap_done
