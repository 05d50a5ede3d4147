#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Everything `make check` runs: set-up, then two lanes side by side, one per
# core (qemu's TCG runs a guest on one). The VM lane builds the module for
# the debug kernel and boots it: the longest VM. The host lane runs
# checkpatch, the unit tests (gcc, clang, ASan/UBSan; the threaded ones
# under TSan), the libFuzzer targets and the install and DKMS tests. Then
# each lane takes the other kernels from one queue, first come first
# served, so that neither waits while the other has work. Each step leaves
# TAP under build/tap/; the last line is the aggregate "N passed, N
# failed, N skipped". A failing step does not stop the others, so one run
# shows every problem.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
KERNELS=${SECMAP_KERNELS:-5.10 6.1 6.12 sid 6.12-debug}
build=$top/build
tapdir=$build/tap
rm -rf "$tapdir" && mkdir -p "$tapdir"
start=$(date +%s)

step() { printf '\n== %s\n' "$*"; }
# Record a step's outcome as one TAP line.
tap_result() {
	local file=$1 rc=$2 desc=$3
	if [ "$rc" -eq 0 ]; then echo "ok - $desc"; else echo "not ok - $desc"; fi >>"$tapdir/$file"
}

step "set-up"
bash scripts/setup.sh || { echo "set-up failed"; exit 1; }

step "uapi header and YNL spec agree"
python3 scripts/check-spec.py Documentation/netlink/specs/secmap.yaml uapi >"$tapdir/spec.tap" 2>&1
cat "$tapdir/spec.tap"

step "userspace for the VMs"
mkdir -p "$build/guest"
make -s -C "$top" guest-build >"$build/guest/build.log" 2>&1
static_rc=$?
tap_result guest.tap $static_rc "secmap CLI and selftests for the VMs build"
[ $static_rc -eq 0 ] || cat "$build/guest/build.log"

# The queue both lanes take kernels from: whoever makes the claim's
# directory first runs it (and its one-off VMs).
claims=$build/claims
rm -rf "$claims" && mkdir -p "$claims"
claim() { mkdir "$claims/$1" 2>/dev/null; }

# one_vm K MODE: a VM of kernel K in vm-run.sh's MODE, its TAP into
# $tapdir (a failed run adds a not-ok line), its failures shown. 1 if it
# left no TAP.
one_vm() {
	local k=$1 mode=$2 name=$1 label=VM rc=0

	if [ "$mode" != test ]; then
		name=$k-$mode
		label="VM, $mode"
	fi
	step "kernel $k: $label"
	bash scripts/vm-run.sh "$k" "$mode" "$build" ||
		echo "not ok - $k: vm-run.sh $mode failed" >>"$build/vm/$name/results.tap"
	cp "$build/vm/$name/results.tap" "$tapdir/vm-$name.tap" || rc=1
	[ "$mode" != test ] || head -n 2 "$tapdir/vm-$name.tap"
	grep -E '^not ok' "$tapdir/vm-$name.tap" || true
	return $rc
}

# Build and boot each kernel given that no other lane has claimed, in
# turn; each step writes its own TAP file. Non-zero if a kernel's VM left
# no results.
vm_lane() {
	local missing=0 m

	for k in "$@"; do
		claim "kernel-$k" || continue
		step "kernel $k: build"
		bash scripts/kbuild.sh "$k" "$build/kernels/$k" C=1
		krc=$?
		tap_result "kbuild-$k.tap" $krc "$k: secmap.ko and test modules build with W=1 and sparse, no warnings"
		if [ $krc -ne 0 ] || [ $static_rc -ne 0 ]; then
			echo "not ok - $k: VM tests not run (build failed)" >"$tapdir/vm-$k.tap"
			continue
		fi
		one_vm "$k" test || missing=1
		if [ "$k" = "$sigenforce_kernel" ]; then
			one_vm "$k" sig-enforce || missing=1
		fi
		if [ "$k" = "$lockdown_kernel" ]; then
			for m in lockdown-integrity lockdown-confidentiality; do
				one_vm "$k" "$m" || missing=1
			done
		fi
	done
	return $missing
}
# The one-off VMs' kernels. Locked down, in both modes (a few seconds
# each): 6.1, whose figures Documentation/secmap.rst gives, else the first
# kernel without debug options. Enforcing module signatures with a test
# key enrolled (some 30 s, UEFI included): the first kernel that trusts
# MokListRT's keys without shim's MOK table (6.12 on: trust_moklist();
# 5.x and 6.1 read that table only) and has its build tree on the host.
lockdown_kernel='' sigenforce_kernel=''
for k in $KERNELS; do
	case $k in
	*-debug) ;;
	6.1) lockdown_kernel=6.1 ;;
	*) lockdown_kernel=${lockdown_kernel:-$k} ;;
	esac
done
for k in $KERNELS; do
	case $k in
	5.* | 6.1 | *-debug) ;;
	*) [ -n "$sigenforce_kernel" ] || [ ! -e "${SECMAP_CACHE:-/var/cache/secmap}/kernels/$k/kdir" ] ||
		sigenforce_kernel=$k ;;
	esac
done

# The VM lane starts with the debug kernels, the host lane (once its own
# work is done) with the others; each then goes on with what is left.
debug_kernels='' other_kernels=''
for k in $KERNELS; do
	case $k in
	*-debug) debug_kernels="$debug_kernels $k" ;;
	*) other_kernels="$other_kernels $k" ;;
	esac
done
vm_log=$build/vm-lane.log
# In the background, its output kept for the end; in a process group of
# its own (set -m), so that it can be stopped whole with this script
# (vm-run.sh then stops its qemu).
set -m
{
	# shellcheck disable=SC2086
	vm_lane $debug_kernels $other_kernels
	lane_rc=$?
	echo "VM lane: $(($(date +%s) - start))s after the start"
	exit $lane_rc
} >"$vm_log" 2>&1 </dev/null &
vm_pid=$!
set +m
trap 'kill -- -"$vm_pid" 2>/dev/null; exit 130' INT TERM

step "checkpatch --strict"
# compat.h exists to key shims on LINUX_VERSION_CODE, which checkpatch discourages.
checkpatch=${SECMAP_CACHE:-/var/cache/secmap}/linux-source/scripts/checkpatch.pl
for f in kmod/*.c kmod/*.h selftests/secmap/modules/*.c uapi/linux/*.h; do
	ignore=
	[ "$f" = kmod/compat.h ] && ignore="--ignore LINUX_VERSION_CODE"
	# shellcheck disable=SC2086
	# Exits non-zero on any ERROR, WARNING or CHECK.
	if out=$(perl "$checkpatch" --strict --no-tree --terse --show-types $ignore -f "$f" 2>&1); then
		echo "ok - checkpatch --strict: $f"
	else
		echo "not ok - checkpatch --strict: $f"
		sed 's/^/# /' <<<"$out"
	fi
done >"$tapdir/checkpatch.tap"
grep -A3 '^not ok' "$tapdir/checkpatch.tap" || true

step "host unit tests"
for variant in gcc clang sanitize thread; do
	# The unit tests, and those that run perf on our files (as root here).
	targets=(test test-perf)
	case $variant in
	gcc) args=(CC=gcc) ;;
	clang) args=(CC=clang) ;;
	sanitize) args=(CC=gcc SANITIZE=1) ;;
	# The tests that share handles between threads, under TSan.
	thread) args=(CC=gcc SANITIZE=thread) targets=(test-threads) ;;
	esac
	out=$build/host/$variant/
	mkdir -p "$out"
	make -s -k -C user OUTPUT="$out" "${args[@]}" "${targets[@]}" >"$tapdir/host-$variant.tap" 2>&1
	tap_result "host-$variant.tap" $? "host: userspace builds and its tests pass ($variant)"
	grep -E '^(not )?ok ' "$tapdir/host-$variant.tap" | grep -v '^ok' || true
done

step "libFuzzer targets, briefly (make fuzz runs them longer)"
make -s -C user OUTPUT="$build/fuzz/" fuzz FUZZ_SECONDS="${SECMAP_FUZZ_SECONDS:-20}" \
	>"$build/fuzz.log" 2>&1
fuzz_rc=$?
tap_result fuzz.tap $fuzz_rc "libFuzzer targets run without a finding ($(grep -h '^stat::number_of_executed_units' "$build/fuzz.log" | awk '{ n += $2 } END { print n + 0 }') inputs)"
grep -E '^#|^stat::number_of_executed_units' "$build/fuzz.log"
[ $fuzz_rc -eq 0 ] || tail -n 40 "$build/fuzz.log"

step "install layout and DKMS builds (6.1, 6.12)"
bash scripts/install-test.sh >"$tapdir/install.tap" 2>&1
tap_result install-run.tap $? "install-test.sh ran to completion"
bash scripts/dkms-test.sh >"$tapdir/dkms.tap" 2>&1
tap_result dkms-run.tap $? "dkms-test.sh ran to completion"
grep -h '^not ok' "$tapdir/install.tap" "$tapdir/dkms.tap" || true

step "the kernels the VM lane has not taken yet, in the host lane"
# shellcheck disable=SC2086
vm_lane $other_kernels $debug_kernels
tap_result host-vms.tap $? "the host lane's VMs ran, with results from each"
echo "host lane: $(($(date +%s) - start))s after the start"

step "VM lane (ran beside the host lane)"
wait "$vm_pid"
tap_result vm-lane.tap $? "the VM lane ran to its end, with results from every VM"
trap - INT TERM
cat "$vm_log"
for k in $KERNELS; do
	[ -e "$tapdir/vm-$k.tap" ] || echo "not ok - $k: no lane ran its VM" >>"$tapdir/vm-$k.tap"
done

step "summary"
for k in $KERNELS; do
	[ -f "$build/vm/$k/out.log" ] &&
		printf 'kernel %-5s booted %s in %ss\n' "$k" \
			"$(sed -n 's/^# booted //p' "$build/vm/$k/out.log")" "$(cat "$build/vm/$k/seconds")"
done
echo "wall time: $(($(date +%s) - start))s"
exec bash scripts/tap-summary.sh "$tapdir"/*.tap
