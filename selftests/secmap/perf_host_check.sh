#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Stock perf on the build machine reads what perf_test.sh recorded in a VM:
# Debian's perf 6.1 on the host and perf 7.x in the sid build root. Called
# by scripts/vm-run.sh (test mode) with the VM's out/ folder; prints TAP lines
# in vm-run.sh's style ("ok - TAG: ..."): per perf, it reads the file; and if
# the guest sent all its kallsyms (SECMAP_VM_KALLSYMS=full), it resolves the
# kernel's samples as perf did in the VM.
#
#   selftests/secmap/perf_host_check.sh TAG OUTDIR
set -uo pipefail

CACHE=${SECMAP_CACHE:-/var/cache/secmap}
tag=${1:?usage: perf_host_check.sh TAG OUTDIR}
out=${2:?usage: perf_host_check.sh TAG OUTDIR}
data=$out/perf-basic.data
late=secmap_test_late

# The symbol (sym+off) of every sample in the kernel image that resolved.
# Not modules (from 0xffffffffc0000000 on x86-64): perf resolves those wrongly
# or not at all, which is what secmap is about.
kernel_syms() {
	grep -F '([kernel.kallsyms])' "$1" | grep -vF '[unknown]' |
		awk '$(NF - 2) < "ffffffffc0000000" { print $(NF - 1) }'
}

# check NAME OUTPUT-FILE STATUS: samples and both module events for the test
# module, as perf_test.sh checked them in the VM; then kernel symbols.
check() {
	local name=$1 txt=$2 rc=$3 samples
	samples=$(grep -c ' cpu-clock:' "$txt")
	if [ "$rc" -eq 0 ] && [ "$samples" -ge 10 ] &&
		grep -qE "module:module_load: +$late( |$)" "$txt" &&
		grep -qE "module:module_free: +$late( |$)" "$txt"; then
		echo "ok - $tag: $name reads perf-basic.data ($samples cpu-clock samples, module_load/free of $late)"
	else
		echo "not ok - $tag: $name reads perf-basic.data (status $rc, $samples cpu-clock samples; see $txt)"
		sed -n '1,5s/^/#   /p' "$txt.err"
	fi
	local n
	[ "$full" ] || return 0
	n=$(kernel_syms "$out/perf-basic.script" | wc -l)
	if [ "$n" -gt 0 ] && cmp -s <(kernel_syms "$out/perf-basic.script") <(kernel_syms "$txt"); then
		echo "ok - $tag: $name resolves the $n kernel-image samples as perf in the VM did"
	else
		echo "not ok - $tag: $name resolves the $n kernel-image samples as perf in the VM did"
		diff <(kernel_syms "$out/perf-basic.script") <(kernel_syms "$txt") | sed -n '1,5s/^/#   /p'
	fi
}

if [ ! -s "$data" ]; then
	echo "not ok - $tag: stock perf reads perf-basic.data (no $data from the VM)"
	exit 0
fi

# --kallsyms: resolve kernel addresses with the guest's symbols, not the host's.
full=
if [ "$(grep -cvF '[' "$out/kallsyms")" -gt 2 ]; then
	full=1
else
	echo "# $tag: kallsyms has the modules' symbols only (SECMAP_VM_KALLSYMS=full for all)"
fi
host_perf=$(cat "$CACHE/perf/host")
rc=0
"$host_perf" script -i "$data" --kallsyms "$out/kallsyms" >"$out/host-perf.script" \
	2>"$out/host-perf.script.err" || rc=$?
check "host $("$host_perf" version)" "$out/host-perf.script" $rc

root=$CACHE/sid-root
sid_perf=$(cat "$CACHE/perf/sid")
tmp=$(mktemp -d "$root/tmp/secmap-perf.XXXXXX")
cp "$data" "$out/kallsyms" "$tmp/"
rc=0
chroot "$root" "$sid_perf" script -i "${tmp#"$root"}/perf-basic.data" \
	--kallsyms "${tmp#"$root"}/kallsyms" >"$out/sid-perf.script" 2>"$out/sid-perf.script.err" || rc=$?
check "sid $(chroot "$root" "$sid_perf" version)" "$out/sid-perf.script" $rc
rm -rf "$tmp"
