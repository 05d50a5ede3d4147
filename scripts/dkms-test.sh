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

# signed_by KO CERT SIGNER: modinfo says KO is signed by SIGNER with the
# key of the DER certificate CERT (its serial, as openssl reads it).
signed_by() {
	local serial key
	serial=$(openssl x509 -inform DER -in "$2" -noout -serial 2>/dev/null | sed 's/^serial=//')
	key=$(modinfo -F sig_key "$1" 2>/dev/null | tr -d ':')
	echo "# $1: signer '$(modinfo -F signer "$1" 2>/dev/null)', sig_key $key, certificate serial $serial"
	[ -n "$serial" ] && [ "${key^^}" = "${serial^^}" ] &&
		[ "$(modinfo -F signer "$1" 2>/dev/null)" = "$3" ]
}
# DKMS signs what it builds with its machine owner key, made at its first
# build: here in the test's directory, not /var/lib/dkms.
export mok_signing_key=$tmp/mok.key mok_certificate=$tmp/mok.pub

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
			check "dkms build on $tag: secmap.ko signed with DKMS's key (modinfo's signer and key against openssl's)" \
				signed_by "$ko" "$tmp/mok.pub" "DKMS module signing key"
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

# make sign: a module built from the tree, signed with a key of our own.
release=$(cat "$CACHE/kernels/6.1/release" 2>/dev/null)
headers=/usr/src/linux-headers-$release
if [ -n "$release" ] && [ -d "$headers" ]; then
	cp -r "$src/kmod" "$src/uapi" "$tmp/" &&
		make -s -C "$tmp/kmod" KDIR="$headers" >"$log" 2>&1 &&
		openssl req -new -x509 -nodes -days 1 -subj "/CN=secmap test signing key" \
			-newkey rsa:2048 -keyout "$tmp/sign.key" -outform DER -out "$tmp/sign.der" \
			>>"$log" 2>&1 &&
		make -s -C "$top" sign SIGN_KO="$tmp/kmod/secmap.ko" SIGN_KEY="$tmp/sign.key" \
			SIGN_CERT="$tmp/sign.der" KDIR="$headers" >>"$log" 2>&1
	rc=$?
	[ $rc -eq 0 ] || sed 's/^/# /' "$log"
	check "make sign: secmap.ko signed with the key given (modinfo's signer and key against openssl's)" \
		signed_by "$tmp/kmod/secmap.ko" "$tmp/sign.der" "secmap test signing key"
	make -s -C "$top" sign SIGN_KO="$tmp/none.ko" >"$log" 2>&1
	rc=$?
	check "make sign without a module: fails and says why" \
		eval '[ $rc -ne 0 ] && [ "$(grep -c "^sign: no" "$log")" -eq 1 ]'
else
	ok "make sign # SKIP no 6.1 headers: run scripts/setup.sh"
fi

if dkms_ remove "secmap/$version" --all >"$log" 2>&1 && [ ! -e "$dkmstree/secmap/$version" ]; then
	ok "dkms remove secmap/$version --all"
else
	sed 's/^/# /' "$log"
	not_ok "dkms remove secmap/$version --all"
fi

tap_done
