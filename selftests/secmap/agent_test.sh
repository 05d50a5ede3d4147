#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# In the VM: the example agent (Documentation/examples/agent.c, built
# against the installed libsecmap) follows a module loaded, unloaded and
# loaded again while it runs, and resolves addresses to the function
# /proc/kallsyms names at them: while each load is live, and the first
# load's addresses at a time it was loaded, after it is gone.
mods=/lib/modules/secmap
tmp=/tmp/agent
mkdir -p "$tmp"
. /lib/secmap/tap.sh
# shellcheck source=vm_util.sh
. /lib/secmap/vm_util.sh

agent=/bin/secmap-agent
fn=secmap_burn_text
mod=secmap_test_burn

# ask LINE: write LINE to the agent, wait (20 s) for its answer line.
ask() {
	local before i=0

	before=$(grep -c '^0x' "$tmp/out")
	echo "$1" >&4
	while [ $i -lt 200 ]; do
		[ "$(grep -c '^0x' "$tmp/out")" -gt "$before" ] && break
		sleep 0.1
		i=$((i + 1))
	done
	grep '^0x' "$tmp/out" | tail -n 1
}

# wait_line PATTERN [N]: until the agent printed N (1) lines matching it (20 s).
wait_line() {
	local i=0

	while [ $i -lt 200 ]; do
		[ "$(grep -c "$1" "$tmp/out")" -ge "${2:-1}" ] && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

# The function's address from kallsyms, while loaded.
kallsyms_addr() {
	awk -v f="$fn" -v m="[$mod]" '$3 == f && $4 == m { print $1 }' /proc/kallsyms
}

rmmod $mod 2>/dev/null
rm -f "$tmp/in" "$tmp/out"
mkfifo "$tmp/in"
"$agent" "$mods" <"$tmp/in" >"$tmp/out" 2>"$tmp/err" &
pid=$!
exec 4>"$tmp/in"
if wait_line '^# ready' && wait_subscribed $pid; then
	ok "agent: subscribed and published its first generation"
else
	not_ok "agent: subscribed and published its first generation"
	sed 's/^/# /' "$tmp/err"
fi

insmod $mods/$mod.ko burn_ms=0
a1=$(kallsyms_addr)
wait_line "^# live $mod "
check "agent: saw $mod load and finish init" grep -q "^# load $mod " "$tmp/out"
t1=$(awk -v m="$mod" '$2 == "live" && $3 == m { print $4; exit }' "$tmp/out")
answer=$(ask "$(printf '%x' $((0x$a1 + 4)))")
echo "# $answer"
check "agent: kallsyms' $fn+4 of the live module resolves to $fn+0x4" \
	test "$(echo "$answer" | cut -d' ' -f2,4)" = "$mod $fn+0x4"

rmmod $mod
wait_line "^# gone $mod "
answer=$(ask "$(printf '%x' $((0x$a1 + 4)))")
echo "# $answer"
check "agent: after the unload, the address (at any time) is still the last load's" \
	test "$(echo "$answer" | cut -d' ' -f4)" = "$fn+0x4"

# Another module first, so that the second load is likely elsewhere.
insmod $mods/secmap_test_late.ko
insmod $mods/$mod.ko burn_ms=0
a2=$(kallsyms_addr)
wait_line "^# live $mod " 2
answer=$(ask "$(printf '%x' $((0x$a2 + 8)))")
echo "# $answer (first load at $a1, this one at $a2)"
check "agent: the reload's $fn+8 resolves to $fn+0x8" \
	test "$(echo "$answer" | cut -d' ' -f2,4)" = "$mod $fn+0x8"
answer=$(ask "$(printf '%x %s' $((0x$a1 + 4)) $((t1 + 1)))")
echo "# $answer"
check "agent: the first load's address, at a time it was loaded, is $fn+0x4" \
	test "$(echo "$answer" | cut -d' ' -f2,4)" = "$mod $fn+0x4"

exec 4>&-
wait $pid
check "agent: exits 0 at the end of its input" test $? -eq 0
rmmod $mod secmap_test_late
tap_done
