# SPDX-License-Identifier: GPL-2.0
# TAP output for the shell tests: source this file, report each check with
# check, ok or not_ok, and end with tap_done (plan line; exits, 1 on failure).
n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }
check() {	# check DESCRIPTION COMMAND...
	local desc=$1

	shift
	if "$@"; then ok "$desc"; else not_ok "$desc"; fi
}
tap_done() {	# ends the script: a guard that skips the rest calls it too
	echo "1..$n"
	[ "$failed" -eq 0 ] || { echo "# $failed of $n failed"; exit 1; }
	exit 0
}
