# SPDX-License-Identifier: GPL-2.0
# Sourced by the tests that run the real perf: $host_perf, or $sid_perf
# inside the sid build root $sid_root, in the directory $tmp (under the sid
# root when sid's perf is to see it).
# perf_in WHICH ARGS...: WHICH (host or sid) perf, run in $tmp. sid's runs
# chrooted in a private mount namespace with /proc and /sys of its own
# (perf 7 finds software events through sysfs): nothing is mounted for the
# rest of the system, and the mounts go with the namespace.
# With perf_in_pidns=1, in a PID namespace too, but not to record (perf
# would see every other process as pid 0): perf 7 enters the mount
# namespace of a recorded process to read its files, which by this host's
# /proc is one of this host's, where a file under the chroot (a module
# object in a build-id cache there) is not found.
perf_in() {
	local which=$1 pidns=

	shift
	[ "${perf_in_pidns:-}" = 1 ] && [ "$1" != record ] && pidns=--pid
	if [ "$which" = host ]; then
		(cd "$tmp" && exec "$host_perf" "$@")
	else
		# shellcheck disable=SC2086 # no option is no word
		unshare --mount $pidns --fork sh -c 'root=$1; dir=$2; shift 2
			mount --rbind /sys "$root/sys" && mount -t proc proc "$root/proc" &&
			exec chroot "$root" sh -c "cd \"\$0\" && exec \"\$@\"" "$dir" "$@"' \
			sh "$sid_root" "${tmp#"$sid_root"}" "$sid_perf" "$@"
	fi
}

