#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Prepare a Debian bookworm machine for building and testing secmap.
#
# Idempotent: every step checks for its result first, so a second run on a
# prepared machine only verifies and takes seconds. Needs root (apt, chroot).
#
# Results, all outside the git tree so that fresh clones share them:
#   $SECMAP_CACHE/kernels/<tag>/{vmlinuz,modules/,kdir,release}  one per target kernel
#   $SECMAP_CACHE/debug-kernel/<hash>/{src,obj,root}             the debug kernel's build
#   $SECMAP_CACHE/sid-root                                        sid build root for 7.x;
#                                                                 its libmnl.a for a static secmap
#   $SECMAP_CACHE/linux-source/                                   harness headers, checkpatch
#   $SECMAP_CACHE/perf/{host,sid}                                 path of the real perf ELF
#                                                                 (host; inside the sid root)
#   $SECMAP_CACHE/consumers/node_modules                          speedscope, playwright-core,
#                                                                 @firefox-devtools/profiler-cli:
#                                                                 readers of perf script output
set -euo pipefail

CACHE=${SECMAP_CACHE:-/var/cache/secmap}
SID_MIRROR=${SECMAP_SID_MIRROR:-http://deb.debian.org/debian}
export DEBIAN_FRONTEND=noninteractive

log() { printf 'setup: %s\n' "$*" >&2; }
die() { printf 'setup: error: %s\n' "$*" >&2; exit 1; }

[ "$(id -u)" -eq 0 ] || die "must run as root (apt-get, debootstrap, chroot)"

HOST_PKGS=(
	build-essential pkg-config clang sparse bc bison flex
	libmnl-dev libelf-dev libdw-dev libiberty-dev libjson-c-dev liblzma-dev libzstd-dev zlib1g-dev libarchive-dev
	libxxhash-dev hotspot golang-go
	qemu-system-x86 ovmf sbsigntool busybox-static cpio kmod xz-utils zstd debootstrap
	curl gpgv debian-archive-keyring
	python3 python3-yaml python3-docutils perl dkms linux-perf nodejs chromium
	linux-headers-cloud-amd64 linux-headers-6.12-cloud-amd64
	linux-source-6.1 linux-source-6.12
)

install_host_packages() {
	local missing=()
	local p
	for p in "${HOST_PKGS[@]}"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
			missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return
	log "installing: ${missing[*]}"
	# A stale package list makes 'install' fail with 404s; refresh once.
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# The versioned package behind a Debian meta package, e.g.
# linux-image-cloud-amd64 -> linux-image-6.1.0-56-cloud-amd64.
resolve_meta() {
	apt-cache depends "$1" 2>/dev/null | awk '/Depends: linux-image-/ { print $2; exit }'
}

# Unpack a kernel image package (not install: we only need vmlinuz and its
# modules, and must not touch the host's /boot).
fetch_bookworm_kernel() {
	local tag=$1 meta=$2
	local dir=$CACHE/kernels/$tag
	[ -f "$dir/ready" ] && return
	local pkg
	pkg=$(resolve_meta "$meta")
	[ -n "$pkg" ] || die "cannot resolve $meta (run apt-get update?)"
	local release=${pkg#linux-image-}
	log "unpacking $pkg"
	rm -rf "$dir" && mkdir -p "$dir"
	# Download as root into our cache; apt's _apt sandbox user cannot write there.
	(cd "$dir" && apt-get download -qq -o APT::Sandbox::User=root "$pkg" >/dev/null)
	dpkg-deb -x "$dir"/"$pkg"_*.deb "$dir/root"
	rm -f "$dir"/*.deb
	# postinst would have run depmod; the VM lane resolves dependencies with it.
	depmod -b "$dir/root" "$release"
	ln -sfn "root/boot/vmlinuz-$release" "$dir/vmlinuz"
	ln -sfn "root/lib/modules/$release" "$dir/modules"
	[ -d "/usr/src/linux-headers-$release" ] || die "headers for $release missing"
	ln -sfn "/usr/src/linux-headers-$release" "$dir/kdir"
	echo "$release" >"$dir/release"
	touch "$dir/ready"
}

# Debian bullseye's 5.10 (LTS, security archive): the pre-6.4 module
# layout of the enterprise 5.x kernels. bookworm's apt does not know
# bullseye, so the index comes from the archive, checked against its
# signed InRelease with Debian's keyring; each .deb against the index.
BULLSEYE_MIRROR=${SECMAP_BULLSEYE_MIRROR:-http://deb.debian.org/debian-security}
fetch_bullseye_kernel() {
	local tag=$1
	local dir=$CACHE/kernels/$tag dist=$BULLSEYE_MIRROR/dists/bullseye-security
	local index_sum abi release pkg file sum
	[ -f "$dir/ready" ] && return
	rm -rf "$dir" && mkdir -p "$dir/debs"
	log "fetching Debian bullseye's 5.10 cloud kernel from $BULLSEYE_MIRROR"
	curl -fsS -o "$dir/debs/InRelease" "$dist/InRelease" || die "$tag: cannot fetch $dist/InRelease"
	gpgv --keyring /usr/share/keyrings/debian-archive-keyring.gpg "$dir/debs/InRelease" \
		>/dev/null 2>&1 || die "$tag: $dist/InRelease: bad signature"
	index_sum=$(awk '/^SHA256:/ { s = 1; next } /^[^ ]/ { s = 0 }
		s && $3 == "main/binary-amd64/Packages.xz" { print $1 }' "$dir/debs/InRelease")
	curl -fsS -o "$dir/debs/Packages.xz" "$dist/main/binary-amd64/Packages.xz" ||
		die "$tag: cannot fetch the package index"
	echo "$index_sum  $dir/debs/Packages.xz" | sha256sum -c --quiet - >/dev/null 2>&1 ||
		die "$tag: the package index does not match InRelease"
	xz -dc "$dir/debs/Packages.xz" >"$dir/debs/Packages"
	# The newest ABI whose signed image and headers are both there.
	abi=$(sed -n 's/^Package: linux-headers-5\.10\.0-\([0-9]*\)-cloud-amd64$/\1/p' "$dir/debs/Packages" |
		sort -n | while read -r n; do
			grep -qx "Package: linux-image-5.10.0-$n-cloud-amd64" "$dir/debs/Packages" && echo "$n"
		done | tail -n 1)
	[ -n "$abi" ] || die "$tag: no 5.10 cloud kernel in the index"
	release=5.10.0-$abi-cloud-amd64
	for pkg in "linux-image-$release" "linux-headers-$release" "linux-headers-5.10.0-$abi-common" \
		linux-kbuild-5.10; do
		read -r file sum < <(awk -v p="$pkg" '/^Package: / { cur = $2; f = s = "" }
			cur == p && /^Filename: / { f = $2 } cur == p && /^SHA256: / { s = $2 }
			cur == p && f != "" && s != "" { print f, s; exit }' "$dir/debs/Packages")
		[ -n "$file" ] || die "$tag: $pkg not in the index"
		curl -fsS -o "$dir/debs/${file##*/}" "$BULLSEYE_MIRROR/$file" || die "$tag: cannot fetch $file"
		echo "$sum  $dir/debs/${file##*/}" | sha256sum -c --quiet - >/dev/null 2>&1 ||
			die "$tag: $file does not match the index"
		dpkg-deb -x "$dir/debs/${file##*/}" "$dir/root"
	done
	rm -rf "$dir/debs"
	# The headers include their common part by /usr/src path, and name bullseye's gcc-10.
	sed -i "s|^include /usr/src/linux-headers-5.10.0-$abi-common/Makefile|include \$(dir \$(lastword \$(MAKEFILE_LIST)))../linux-headers-5.10.0-$abi-common/Makefile|" \
		"$dir/root/usr/src/linux-headers-$release/Makefile"
	sed -i 's/^CC = .*gcc-10$/CC = $(CROSS_COMPILE)gcc/' "$dir/root/usr/src/linux-headers-$release/.kernelvariables"
	depmod -b "$dir/root" "$release"
	ln -sfn "root/boot/vmlinuz-$release" "$dir/vmlinuz"
	ln -sfn "root/lib/modules/$release" "$dir/modules"
	ln -sfn "root/usr/src/linux-headers-$release" "$dir/kdir"
	echo "$release" >"$dir/release"
	touch "$dir/ready"
}

# Debian's 7.x headers lack kbuild's scripts/checker-valid.sh, so `make C=1`
# would silently skip sparse. Ours answers "1" when the checker runs.
provide_checker_valid() {
	local script=$1/scripts/checker-valid.sh
	[ -e "$script" ] && return
	cat >"$script" <<'SH'
#!/bin/sh
# Installed by secmap's scripts/setup.sh: Debian's headers package lacks it.
echo 'int secmap_checker_probe;' | "$@" - >/dev/null 2>&1 && echo 1
SH
	chmod +x "$script"
}

# sid's kbuild needs a newer glibc and gcc than bookworm has: build in a chroot.
prepare_sid_root() {
	local root=$CACHE/sid-root
	local dir=$CACHE/kernels/sid
	# libmnl-dev: bookworm's ships no libmnl.a, sid's does; the VMs run a
	# static secmap (user/Makefile, static).
	# bzip2: perf archive packs with tar cjf.
	# python3-virt-firmware: virt-fw-vars writes the UEFI variable store of the
	# signature-enforcing VM (scripts/vm-run.sh sig-enforce); bookworm has none.
	local pkgs="gcc-16 make sparse linux-perf linux-image-cloud-amd64 linux-headers-cloud-amd64 libmnl-dev bzip2 python3-virt-firmware"
	[ "$(cat "$dir/ready" 2>/dev/null)" = "$pkgs" ] && return
	if [ ! -f "$root/.secmap-debootstrap-done" ]; then
		log "debootstrapping sid into $root"
		rm -rf "$root"
		debootstrap --variant=minbase --include=gcc-16,make,libelf-dev,bc,bison,flex,kmod,xz-utils \
			sid "$root" "$SID_MIRROR" >"$CACHE/debootstrap.log" 2>&1 ||
			die "debootstrap failed, see $CACHE/debootstrap.log"
		touch "$root/.secmap-debootstrap-done"
	fi
	log "installing sid kernel image and headers in the build root"
	# The mirror serves a frozen snapshot whose Release file has expired.
	echo 'Acquire::Check-Valid-Until "false";' >"$root/etc/apt/apt.conf.d/99secmap-snapshot"
	# Package scripts complain loudly about the bare chroot; keep that in a log.
	{
		chroot "$root" apt-get update -qq &&
		chroot "$root" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
			--no-install-recommends $pkgs
	} >"$CACHE/sid-apt.log" 2>&1 || die "sid kernel install failed, see $CACHE/sid-apt.log"
	local release
	release=$(ls "$root/lib/modules" | sort -V | tail -n 1)
	[ -n "$release" ] || die "no kernel installed in $root"
	rm -rf "$dir" && mkdir -p "$dir"
	ln -sfn "../../sid-root/boot/vmlinuz-$release" "$dir/vmlinuz"
	ln -sfn "../../sid-root/lib/modules/$release" "$dir/modules"
	# kdir is the path *inside* the chroot; scripts/kbuild.sh knows to chroot.
	echo "/usr/src/linux-headers-$release" >"$dir/chroot-kdir"
	echo "$release" >"$dir/release"
	provide_checker_valid "$root/usr/src/linux-headers-${release%-cloud-amd64}-common"
	# Records what was installed, so that adding a package re-runs this step.
	echo "$pkgs" >"$dir/ready"
}

# kselftest harness and checkpatch come from the 6.12 source tarball at build
# time; nothing of the kernel is committed to secmap.
extract_linux_source() {
	local dir=$CACHE/linux-source
	[ -f "$dir/ready" ] && return
	log "extracting harness headers and checkpatch from linux-source-6.12"
	rm -rf "$dir" && mkdir -p "$dir"
	tar -xJf /usr/src/linux-source-6.12.tar.xz -C "$dir" --strip-components=1 --wildcards \
		'linux-source-6.12/tools/testing/selftests/kselftest_harness.h' \
		'linux-source-6.12/tools/testing/selftests/kselftest.h' \
		'linux-source-6.12/scripts/checkpatch.pl' \
		'linux-source-6.12/scripts/spelling.txt' \
		'linux-source-6.12/scripts/const_structs.checkpatch'
	touch "$dir/ready"
}

# Debian's /usr/bin/perf is either perf itself (bookworm) or a wrapper script
# that execs /usr/bin/perf_<version> or /usr/lib/linux-tools-<version>/perf
# for the running kernel's version. The VM lane needs the ELF: the wrapper
# would look for the VM kernel's version. Prints its path below ROOT.
real_perf() {
	local root=$1 f
	for f in $(ls -d "$root"/usr/bin/perf_* "$root"/usr/lib/linux-tools-*/perf 2>/dev/null | sort -rV) \
		"$root/usr/bin/perf"; do
		[ -x "$f" ] && [ "$(head -c 4 "$f")" = $'\x7fELF' ] && { echo "${f#"$root"}"; return; }
	done
	return 1
}

# Records where the real perf binary is and checks that it runs.
locate_perf() {
	local dir=$CACHE/perf host sid hv sv
	host=$(real_perf "") || die "no perf ELF on the host (linux-perf installed?)"
	hv=$("$host" version) || die "$host does not run"
	sid=$(real_perf "$CACHE/sid-root") || die "no perf ELF in $CACHE/sid-root"
	sv=$(chroot "$CACHE/sid-root" "$sid" version) || die "$sid does not run in the sid root"
	mkdir -p "$dir"
	echo "$host" >"$dir/host"
	echo "$sid" >"$dir/sid"
	log "host $host: $hv; sid root $sid: $sv"
}

# The debug kernel (KASAN, lockdep, kmemleak, UBSAN...) for the VM lane, built
# from Debian's linux-source-6.12 with scripts/debug-kernel.config over
# allnoconfig. Cached by a hash of the source package's version, the config
# and this function, so a change to any of them rebuilds it; other builds are
# removed. Laid out like the other kernels, so kbuild.sh and vm-run.sh take
# the tag 6.12-debug as they are.
build_debug_kernel() {
	local top fragment version hash base dir src obj release line key val
	top=$(cd "$(dirname "$0")/.." && pwd)
	fragment=$top/scripts/debug-kernel.config
	version=$(dpkg-query -W -f='${Version}' linux-source-6.12)
	hash=$({ echo "$version"; cat "$fragment"; declare -f build_debug_kernel; } |
		sha256sum | cut -c1-16)
	base=$CACHE/debug-kernel
	dir=$CACHE/kernels/6.12-debug
	[ "$(cat "$dir/ready" 2>/dev/null)" = "$hash" ] && return
	src=$base/$hash/src
	obj=$base/$hash/obj
	log "building the debug kernel ($hash) from linux-source-6.12 $version; log: $base/$hash/build.log"
	rm -rf "$base" && mkdir -p "$src" "$obj"
	local t0=$SECONDS
	tar -xJf /usr/src/linux-source-6.12.tar.xz -C "$src" --strip-components=1
	make -s -C "$src" O="$obj" KCONFIG_ALLCONFIG="$fragment" allnoconfig >"$base/$hash/build.log" 2>&1 ||
		die "debug kernel: allnoconfig failed, see $base/$hash/build.log"
	# A line whose dependencies are unmet is dropped without a word: check each.
	while read -r line; do
		key=${line%%=*} val=${line#*=}
		if [ "$val" = n ]; then
			grep -qx "# $key is not set" "$obj/.config"
		else
			grep -qxF "$line" "$obj/.config"
		fi || die "debug kernel: '$line' did not stick (a dependency is missing)"
	done < <(grep -E '^CONFIG_' "$fragment")
	make -C "$obj" -j"$(nproc)" all >>"$base/$hash/build.log" 2>&1 ||
		die "debug kernel: build failed, see $base/$hash/build.log"
	make -C "$obj" INSTALL_MOD_PATH="$base/$hash/root" modules_install \
		>>"$base/$hash/build.log" 2>&1 ||
		die "debug kernel: modules_install failed, see $base/$hash/build.log"
	release=$(cat "$obj/include/config/kernel.release")
	rm -rf "$dir" && mkdir -p "$dir"
	ln -sfn "$obj/arch/x86/boot/bzImage" "$dir/vmlinuz"
	ln -sfn "$base/$hash/root/lib/modules/$release" "$dir/modules"
	ln -sfn "$obj" "$dir/kdir"
	echo "$release" >"$dir/release"
	log "debug kernel $release built in $((SECONDS - t0))s"
	echo "$hash" >"$dir/ready"
}

# The npm packages of scripts/consumers/package-lock.json, for the test that
# loads secmap script's output into speedscope (in Debian's Chromium)
# and the Firefox Profiler (its command-line client, run by Debian's node).
install_consumers() {
	local src dir=$CACHE/consumers stamp
	src=$(cd "$(dirname "$0")/consumers" && pwd)
	stamp=$(cat "$src/package.json" "$src/package-lock.json" | sha256sum | cut -c1-16)
	[ "$(cat "$dir/ready" 2>/dev/null)" = "$stamp" ] && return
	log "installing speedscope, playwright-core and profiler-cli from npm in $dir"
	rm -rf "$dir" && mkdir -p "$dir"
	cp "$src/package.json" "$src/package-lock.json" "$dir/"
	(cd "$dir" && npm ci --no-audit --no-fund --loglevel=error >"$dir/npm.log" 2>&1) ||
		die "npm ci in $dir failed, see $dir/npm.log"
	echo "$stamp" >"$dir/ready"
}

mkdir -p "$CACHE/kernels"
install_host_packages
# The debug kernel's build (both cores, ~10 minutes on a fresh machine) runs
# while the steps below wait on the network and the disk.
# Its own process group (set -m), so that a step failing below takes the
# whole build (make and the compilers) down with this script.
set -m
build_debug_kernel </dev/null &
debug_pid=$!
set +m
trap 'kill -- -"$debug_pid" 2>/dev/null || true' EXIT
install_consumers
fetch_bookworm_kernel 6.1 linux-image-cloud-amd64
fetch_bookworm_kernel 6.12 linux-image-6.12-cloud-amd64
fetch_bullseye_kernel 5.10
extract_linux_source
prepare_sid_root
locate_perf
wait "$debug_pid" || die "the debug kernel was not built (its error is above)"
trap - EXIT
for k in 5.10 6.1 6.12 sid 6.12-debug; do
	log "kernel $k: $(cat "$CACHE/kernels/$k/release")"
done
