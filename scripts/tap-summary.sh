#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Count the top-level TAP results of every file given and print one line,
# "N passed, N failed, N skipped". Exits 1 if anything failed or if no test
# ran at all (an empty run must not look green).
set -euo pipefail
awk '
	/^ok [0-9]* ?.*# [Ss][Kk][Ii][Pp]/ { skipped++; next }
	/^ok( |$)/ { passed++; next }
	/^not ok( |$)/ { failed++; print "FAILED: " FILENAME ": " $0 > "/dev/stderr"; next }
	END {
		printf "%d passed, %d failed, %d skipped\n", passed, failed, skipped
		exit (failed > 0 || passed + failed + skipped == 0) ? 1 : 0
	}
' "$@"
