#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Check that the DKMS source tree "make install" ships builds with dkms for
# every bookworm target kernel whose headers setup.sh installed (6.1, 6.12).
#
#   bash scripts/dkms-test.sh        (as root; TAP on stdout, exit 1 on failure)
#
# Everything happens in a temporary directory: the tree is installed there
# with DESTDIR, and dkms is pointed at it with --sourcetree and given its own
# --dkmstree, so neither /usr/src nor /var/lib/dkms is touched and a re-run
# (or one after an interrupted run) starts clean. The module is removed from
# dkms (dkms remove --all) at the end all the same.
set -uo pipefail

CACHE=${SECMAP_CACHE:-/var/cache/secmap}
KERNEL_TAGS=${SECMAP_DKMS_KERNELS:-6.1 6.12}
top=$(cd "$(dirname "$0")/.." && pwd)

. "$top/scripts/tap.sh"
bail() { echo "Bail out! $*"; exit 1; }

[ "$(id -u)" -eq 0 ] || bail "must run as root (dkms)"
command -v dkms >/dev/null || bail "dkms not installed (run scripts/setup.sh)"

version=$(make -s --no-print-directory -C "$top" print-version)
[ -n "$version" ] || bail "no PACKAGE_VERSION in dkms.conf"

tmp=$(mktemp -d /tmp/secmap-dkms-test.XXXXXX)
srctree=$tmp/root/usr/src
dkmstree=$tmp/dkms
mkdir -p "$dkmstree"
created_links=()
dkms_() { dkms "$@" --sourcetree "$srctree" --dkmstree "$dkmstree"; }
cleanup() {
	dkms_ remove "secmap/$version" --all >/dev/null 2>&1
	local l
	for l in "${created_links[@]}"; do
		rm -f "$l"
	done
	rm -rf "$tmp"
}
trap cleanup EXIT

log=$tmp/log
if make -C "$top" install-dkms DESTDIR="$tmp/root" >"$log" 2>&1; then
	ok "make install-dkms DESTDIR=... installs secmap-$version"
else
	sed 's/^/# /' "$log"
	bail "make install-dkms failed"
fi
src=$srctree/secmap-$version
missing=
for f in dkms.conf kmod/Kbuild kmod/Makefile kmod/main.c uapi/linux/secmap.h; do
	[ -f "$src/$f" ] || missing+=" $f"
done
if [ -z "$missing" ]; then
	ok "DKMS tree has dkms.conf, kmod/ and uapi/"
else
	not_ok "DKMS tree lacks:$missing"
fi
if [ -z "$(find "$src" \( -name '*.o' -o -name '*.ko' -o -name '*.mod*' -o -name '.*.cmd' \) -print -quit)" ]; then
	ok "DKMS tree holds sources only"
else
	not_ok "DKMS tree holds build products"
fi

if dkms_ add "secmap/$version" >"$log" 2>&1; then
	ok "dkms add secmap/$version"
else
	sed 's/^/# /' "$log"
	bail "dkms add failed"
fi

for tag in $KERNEL_TAGS; do
	release=$(cat "$CACHE/kernels/$tag/release" 2>/dev/null)
	if [ -z "$release" ]; then
		not_ok "dkms build on $tag # no $CACHE/kernels/$tag/release: run scripts/setup.sh"
		continue
	fi
	headers=/usr/src/linux-headers-$release
	if [ ! -d "$headers" ]; then
		not_ok "dkms build on $tag ($release) # headers $headers missing"
		continue
	fi
	# dkms finds the kernel through /lib/modules/RELEASE/build.
	if [ ! -e "/lib/modules/$release/build" ]; then
		mkdir -p "/lib/modules/$release"
		ln -s "$headers" "/lib/modules/$release/build"
		created_links+=("/lib/modules/$release/build")
	fi
	if dkms_ build "secmap/$version" -k "$release" --kernelsourcedir "$headers" \
			>"$log" 2>&1; then
		ko=$(find "$dkmstree/secmap/$version/$release" -path '*/module/secmap.ko*' \
			-print -quit 2>/dev/null)
		vermagic=$(modinfo -F vermagic "$ko" 2>/dev/null)
		if [ -n "$ko" ] && [ "${vermagic%% *}" = "$release" ]; then
			ok "dkms build on $tag ($release): ${ko#"$dkmstree"/}"
		elif [ -n "$ko" ]; then
			not_ok "dkms build on $tag ($release): vermagic '$vermagic'"
		else
			sed 's/^/# /' "$log"
			not_ok "dkms build on $tag ($release): no secmap.ko"
		fi
	else
		sed 's/^/# /' "$log"
		find "$dkmstree/secmap/$version/build" -name make.log -exec sed 's/^/# /' {} + 2>/dev/null
		not_ok "dkms build on $tag ($release)"
	fi
done

if dkms_ remove "secmap/$version" --all >"$log" 2>&1 && [ ! -e "$dkmstree/secmap/$version" ]; then
	ok "dkms remove secmap/$version --all"
else
	sed 's/^/# /' "$log"
	not_ok "dkms remove secmap/$version --all"
fi

tap_done
