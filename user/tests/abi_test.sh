#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# libsecmap's ABI, as built: the version script names every exported
# function (no wildcard), each SECMAP_EXPORT function is in it and in the
# public header, and the shared library exports those and nothing else.
#
#   abi_test.sh LIBSECMAP_SO SRCDIR   (SRCDIR: user/)
set -uo pipefail
so=${1:?usage: abi_test.sh LIBSECMAP_SO SRCDIR}
src=${2:?usage: abi_test.sh LIBSECMAP_SO SRCDIR}
n=0 failed=0
check() {
	local desc=$1
	shift
	n=$((n + 1))
	if "$@"; then echo "ok $n - $desc"; else echo "not ok $n - $desc"; failed=$((failed + 1)); fi
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The function after each SECMAP_EXPORT, which may sit on the line after.
grep -h -A1 'SECMAP_EXPORT' "$src"/lib/*.c "$src"/lib/*/*.c | grep -oE 'secmap_[a-z0-9_]+\(' |
	tr -d '(' | sort -u >"$tmp/exported"
grep -oE '^[[:space:]]+secmap_[a-z0-9_]+;' "$src/lib/libsecmap.map" | tr -d ' \t;' |
	sort >"$tmp/map"
objdump -T "$so" | awk '$4 == ".text" || $4 == "*ABS*" { print $NF }' |
	grep -v '^LIBSECMAP_' | sort >"$tmp/so"

check "the version script has no wildcard" \
	bash -c "! grep -E '^[[:space:]]+[a-z_]*\*;' '$src/lib/libsecmap.map' | grep -v '^[[:space:]]*\*;'"
check "the version script lists each name once" \
	test -z "$(uniq -d "$tmp/map")"
missing=$(comm -23 "$tmp/exported" "$tmp/map")
check "every SECMAP_EXPORT function is in the version script${missing:+: missing $missing}" \
	test -z "$missing"
stale=$(comm -13 "$tmp/exported" "$tmp/map")
check "the version script names no function that is not SECMAP_EXPORT${stale:+: $stale}" \
	test -z "$stale"
extra=$(comm -13 "$tmp/map" "$tmp/so")
check "the library exports nothing else${extra:+: $extra}" test -z "$extra"
absent=$(comm -23 "$tmp/map" "$tmp/so")
check "the library exports every listed function${absent:+: missing $absent}" test -z "$absent"
undeclared=$(while read -r f; do
	# Not through a pipe: grep -q leaves early, cat dies of SIGPIPE, and pipefail says so.
	grep -qE "\\b$f\\(" "$src/include/secmap.h" "$src"/include/secmap/*.h || echo "$f"
done <"$tmp/exported")
check "every exported function is declared in secmap.h or its parts${undeclared:+: $undeclared}" \
	test -z "$undeclared"
echo "# $(wc -l <"$tmp/so") functions exported"
echo "1..$n"
[ $failed -eq 0 ]
