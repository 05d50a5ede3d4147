#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Check the layout "make install DESTDIR=... PREFIX=/usr" produces, that the
# installed header and library build a program, and that "make uninstall"
# removes the files again. TAP on stdout; exit 1 on failure. Needs no root.
#
#   bash scripts/install-test.sh
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
prefix=/usr
. "$top/scripts/tap.sh"

tmp=$(mktemp -d /tmp/secmap-install-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
dest=$tmp/root
log=$tmp/log

version=$(make -s --no-print-directory -C "$top" print-version)
if ! make -C "$top" install DESTDIR="$dest" PREFIX="$prefix" >"$log" 2>&1; then
	sed 's/^/# /' "$log"
	echo "Bail out! make install failed"
	exit 1
fi
check "make install DESTDIR=... PREFIX=$prefix" true

p=$dest$prefix
check "sbin/secmap is executable" test -x "$p/sbin/secmap"
check "lib/libsecmap.so.1" test -f "$p/lib/libsecmap.so.1"
check "lib/libsecmap.so -> libsecmap.so.1" test "$(readlink "$p/lib/libsecmap.so")" = libsecmap.so.1
check "lib/libsecmap.a" test -f "$p/lib/libsecmap.a"
check "include/secmap/secmap.h" cmp -s "$top/user/include/secmap.h" "$p/include/secmap/secmap.h"
for part in "$top"/user/include/secmap/*.h; do
	check "include/secmap/${part##*/}" cmp -s "$part" "$p/include/secmap/${part##*/}"
done
check "include/secmap/linux/secmap.h (uapi)" \
	cmp -s "$top/uapi/linux/secmap.h" "$p/include/secmap/linux/secmap.h"
check "include/secmap/linux/secmap_record.h (uapi)" \
	cmp -s "$top/uapi/linux/secmap_record.h" "$p/include/secmap/linux/secmap_record.h"
# linux-libc-dev owns include/linux/: nothing of ours goes there.
check "nothing in include/linux/ or include/ itself" \
	test -z "$(find "$p/include" -maxdepth 1 ! -type d -print; ls -A "$p/include/linux" 2>/dev/null)"
check "lib/pkgconfig/libsecmap.pc at version $version" \
	env PKG_CONFIG_PATH="$p/lib/pkgconfig" pkg-config --exact-version="$version" libsecmap
for page in secmap secmap-dump secmap-info secmap-monitor; do
	check "share/man/man8/$page.8 is roff" grep -q '^\.TH' "$p/share/man/man8/$page.8"
done
check "bash completion" cmp -s "$top/user/bash-completion/secmap" \
	"$p/share/bash-completion/completions/secmap"
check "soname libsecmap.so.1" sh -c \
	"readelf -d '$p/lib/libsecmap.so.1' | grep -q 'SONAME.*\[libsecmap.so.1\]'"
check "secmap_snapshot_from_sysfs@@LIBSECMAP_1.0 exported" sh -c \
	"readelf --dyn-syms -W '$p/lib/libsecmap.so.1' | grep -q 'secmap_snapshot_from_sysfs@@LIBSECMAP_1.0'"
check "version nodes LIBSECMAP_1.0 to 1.3, no other" sh -c \
	"test \"\$(readelf --dyn-syms -W '$p/lib/libsecmap.so.1' | grep -o '@@LIBSECMAP_[0-9.]*' |
		sort -u | tr '\n' ' ')\" = '@@LIBSECMAP_1.0 @@LIBSECMAP_1.1 @@LIBSECMAP_1.2 @@LIBSECMAP_1.3 '"
check "secmap_perf_data_header@@LIBSECMAP_1.1: a function added after 1.0 in a node of its own" sh -c \
	"readelf --dyn-syms -W '$p/lib/libsecmap.so.1' | grep -q 'secmap_perf_data_header@@LIBSECMAP_1.1'"
check "secmap_uevent_watch_open@@LIBSECMAP_1.2: the uevent backend in the next node" sh -c \
	"readelf --dyn-syms -W '$p/lib/libsecmap.so.1' | grep -q 'secmap_uevent_watch_open@@LIBSECMAP_1.2'"
check "secmap_uevent_watch_load_times@@LIBSECMAP_1.3: added to the uevent backend in a node of its own" sh -c \
	"readelf --dyn-syms -W '$p/lib/libsecmap.so.1' | grep -q 'secmap_uevent_watch_load_times@@LIBSECMAP_1.3'"
check "installed secmap --version" sh -c "'$p/sbin/secmap' --version | grep -q '^secmap v'"

# A consumer built only against the installed files.
cat >"$tmp/prog.c" <<'C'
#include <errno.h>
#include <stdio.h>
#include <secmap/secmap.h>

int main(void)
{
	struct secmap_snapshot *snap = NULL;
	int err = secmap_snapshot_from_sysfs("/nonexistent", &snap);

	printf("# %d %s\n", err, secmap_module_state_name(SECMAP_MODULE_STATE_LIVE));
	return err == -ENOENT && !snap ? 0 : 1;
}
C
check "program builds against installed header and libsecmap.so" \
	"${CC:-cc}" -Wall -Werror -I"$p/include" -o "$tmp/prog" "$tmp/prog.c" -L"$p/lib" -lsecmap
check "and runs" env LD_LIBRARY_PATH="$p/lib" "$tmp/prog"
# The same through pkg-config (its paths moved under DESTDIR), and static.
pc() { PKG_CONFIG_PATH="$p/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$dest" pkg-config "$@" libsecmap; }
check "program builds with pkg-config --cflags --libs libsecmap" \
	sh -c "${CC:-cc} -Wall -Werror $(pc --cflags) -o '$tmp/prog-pc' '$tmp/prog.c' $(pc --libs)"
check "and runs" env LD_LIBRARY_PATH="$p/lib" "$tmp/prog-pc"
check "program links libsecmap.a with pkg-config --static --libs" \
	sh -c "${CC:-cc} -Wall -Werror $(pc --cflags) -o '$tmp/prog-static' '$tmp/prog.c' \
		'$p/lib/libsecmap.a' $(pc --static --libs | sed 's/-lsecmap//')"
check "and runs without libsecmap.so" sh -c "! ldd '$tmp/prog-static' | grep -q libsecmap && '$tmp/prog-static'"
# The example agent, as its comment says to build it (the VMs run it).
agent=$top/Documentation/examples/agent.c
check "Documentation/examples/agent.c is under 150 lines" test "$(wc -l <"$agent")" -lt 150
check "the example agent builds with pkg-config, -Wall -Wextra -Werror" \
	sh -c "${CC:-cc} -Wall -Wextra -Werror -o '$tmp/agent' '$agent' $(pc --cflags --libs)"
# Without secmap.ko: one line, exit 1; with it, the end of its input ends it.
env LD_LIBRARY_PATH="$p/lib" "$tmp/agent" </dev/null >"$tmp/agent.out" 2>"$tmp/agent.err"
rc=$?
if [ -d /sys/module/secmap ]; then
	check "and runs to the end of its input (exit $rc)" test $rc -eq 0
else
	check "and, without secmap.ko, says so in one line and exits 1 ($(cat "$tmp/agent.err"))" \
		sh -c "[ $rc -eq 1 ] && [ \$(wc -l <'$tmp/agent.err') -eq 1 ]"
fi

s=$dest/usr/src/secmap-$version
check "DKMS tree usr/src/secmap-$version/dkms.conf" cmp -s "$top/dkms.conf" "$s/dkms.conf"
check "DKMS tree kmod/ Kbuild, Makefile, sources" sh -c \
	"test -f '$s/kmod/Kbuild' && test -f '$s/kmod/Makefile' && ls '$s'/kmod/*.c '$s'/kmod/*.h >/dev/null"
check "DKMS tree uapi/linux/secmap.h" test -f "$s/uapi/linux/secmap.h"
check "DKMS tree has no build products" test -z \
	"$(find "$s" \( -name '*.o' -o -name '*.ko' -o -name '*.mod*' -o -name '.*.cmd' \) -print)"

if make -C "$top" uninstall DESTDIR="$dest" PREFIX="$prefix" >"$log" 2>&1; then
	check "make uninstall leaves no files" test -z "$(find "$dest" ! -type d -print)"
else
	sed 's/^/# /' "$log"
	check "make uninstall" false
fi

tap_done
