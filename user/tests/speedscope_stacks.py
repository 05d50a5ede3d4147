#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Compare what speedscope made of two perf script texts of one perf.data
(its own exports, by speedscope_export.mjs): perf's and secmap's. Per
thread profile, the time spent in each stack must agree, stacks seen two
ways: kernel and module frames by name, user frames by their file (perf
names user symbols, secmap only their files). speedscope gives a sample
the time to the next one: agreement within a microsecond per stack (user
stacks: within 1% of the time in all).
Prints a summary line, and the first differences; exits 1 on any.

    speedscope_stacks.py PERF_EXPORT.json SECMAP_EXPORT.json
"""
import json
import re
import sys
from collections import defaultdict

JIT_MAP = re.compile(r"/tmp/perf-[0-9]+\.map")


# The kernel's special user mappings, named in brackets like kernel objects
# ([kernel.kallsyms], [module]): perf names symbols in the vDSO, secmap
# only the mapping, as for files.
USER_SPECIAL = {"[unknown]", "[vdso]", "[vdso32]", "[vdsox32]", "[vsyscall]", "[vvar]",
                "[heap]", "[stack]", "[uprobes]"}


def in_kernel(frame):
    dso = frame.get("file", "")
    return dso.startswith("[") and dso not in USER_SPECIAL


def jitted(path):
    """Threads running code a JIT describes in /tmp/perf-PID.map (qemu's TCG):
    perf names it after that file, secmap after the mapping (//anon)."""
    with open(path) as f:
        export = json.load(f)
    frames = export["shared"]["frames"]
    jit = {i for i, f in enumerate(frames) if JIT_MAP.fullmatch(f.get("file", ""))}
    return {p["name"] for p in export["profiles"] if any(e["frame"] in jit for e in p["events"])}


def stacks(path, skip):
    with open(path) as f:
        export = json.load(f)
    frames = export["shared"]["frames"]
    kernel, user = defaultdict(float), defaultdict(float)
    for profile in export["profiles"]:
        if profile["name"] in skip:
            continue
        stack, last = [], None
        for ev in profile["events"]:
            if stack and last is not None and ev["at"] > last:
                fs = [frames[i] for i in stack]
                us = (ev["at"] - last) * 1e6
                kernel[(profile["name"], tuple(f["name"] for f in fs if in_kernel(f)))] += us
                user[(profile["name"], tuple(f["file"] for f in fs if not in_kernel(f)))] += us
            last = ev["at"]
            if ev["type"] == "O":
                stack.append(ev["frame"])
            else:
                stack.pop()
    return kernel, user


def differing(a, b):
    return sorted(k for k in set(a) | set(b) if abs(a.get(k, 0.0) - b.get(k, 0.0)) > 1.0)


skip = jitted(sys.argv[1])
perf_k, perf_u = stacks(sys.argv[1], skip)
ours_k, ours_u = stacks(sys.argv[2], skip)
bad_k, bad_u = differing(perf_k, ours_k), differing(perf_u, ours_u)
print(f"# speedscope: {len(perf_k)} kernel stacks, {len(bad_k)} differ; "
      f"{len(skip)} threads running JIT code left out; "
      f"{len(perf_u)} user stacks, {len(bad_u)} differ; "
      f"{sum(perf_k.values()) / 1e6:.3f} s of samples")
for k in (bad_k + bad_u)[:3]:
    print(f"#   {k[0]}: {' <- '.join(k[1])[:200]}: perf {perf_k.get(k, perf_u.get(k, 0)):.0f} us, "
          f"secmap {ours_k.get(k, ours_u.get(k, 0)):.0f} us")
# perf names a user sample's file by its maps replayed in time order, secmap
# by the latest mapping at the sample's time: 1% leeway there, as for the
# sample lines (report_perf_test.sh).
bad_u_us = sum(abs(perf_u.get(k, 0.0) - ours_u.get(k, 0.0)) for k in bad_u)
sys.exit(1 if bad_k or bad_u_us > 0.01 * sum(perf_u.values()) or not perf_k else 0)
