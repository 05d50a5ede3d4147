#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Ground truth for the resolver: every sample perf took inside the test
module secmap_test_burn (selftests/secmap/record_test.sh) must resolve to
the function that ran, in each executable section and each of its three
lives (loaded before the recording, during it, and again elsewhere after
another module took the old range).

The expected function of a sample comes without secmap: the module's
section addresses from /sys/module/secmap_test_burn/sections captured in
each life, its function symbols from readelf -s of the .ko, and each life's
time span from perf's module:module_load and module:module_free
tracepoints. secmap's answer comes from `secmap script` run here, offline,
on the perf.data the VM sent, with nothing but that file and the archive
`secmap archive` made of it, unpacked into an empty HOME. Stock perf's
attribution of the same samples (perf script in the VM, live kallsyms) is
printed beside. Prints TAP.

    check-resolution.py OUTDIR KO_DIR TAG SECMAP
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

outdir, ko_dir, tag, secmap = sys.argv[1:5]
MOD = "secmap_test_burn"
SECTIONS = [".text", ".text.unlikely", ".noinstr.text", ".init.text", ".exit.text"]
GOAL = 0.99
failed = 0


def check(desc, cond, detail=None):
    global failed
    print(f"{'ok' if cond else 'not ok'} - {tag}: resolution: {desc}")
    if not cond:
        failed += 1
        for line in str(detail or "").splitlines()[:10]:
            print(f"#   {line}")


def load_sysfs(phase):
    secs = {}
    with open(os.path.join(outdir, f"sysfs-{phase}.txt")) as f:
        for line in f:
            mod, sec, addr = line.split()
            if mod == MOD:
                secs[sec] = int(addr, 16)
    return secs


def readelf(ko):
    """Section sizes, and function symbols per section index, from binutils."""
    sections = {}
    out = subprocess.run(["readelf", "-SW", ko], capture_output=True, text=True,
                         check=True).stdout
    for m in re.finditer(r"^\s*\[\s*(\d+)\]\s+(\S+)\s+\S+\s+[0-9a-f]+\s+[0-9a-f]+\s+([0-9a-f]+)",
                         out, re.M):
        sections[m.group(2)] = (int(m.group(1)), int(m.group(3), 16))
    funcs = {}
    out = subprocess.run(["readelf", "-sW", ko], capture_output=True, text=True,
                         check=True).stdout
    for m in re.finditer(r"^\s*\d+:\s+([0-9a-f]+)\s+(\d+)\s+FUNC\s+\S+\s+\S+\s+(\d+)\s+(\S+)$",
                         out, re.M):
        funcs.setdefault(int(m.group(3)), []).append(
            (int(m.group(1), 16), int(m.group(2)), m.group(4)))
    return sections, funcs


def expected_names(section, off):
    idx, _ = elf_sections[section]
    return {name for value, size, name in funcs.get(idx, []) if value <= off < value + size}


elf_sections, funcs = readelf(os.path.join(ko_dir, f"{MOD}.ko"))

# Lives: addresses from sysfs, time spans from perf's tracepoints.
events = []
with open(os.path.join(outdir, "modev.txt")) as f:
    for line in f:
        m = re.search(r"(\d+)\.(\d{9}):\s+module:module_(load|free):\s+(\S+)", line)
        if m and m.group(4) == MOD:
            events.append((int(m.group(1)) * 10**9 + int(m.group(2)), m.group(3)))
loads = [t for t, kind in events if kind == "load"]
frees = [t for t, kind in events if kind == "free"]
check(f"perf saw {MOD} loaded twice and freed three times", len(loads) == 2 and len(frees) == 3,
      events)
lives = []
if len(loads) == 2 and len(frees) == 3:
    for i, phase in enumerate(["before", "burn1", "burn2"]):
        lives.append({"name": ["before", "during", "again"][i], "addrs": load_sysfs(phase),
                      "from": loads[i - 1] if i else 0, "to": frees[i]})


def expected(t, ip):
    """(life name, section, names) for a sample in the burner, else None."""
    for life in lives:
        if not life["from"] <= t <= life["to"]:
            continue
        for sec in SECTIONS:
            if sec not in life["addrs"] or sec not in elf_sections:
                continue
            if sec == ".init.text" and life["name"] == "before":
                continue	# freed before the recording began
            lo = life["addrs"][sec]
            if lo <= ip < lo + elf_sections[sec][1]:
                return life["name"], sec, expected_names(sec, ip - lo)
    return None


# secmap, offline: the perf.data and its archive, in an empty HOME.
home = tempfile.mkdtemp(prefix="secmap-resolution-home.")
try:
    os.mkdir(os.path.join(home, ".debug"))
    untar = subprocess.run(["tar", "-xJf", os.path.join(outdir, "gt.tar.xz"), "-C",
                            os.path.join(home, ".debug")], capture_output=True, text=True)
    check("the archive unpacks", untar.returncode == 0, untar.stderr)
    script = subprocess.run([secmap, "script", "--ns", "-i", os.path.join(outdir, "gt-perf.data")],
                            capture_output=True, text=True, env=dict(os.environ, HOME=home))
finally:
    shutil.rmtree(home, ignore_errors=True)
check("secmap script resolves the VM's perf.data on the host, offline", script.returncode == 0,
      script.stderr)
# "comm tid [cpu] time: period cpu-clock: ip sym+off (dso)"
line_re = re.compile(r"\s(\d+)\.(\d{9}):\s+\d+\s+(\S+):\s+([0-9a-f]+)\s+(\S+)\s+\((\S+)\)$")
stats = {}
per_func = {}
for line in script.stdout.splitlines():
    m = line_re.search(line)
    if not m or m.group(3) != "cpu-clock":
        continue
    t = int(m.group(1)) * 10**9 + int(m.group(2))
    ip = int(m.group(4), 16)
    exp = expected(t, ip)
    if not exp:
        continue
    life, sec, names = exp
    sym = m.group(5).rsplit("+0x", 1)[0]
    st = stats.setdefault((life, sec), {"n": 0, "ok": 0, "perf": 0, "wrong": []})
    st["n"] += 1
    for name in names:
        per_func[name] = per_func.get(name, 0) + 1
    if m.group(6) == f"[{MOD}]" and sym in names:
        st["ok"] += 1
    elif len(st["wrong"]) < 3:
        st["wrong"].append(f"{t} {ip:x}: got {sym} ({m.group(6)}), want {sorted(names)}")

# Stock perf in the VM, same samples: "cpu-clock: time: ip sym" in some order.
for line in open(os.path.join(outdir, "perf-mod.txt")):
    mt = re.search(r"(\d+)\.(\d{9}):", line)
    mi = re.search(r"\s([0-9a-f]{16})\s+(\S+)", line)
    if not mt or not mi:
        continue
    t = int(mt.group(1)) * 10**9 + int(mt.group(2))
    exp = expected(t, int(mi.group(1), 16))
    if exp and exp[:2] in stats:
        sym = mi.group(2).rsplit("+0x", 1)[0]
        if sym in exp[2]:
            stats[exp[:2]]["perf"] += 1

print(f"# {tag}: {MOD} samples per life and section: secmap (offline) vs stock perf (in the VM)")
print(f"# {tag}:   {'life':7} {'section':15} {'samples':>7} {'secmap ok':>10} {'perf ok':>8}")
for life in ["before", "during", "again"]:
    for sec in SECTIONS:
        st = stats.get((life, sec))
        if not st:
            continue
        print(f"# {tag}:   {life:7} {sec:15} {st['n']:7} {100 * st['ok'] / st['n']:9.1f}% "
              f"{100 * st['perf'] / st['n']:7.1f}%")
# Newer kernels' module linker script merges .text.* into .text: a section
# the .ko does not have is not a phase of its own (its function is checked
# within .text, by readelf's symbols).
merged = [sec for sec in SECTIONS if sec not in elf_sections]
if merged:
    print(f"# {tag}: not in this kernel's .ko (merged into .text): {' '.join(merged)}")
want = [(life, sec) for life in ["before", "during", "again"] for sec in SECTIONS
        if not (life == "before" and sec == ".init.text") and sec in elf_sections]
funcs_wanted = ["secmap_burn_text", "secmap_burn_unlikely", "secmap_burn_noinstr",
                "secmap_burn_init_spin", "secmap_burn_exit_spin"]
check("each burning function (one per section in the source) has at least 20 samples",
      all(per_func.get(f, 0) >= 20 for f in funcs_wanted),
      {f: per_func.get(f, 0) for f in funcs_wanted})
missing = [w for w in want if stats.get(w, {"n": 0})["n"] < 20]
check("every life and executable section has at least 20 samples", not missing, missing)
for w in want:
    st = stats.get(w)
    if not st or st["n"] < 20:
        continue
    check(f"{w[0]:6} {w[1]:14}: >= 99% of {st['n']} samples on the right function",
          st["ok"] >= GOAL * st["n"], "\n".join(st["wrong"]))

# The two reports of the same perf.data, in the VM: the burner's rows.
for name, title in [("perf-report.txt", "perf report --sort dso,sym"),
                    ("secmap-report.txt", "secmap report")]:
    print(f"# {tag}: {title}:")
    try:
        for line in open(os.path.join(outdir, name)):
            if MOD in line or line.startswith("# Samples"):
                print(f"# {tag}:   {line.rstrip()}")
    except OSError as e:
        print(f"# {tag}:   ({e})")

# 3: checks failed (the TAP says which); 1 would be the checker crashing.
sys.exit(3 if failed else 0)
