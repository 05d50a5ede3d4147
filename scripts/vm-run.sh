#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Boot one target kernel in qemu (TCG) with secmap loaded and run the
# selftests (or the demo) inside it.
#
#   scripts/vm-run.sh TAG MODE BUILD
#
# TAG: kernel prepared by scripts/setup.sh (5.10, 6.1, 6.12, sid, 6.12-debug). MODE: test,
# demo or bench. BUILD: the build folder holding kernels/TAG/*.ko (scripts/kbuild.sh),
# guest/secmap-static (/bin/secmap in the VM), guest/secmap (/bin/secmap-dynamic)
# and guest/tests/* (the dynamic ones' libraries are copied in). Writes BUILD/vm/TAG/{console.log,out.log,
# results.tap}. The kernel's console is checked for oopses, BUGs, WARNs and
# KASAN reports; each check is a TAP line, so a dirty console fails the run.
# In test and demo modes the host's perf (Debian linux-perf, the ELF and its
# libraries) is /bin/perf in the VM. Files the guest leaves in /out come back
# through a third serial port (files.b64: base64 of a tar.gz) into BUILD/vm/TAG/out/.
# SECMAP_VM_KALLSYMS=full: perf_test.sh sends all of kallsyms' text symbols,
# not just the modules' (3-7 s more on the serial port).
set -euo pipefail

CACHE=${SECMAP_CACHE:-/var/cache/secmap}
top=$(cd "$(dirname "$0")/.." && pwd)
tag=${1:?usage: vm-run.sh TAG MODE BUILD}
mode=${2:?usage: vm-run.sh TAG MODE BUILD}
build=$(cd "${3:?usage: vm-run.sh TAG MODE BUILD}" && pwd)
kernel=$CACHE/kernels/$tag
vm=$build/vm/$tag
# lockdown-LEVEL: booted with lockdown=LEVEL, running lockdown_test.sh alone.
# sig-enforce: booted as a Secure Boot machine whose owner enrolled DKMS's
# key: UEFI (OVMF) with Secure Boot on, the kernel's own signer in db, a
# test key in MokListRT (where shim leaves the owner's keys for the
# kernel, which trusts them only under Secure Boot), module.sig_enforce=1;
# running sigenforce_test.sh alone.
append=
case $mode in
lockdown-integrity | lockdown-confidentiality)
	append=" lockdown=${mode#lockdown-}"
	vm=$build/vm/$tag-$mode
	;;
sig-enforce)
	append=" module.sig_enforce=1"
	vm=$build/vm/$tag-$mode
	;;
test | demo | bench) ;;
*) echo "vm-run: unknown mode $mode" >&2; exit 2 ;;
esac
# The debug kernel (KASAN, lockdep, kmemleak) runs the same tests 2-3x slower:
# 1500-1680 s beside the host lanes in the last runs, too close to 1800 for
# a limit meant to catch a hang. Its lane runs beside the host's longer
# ones, so the margin costs a CI run nothing unless the VM does hang.
case $tag in
*-debug) TIMEOUT=${SECMAP_VM_TIMEOUT:-2400} ;;
*) TIMEOUT=${SECMAP_VM_TIMEOUT:-450} ;;
esac

# Real Debian modules loaded before secmap (dependencies come along), and
# one loaded by the tests afterwards.
EARLY_MODULES="dummy veth ipip bridge tcp_bbr"
LATE_MODULES="ifb"

die() { echo "vm-run: $tag: $*" >&2; exit 1; }
[ -f "$kernel/ready" ] || die "kernel not prepared; run scripts/setup.sh"

moddir=$(readlink -f "$kernel/modules")
release=$(cat "$kernel/release")

prep_start=$(date +%s.%N)
rm -rf "$vm" && mkdir -p "$vm/root"/{bin,tests,etc/secmap,lib/modules/secmap,lib/modules/early,lib/modules/late,proc,sys,dev}
root=$vm/root

# Decompress as Debian ships them (.ko, .ko.xz, .ko.zst, .ko.gz): busybox
# insmod reads plain ELF only.
copy_module() {
	local rel=$1 dest=$2
	local src=$moddir/$rel
	case $src in
	*.ko.xz) xz -dc "$src" >"$dest" ;;
	*.ko.zst) zstd -qdc "$src" >"$dest" ;;
	*.ko.gz) gzip -dc "$src" >"$dest" ;;
	*.ko) cp "$src" "$dest" ;;
	*) die "unknown module format: $src" ;;
	esac
}

module_name() { local b=${1##*/}; b=${b%%.ko*}; echo "${b//-/_}"; }

# modules.dep: "path: dep1 dep2"; deps are loaded last-listed first.
dep_line() {
	grep -m 1 -E "(^|/)$1\.ko[^:]*:" "$moddir/modules.dep" ||
		die "module $1 not in $moddir/modules.dep"
}
declare -A loaded=()
order=()
add_with_deps() {
	local want=$1 line rel deps i
	line=$(dep_line "$want")
	rel=${line%%:*}
	read -r -a deps <<<"${line#*:}"
	for ((i = ${#deps[@]} - 1; i >= 0; i--)); do
		add_rel "${deps[i]}"
	done
	add_rel "$rel"
}
add_rel() {
	local rel=$1 name
	name=$(module_name "$rel")
	[ -n "${loaded[$name]:-}" ] && return
	loaded[$name]=1
	copy_module "$rel" "$root/lib/modules/early/$name.ko"
	order+=("/lib/modules/early/$name.ko")
	# Also as Debian ships it (compressed), where secmap dump looks for it.
	mkdir -p "$(dirname "$root/lib/modules/$release/$rel")"
	cp "$moddir/$rel" "$root/lib/modules/$release/$rel"
	grep -E "^$rel:" "$moddir/modules.dep" >>"$root/lib/modules/$release/modules.dep"
	echo "$name" >>"$root/etc/secmap/real-modules"
}
for m in $EARLY_MODULES; do add_with_deps "$m"; done
printf '%s\n' "${order[@]}" >"$root/etc/secmap/early-order"
for m in $LATE_MODULES; do
	line=$(dep_line "$m")
	copy_module "${line%%:*}" "$root/lib/modules/late/$m.ko"
done

cp "$build/kernels/$tag/"*.ko "$root/lib/modules/secmap/"
rm "$root/lib/modules/secmap/secmap_bench_0000.ko"
firmware=()
if [ "$mode" = sig-enforce ]; then
	# A key of this run's, as a user makes one for DKMS (mokutil --import
	# of its certificate); secmap.ko signed with it by make sign, beside
	# the unsigned one. The kernel trusts the keys of MokListRT as machine
	# keys (6.1 only with shim's MOK table: not this test's kernel).
	kdir=$(readlink -f "$kernel/kdir" 2>/dev/null) || die "sig-enforce: no kernel build tree"
	openssl req -new -x509 -newkey rsa:2048 -nodes -days 36500 -subj "/CN=secmap test MOK/" \
		-addext extendedKeyUsage=codeSigning -keyout "$vm/mok.key" -outform DER \
		-out "$vm/mok.der" 2>/dev/null || die "sig-enforce: openssl failed"
	cp "$build/kernels/$tag/secmap.ko" "$root/lib/modules/secmap/secmap-signed.ko"
	make -s -C "$top" sign SIGN_KO="$root/lib/modules/secmap/secmap-signed.ko" \
		SIGN_KEY="$vm/mok.key" SIGN_CERT="$vm/mok.der" KDIR="$kdir" ||
		die "sig-enforce: make sign failed"
	openssl x509 -inform DER -in "$vm/mok.der" -noout -serial | sed 's/^serial=//' \
		>"$root/etc/secmap/mok-serial"
	# The variable store, by virt-fw-vars (sid's; setup.sh installs it in
	# the build root): a platform key of its own, Debian's kernel signer
	# (from the image's signature, sbsigntool) in db, Secure Boot on; the
	# MokList it makes, set again as MokListRT, runtime-readable
	# (attributes NV|BS|RT), as shim sets it.
	ovmf=/usr/share/OVMF
	[ -r $ovmf/OVMF_CODE_4M.fd ] || die "sig-enforce: no $ovmf/OVMF_CODE_4M.fd; run scripts/setup.sh"
	chroot_tmp=$(mktemp -d "$CACHE/sid-root/tmp/secmap-vars.XXXXXX")
	cp $ovmf/OVMF_VARS_4M.fd "$vm/mok.der" "$chroot_tmp/"
	sbattach --detach "$vm/vmlinuz.p7" "$(readlink -f "$kernel/vmlinuz")" >/dev/null &&
		openssl pkcs7 -inform DER -in "$vm/vmlinuz.p7" -print_certs \
			-out "$chroot_tmp/signer.pem" || die "sig-enforce: no signature on the kernel image"
	in=/tmp/${chroot_tmp##*/}
	shim=605dab50-e046-4300-abb6-3dd810dd8b23
	chroot "$CACHE/sid-root" virt-fw-vars -i "$in/OVMF_VARS_4M.fd" --add-mok $shim "$in/mok.der" \
		--output-json "$in/mok.json" >/dev/null 2>&1 || die "sig-enforce: virt-fw-vars failed"
	python3 - "$chroot_tmp/mok.json" "$chroot_tmp/mokrt.json" <<'PY'
import json, sys
var = next(v for v in json.load(open(sys.argv[1]))["variables"] if v["name"] == "MokList")
json.dump({"version": 2, "variables": [dict(var, name="MokListRT", attr=7)]},
          open(sys.argv[2], "w"))
PY
	chroot "$CACHE/sid-root" virt-fw-vars -i "$in/OVMF_VARS_4M.fd" \
		--enroll-generate "secmap test platform key" --no-microsoft \
		--add-db $shim "$in/signer.pem" --sb --set-json "$in/mokrt.json" \
		-o "$in/vars.fd" >/dev/null 2>&1 || die "sig-enforce: virt-fw-vars (secure boot) failed"
	cp "$chroot_tmp/vars.fd" "$vm/vars.fd"
	rm -rf "$chroot_tmp"
	firmware=(-drive "if=pflash,format=raw,unit=0,readonly=on,file=$ovmf/OVMF_CODE_4M.fd"
		-drive "if=pflash,format=raw,unit=1,file=$vm/vars.fd")
fi
if [ "$mode" = bench ]; then
	# Clones of one small module, renamed in place (same length: no offset
	# moves), each with a build-id of its own, installed as a driver package
	# installs modules (in the release's tree, listed in modules.dep): perf
	# and secmap find their .ko as on a real machine. (perf copies all of
	# /proc/kallsyms into its build-id cache for each module whose .ko it
	# cannot find: 1000 such modules filled the VM's memory with 7.9 GB.)
	mkdir -p "$root/lib/modules/$release/extra/bench" "$root/bench"
	strip --strip-debug -o "$vm/bench_template.ko" "$build/kernels/$tag/secmap_bench_0000.ko"
	# The whole modules.dep, as installed, rather than the tests' few lines:
	# secmap dump reads it to find .ko files, and should pay what it pays
	# on a real system. Entries for modules not copied in are never opened.
	cp "$moddir/modules.dep" "$root/lib/modules/$release/modules.dep"
	python3 - "$vm/bench_template.ko" "$root/lib/modules/$release" "${SECMAP_BENCH_MODULES:-1000}" <<'PY'
import hashlib, sys
template, tree, count = open(sys.argv[1], "rb").read(), sys.argv[2], int(sys.argv[3])
assert template.count(b"secmap_bench_0000") >= 2, "module name not found in template"
# Elf64_Nhdr (namesz 4, descsz 20, NT_GNU_BUILD_ID) "GNU\0", then the id.
note = (4).to_bytes(4, "little") + (20).to_bytes(4, "little") + (3).to_bytes(4, "little") + b"GNU\0"
assert template.count(note) == 1, "one 20-byte GNU build-id note expected in template"
at = template.index(note) + len(note)
with open(f"{tree}/modules.dep", "a") as dep:
    for i in range(1, count + 1):
        name = b"secmap_bench_%04d" % i
        clone = template.replace(b"secmap_bench_0000", name)
        clone = clone[:at] + hashlib.sha1(name).digest() + clone[at + 20:]
        with open(f"{tree}/extra/bench/{name.decode()}.ko", "wb") as f:
            f.write(clone)
        dep.write(f"extra/bench/{name.decode()}.ko:\n")
PY
	cp "$build/guest/bench/"{bench,bench_noop,record_bench.sh} "$root/bench/"
fi
# /init sends /out with busybox's tar, base64 and stty.
# The list is read whole first: grep -q exits at its match, and busybox,
# still writing, died of SIGPIPE, which pipefail took as a failure.
applets=$(/bin/busybox --list)
for applet in tar base64 stty; do
	grep -qx "$applet" <<<"$applets" || die "busybox lacks $applet"
done
cp /bin/busybox "$root/bin/busybox"
# The static build is the one the tests and the bench run; the dynamic one,
# as `make install` puts it, comes along for the bench to set beside it.
cp "$build/guest/secmap-static" "$root/bin/secmap"
cp "$build/guest/secmap" "$root/bin/secmap-dynamic"
# The example agent, built against the installed library (make guest-agent).
cp "$build/guest/secmap-agent" "$root/bin/secmap-agent"
cp "$build/guest/tests/"* "$root/tests/"
mkdir -p "$root/lib/secmap"
cp "$top/scripts/tap.sh" "$root/lib/secmap/tap.sh"
cp "$top/selftests/secmap/vm_util.sh" "$root/lib/secmap/vm_util.sh"
install -m 0755 "$top/selftests/secmap/lockdown_test.sh" "$root/lib/secmap/lockdown_test.sh"
install -m 0755 "$top/selftests/secmap/sigenforce_test.sh" "$root/lib/secmap/sigenforce_test.sh"
# Programs whose libraries come along (the tests include shell scripts).
elfs=("$root/bin/secmap" "$root/bin/secmap-dynamic" "$root/bin/secmap-agent")
for t in "$root/tests/"*; do
	if [ "$(head -c 4 "$t")" = $'\x7fELF' ]; then elfs+=("$t"); fi
done
[ "$mode" = bench ] && elfs+=("$root/bench/bench")
# The real binary, not Debian's wrapper script: scripts/setup.sh found it.
perf=$(cat "$CACHE/perf/host" 2>/dev/null) || die "no perf recorded; run scripts/setup.sh"
cp "$perf" "$root/bin/perf"
elfs+=("$root/bin/perf")
# secmap opens libarchive only when archive runs (dlopen): not in its ldd.
# awk reads to the end: had it exited at its match, ldconfig, still
# writing, could die of SIGPIPE and pipefail end this script silently.
archive_lib=$(ldconfig -p | awk '/libarchive\.so\.13 .*x86-64/ && !found { print $NF; found = 1 }')
[ -n "$archive_lib" ] || die "libarchive.so.13 not found; run scripts/setup.sh"
elfs+=("$archive_lib")
# The shared libraries (and loader) the binaries need, at the same paths.
{
	for bin in "${elfs[@]}"; do
		# A static program (secmap-static) has no dynamic segment and
		# needs nothing; a shared library has one, and no INTERP.
		segments=$(readelf -lW "$bin") || die "readelf $bin failed"
		grep -q ' DYNAMIC ' <<<"$segments" || continue
		ldd "$bin" | grep -oE '/[^ ]+' || die "ldd $bin failed"
	done
	echo "$archive_lib"
} | sort -u | while read -r lib; do
	mkdir -p "$root$(dirname "$lib")"
	cp -L "$lib" "$root$lib"
done
# Debian has the loader in the multiarch directory as well (/lib64's is a
# link to it); secmap-static's dlopen() of libarchive looks for it there, by
# libc.so.6's DT_NEEDED name, with no ld.so.cache to say /lib64.
cp -L /lib64/ld-linux-x86-64.so.2 "$root/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"
install -m 0755 "$top/selftests/secmap/vm-init.sh" "$root/init"
echo "$mode" >"$root/etc/secmap/mode"
# stress_test.sh and netlink_fuzz_test: their full size on the debug kernel,
# the one that can tell what goes wrong; a taste on the others.
case $tag in
*-debug) stress=1000 requests=100000 ;;
*) stress=200 requests=10000 ;;
esac
echo "${SECMAP_STRESS_CYCLES:-$stress}" >"$root/etc/secmap/stress-cycles"
echo "${SECMAP_NETLINK_FUZZ_REQUESTS:-$requests}" >"$root/etc/secmap/netlink-fuzz-requests"
# To repeat a run it printed; else the test picks one.
[ -z "${SECMAP_NETLINK_FUZZ_SEED:-}" ] || echo "$SECMAP_NETLINK_FUZZ_SEED" >"$root/etc/secmap/netlink-fuzz-seed"
echo "${SECMAP_VM_KALLSYMS:-modules}" >"$root/etc/secmap/kallsyms"
# Not compressed: with perf's libraries (~30 MB) inflating took the guest
# 1.1 s under TCG against 0.3 s to copy, and gzip -1 took the host 1 s.
(cd "$root" && find . | cpio -o -H newc --quiet) >"$vm/initramfs.cpio"
prep=$(echo "$(date +%s.%N) - $prep_start" | bc)

start=$(date +%s.%N)
rc=0
# timeout runs in a process group of its own, which a signal to ours does
# not reach: should this script be stopped, it stops timeout, which stops qemu.
timeout "$TIMEOUT" qemu-system-x86_64 -accel tcg -cpu max -m 1024 -smp 1 \
	-nodefaults -display none -no-reboot -monitor none -nic none \
	-serial "file:$vm/console.log" -serial "file:$vm/out.log" -serial "file:$vm/files.b64" \
	"${firmware[@]}" -kernel "$(readlink -f "$kernel/vmlinuz")" -initrd "$vm/initramfs.cpio" \
	-append "console=ttyS0 panic=-1 ignore_loglevel$append" &
qemu_pid=$!
trap 'kill "$qemu_pid" 2>/dev/null' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
wait "$qemu_pid" || rc=$?
trap - EXIT INT TERM
# Serial lines end in CRLF.
sed -i 's/\r$//' "$vm/console.log" "$vm/out.log"
elapsed=$(echo "$(date +%s.%N) - $start" | bc)
printf '%.1f\n' "$elapsed" >"$vm/seconds"

# ttyS2: base64 of a tar of the guest's /out, then an end marker; nothing
# at all when /out stayed empty.
files=none
if [ -s "$vm/files.b64" ]; then
	mkdir -p "$vm/out"
	if tr -d '\r' <"$vm/files.b64" | sed '/^SECMAP-FILES-END$/,$d' | base64 -d |
		tar -xzf - -C "$vm/out" && grep -q '^SECMAP-FILES-END' "$vm/files.b64"; then
		files="$(ls "$vm/out" | wc -l) ($(du -sk "$vm/out" | cut -f1) KiB unpacked, $(du -k "$vm/files.b64" | cut -f1) KiB base64)"
	else
		files=broken
	fi
fi

tap=$vm/results.tap
{
	echo "# kernel $tag ($release): boot and $mode took $(cat "$vm/seconds")s"
	sed -n 's/^# booted //p' "$vm/out.log" | grep -qx "$release" &&
		echo "ok - $tag: booted $release" ||
		echo "not ok - $tag: booted $release (qemu exit $rc, see $vm/console.log)"
	printf '# initramfs: %s MiB, built in %.1fs\n' \
		"$(echo "scale=1; $(stat -c %s "$vm/initramfs.cpio") / 1048576" | bc)" "$prep"
	echo "# files from the guest's /out: $files"
	[ "$files" != broken ] &&
		echo "ok - $tag: files from /out arrive intact" ||
		echo "not ok - $tag: files from /out arrive intact (see $vm/files.b64)"
	[ "$mode" != demo ] && cat "$vm/out.log"
	grep -qx 'SECMAP-VM-DONE' "$vm/out.log" &&
		echo "ok - $tag: VM finished within ${TIMEOUT}s" ||
		echo "not ok - $tag: VM did not finish (timeout or crash, qemu exit $rc)"
	if [ "$mode" = test ]; then
		bash "$top/selftests/secmap/perf_host_check.sh" "$tag" "$vm/out"
		# record_test.sh's recordings against sysfs, readelf and perf's samples.
		python3 "$top/scripts/check-recording.py" "$vm/out" "$build/kernels/$tag" "$tag" \
			"$build/guest/secmap" 2>"$vm/check-recording.err" || [ $? -eq 3 ] ||
			echo "not ok - $tag: recording checker finished (see $vm/check-recording.err)"
		# The resolver against the kernel's own addresses and perf's tracepoints.
		python3 "$top/scripts/check-resolution.py" "$vm/out" "$build/kernels/$tag" "$tag" \
			"$build/guest/secmap" 2>"$vm/check-resolution.err" || [ $? -eq 3 ] ||
			echo "not ok - $tag: resolution checker finished (see $vm/check-resolution.err)"
	fi
	# lockdep, DEBUG_ATOMIC_SLEEP and DEBUG_LIST report as WARNING: or BUG:;
	# kmemleak's own lines come from vm-init.sh's scans (results.tap).
	bad=$(grep -nE 'Oops|BUG:|WARNING:|KASAN|Call Trace|general protection|kernel BUG|UBSAN|unreferenced object' \
		"$vm/console.log" | head -n 5 || true)
	if [ -z "$bad" ]; then
		echo "ok - $tag: console free of oops/BUG/WARN/KASAN"
	else
		echo "not ok - $tag: console shows a kernel problem:"
		sed 's/^/#   /' <<<"$bad"
	fi
} >"$tap"
if [ "$mode" = bench ]; then
	grep -E '^bench[ :]' "$vm/out.log"
	python3 "$top/scripts/bench-recording.py" "$vm/out/"bench-*.data
	grep '^not ok' "$tap" && exit 1
fi
if [ "$mode" = demo ]; then
	grep -vx 'SECMAP-VM-DONE' "$vm/out.log"
	grep '^not ok' "$tap" && exit 1
fi
exit 0
