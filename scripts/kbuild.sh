#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build secmap.ko and the selftest modules for one target kernel.
#
#   scripts/kbuild.sh TAG OUTDIR [extra kbuild args, e.g. C=1]
#
# TAG is a kernel prepared by scripts/setup.sh (5.10, 6.1, 6.12, sid, 6.12-debug). Sources are
# copied so that kernels can be built side by side without sharing objects;
# sid's kbuild only runs inside its build root, so there the copy goes into
# the chroot. Fails on any compiler warning (W=1).
set -euo pipefail

CACHE=${SECMAP_CACHE:-/var/cache/secmap}
top=$(cd "$(dirname "$0")/.." && pwd)
tag=${1:?usage: kbuild.sh TAG OUTDIR}
out=${2:?usage: kbuild.sh TAG OUTDIR}
shift 2
kdir_file=$CACHE/kernels/$tag
[ -f "$kdir_file/ready" ] || { echo "kbuild: kernel $tag not prepared; run scripts/setup.sh" >&2; exit 1; }

mkdir -p "$out"
out=$(cd "$out" && pwd)

if [ -f "$kdir_file/chroot-kdir" ]; then
	root=$CACHE/sid-root
	work_in=/tmp/secmap-kbuild
	work=$root$work_in
	kdir=$(cat "$kdir_file/chroot-kdir")
	# objtool reads /proc; a private mount namespace keeps that mount off the host.
	run() { unshare --mount --fork sh -c 'mount -t proc proc "$0/proc" && exec chroot "$0" "$@"' "$root" "$@"; }
else
	work_in=$out/src
	work=$work_in
	kdir=$(readlink -f "$kdir_file/kdir")
	run() { "$@"; }
fi

rm -rf "$work" && mkdir -p "$work/selftests/secmap"
cp -r "$top/kmod" "$top/uapi" "$work/"
cp -r "$top/selftests/secmap/modules" "$work/selftests/secmap/"
# Stale objects from an in-tree host build must not leak into this one.
find "$work" \( -name '*.o' -o -name '*.ko' -o -name '*.mod*' -o -name '.*.cmd' \) -delete

log=$out/kbuild.log
: >"$log"
for dir in kmod selftests/secmap/modules; do
	run make -C "$kdir" M="$work_in/$dir" W=1 "$@" modules >>"$log" 2>&1 ||
		{ cat "$log" >&2; echo "kbuild: $tag: build of $dir failed" >&2; exit 1; }
done
if grep -E 'warning:|error:' "$log" >&2; then
	echo "kbuild: $tag: compiler or sparse warnings (W=1 and C=1 must be clean)" >&2
	exit 1
fi
# kbuild only warns, then builds without the checker, if sparse is unusable.
if grep -F 'specified, but' "$log" >&2; then
	echo "kbuild: $tag: the checker did not run" >&2
	exit 1
fi
cp "$work"/kmod/*.ko "$work"/selftests/secmap/modules/*.ko "$out/"
cat "$kdir_file/release" >"$out/release"
