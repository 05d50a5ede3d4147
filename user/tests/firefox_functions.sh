#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Load a perf script text into the Firefox Profiler (its command-line
# client, @firefox-devtools/profiler-cli, which imports with the
# profiler's own code) and print what it made of the threads with the
# most samples (at most MAX, default 8; each costs a query of a second):
# one line per kernel function, "tid thread function self total", sorted.
# Kernel functions only: perf names user frames by symbol, secmap by file.
#
#   firefox_functions.sh PROFILER_CLI PROFILE_TXT [MAX]
set -euo pipefail

cli=${1:?usage: firefox_functions.sh PROFILER_CLI PROFILE_TXT}
profile=${2:?usage: firefox_functions.sh PROFILER_CLI PROFILE_TXT [MAX]}
max=${3:-8}
# A session of its own, so that a run beside another cannot mix them up.
session=secmap-test-$$

trap 'node "$cli" stop "$session" >/dev/null 2>&1 || :' EXIT
# The client gives its daemon half a second to start, which a loaded
# machine may not: a failed start is tried again, a few times, each in a
# session of its own.
for try in 1 2 3 4 5; do
	node "$cli" load --session "$session" "$profile" >/dev/null 2>"$profile.load.err" && break
	node "$cli" stop "$session" >/dev/null 2>&1 || :
	[ "$try" -lt 5 ] || { cat "$profile.load.err" >&2; exit 1; }
	session=secmap-test-$$-$try
	sleep "$try"
done
rm -f "$profile.load.err"
node "$cli" thread list --session "$session" --json --limit 0 |
	MAX=$max python3 -c 'import json, os, sys
threads = json.load(sys.stdin)["threads"]
threads.sort(key=lambda t: (-t["cpuMs"], t["tid"]))
for t in threads[:int(os.environ["MAX"])]:
    print(t["threadHandle"], t["tid"], t["name"].replace(" ", "_"))' >"$profile.threads"
[ -s "$profile.threads" ] || { echo "firefox_functions: no thread in $profile" >&2; exit 1; }
while read -r handle tid name; do
	node "$cli" thread functions --session "$session" --thread "$handle" --json --limit 0 |
		TID=$tid NAME=$name python3 -c 'import json, os, sys
for f in json.load(sys.stdin)["functions"]:
    if f.get("library") == "[kernel.kallsyms]":
        print(os.environ["TID"], os.environ["NAME"], f["name"], f["selfSamples"], f["totalSamples"])'
done <"$profile.threads" | sort
rm -f "$profile.threads"
