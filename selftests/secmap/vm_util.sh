# SPDX-License-Identifier: GPL-2.0
# Helpers for the in-VM shell tests (the C tests have vm_util.h): source
# /lib/secmap/vm_util.sh.

# wait_subscribed PID [TENTHS]: wait (20 s by default) until process PID
# holds a generic netlink socket that has joined a multicast group other
# than nlctrl's "notify" (id 16, Groups 00008000, which secmap's family
# watch joins first), as secmap monitor and record do once they listen for
# events. A fixed sleep is not enough under TCG on a loaded host. Fails if
# it never does (or if the group's id is 32 or more: /proc/net/netlink
# shows the first 32), and at once if PID exits (or is a zombie) first.
wait_subscribed() {
	local pid=$1 tenths=${2:-200} i=0 inode

	while [ $i -lt "$tenths" ]; do
		grep -qE '^State:[[:space:]]+[ZX]' "/proc/$pid/status" 2>/dev/null ||
			[ ! -e "/proc/$pid" ] && return 1
		# sk Eth Pid Groups Rmem Wmem Dump Locks Drops Inode; 16: NETLINK_GENERIC.
		for inode in $(awk '$2 == 16 && $4 != "00000000" && $4 != "00008000" { print $10 }' /proc/net/netlink); do
			ls -l "/proc/$pid/fd" 2>/dev/null | grep -qF "socket:[$inode]" && return 0
		done
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

# refused_in_one_line LEVEL ERRFILE STATUS: what secmap says when secmap.ko
# may not load because the kernel is locked down at LEVEL: exit status 3
# ("not loaded") and one line on stderr naming lockdown and the fix.
refused_in_one_line() {
	[ "$3" -eq 3 ] && [ "$(wc -l <"$2")" -eq 1 ] && grep -q "locked down ($1)" "$2" &&
		grep -q mokutil "$2"
}
