#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check a VM's recording (selftests/secmap/record_test.sh) against sources
that are not secmap: the /sys/module/*/sections captures taken at each phase,
readelf's section table of the test module's .ko, and the samples perf
recorded in the same run. Prints TAP.

    check-recording.py OUTDIR KO_DIR TAG SECMAP

OUTDIR holds rec.jsonl (secmap show -j of rec.data), perf-script.txt
(perf script -F ip,time --ns -G), sysfs-{before,burn1,burn2}.txt, and
reload.{data,jsonl,tar.xz}: a recording and its `secmap archive`, which is
unpacked here into an empty HOME and must supply every module build the
recording names, as readelf reads their build-ids, to perf and to SECMAP
(the host's CLI).
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

outdir, ko_dir, tag, secmap = sys.argv[1:5]
n = 0
failed = 0


def check(desc, cond, detail=None):
    global n, failed
    n += 1
    if cond:
        print(f"ok - {tag}: recording: {desc}")
    else:
        failed += 1
        print(f"not ok - {tag}: recording: {desc}")
        if detail:
            for line in str(detail).splitlines()[:10]:
                print(f"#   {line}")


def load_sysfs(phase):
    path = os.path.join(outdir, f"sysfs-{phase}.txt")
    mods = {}
    with open(path) as f:
        for line in f:
            mod, sec, addr = line.split()
            mods.setdefault(mod, {})[sec] = int(addr, 16)
    return mods


def readelf_sections(ko):
    """name -> (size, offset, is SHF_ALLOC) from binutils."""
    out = subprocess.run(["readelf", "-SW", ko], capture_output=True, text=True,
                         check=True).stdout
    secs = {}
    for m in re.finditer(r"^\s*\[\s*\d+\]\s+(\S+)\s+\S+\s+[0-9a-f]+\s+([0-9a-f]+)\s+"
                         r"([0-9a-f]+)\s+\S+\s+(\S*)", out, re.M):
        name, off, size, flags = m.group(1), int(m.group(2), 16), int(m.group(3), 16), m.group(4)
        secs[name] = (size, off, "A" in flags)
    return secs


recs = []
with open(os.path.join(outdir, "rec.jsonl")) as f:
    for line in f:
        recs.append(json.loads(line))
types = [r["type"] for r in recs]
check("starts with the kernel's identity", types[:1] == ["kernel"], types[:3])
kernel = recs[0] if recs else {}
check("kernel record has the release and _text's address",
      kernel.get("release") and kernel.get("ref_addr"), kernel)
check("core kernel symbols are included", "kallsyms" in types)
check("ends with a finished record", types[-1:] == ["finished"], types[-3:])

# The start snapshot: the first resync and the maps it announces.
start = next((i for i, r in enumerate(recs) if r["type"] == "resync"), None)
check("a start snapshot follows", start is not None and recs[start]["reason"] == "start")
snap = recs[start + 1:start + 1 + recs[start]["maps"]] if start is not None else []
before = load_sysfs("before")


def mod_maps(maps, mod):
    return {r["section"]: int(r["start"], 16) for r in maps if r["module"] == mod}


def compare(maps_of_mod, sysfs_of_mod):
    """sysfs sections equal the recording's; the recording may add the per-CPU one."""
    extra = set(maps_of_mod) - set(sysfs_of_mod) - {".data..percpu"}
    missing = set(sysfs_of_mod) - set(maps_of_mod)
    wrong = {s for s in sysfs_of_mod if s in maps_of_mod and maps_of_mod[s] != sysfs_of_mod[s]}
    return not (extra or missing or wrong), dict(extra=extra, missing=missing, wrong=wrong)


bad = {}
for mod, secs in before.items():
    ok, why = compare(mod_maps(snap, mod), secs)
    if not ok:
        bad[mod] = why
check(f"start snapshot equals /sys/module/*/sections for all {len(before)} modules",
      not bad and before, bad)
snap_mods = {r["module"] for r in snap}
check("start snapshot has no module sysfs does not show", snap_mods <= set(before),
      snap_mods - set(before))

# Each module's lives (load to unload), from the events (not the snapshot).
events = recs[start + 1 + len(snap):] if start is not None else []
lives_of = {}
for r in events:
    if r["type"] not in ("map", "unmap"):
        continue
    mod_lives = lives_of.setdefault(r["module"], [])
    if r["type"] == "map":
        if not mod_lives or mod_lives[-1]["gone"] is not None:
            mod_lives.append({"maps": {}, "new": r["time_local_ns"], "init_gone": None,
                              "gone": None})
        mod_lives[-1]["maps"][r["section"]] = r
    elif mod_lives:
        if r["init_only"]:
            mod_lives[-1]["init_gone"] = r["time_local_ns"]
        else:
            mod_lives[-1]["gone"] = r["time_local_ns"]
burn = "secmap_test_burn"
lives = lives_of.get(burn, [])
check("the burner module's two loads are recorded, each with init-free and unload",
      len(lives) == 2 and all(l["init_gone"] and l["gone"] for l in lives),
      [(l["new"], l["init_gone"], l["gone"]) for l in lives])
for i, phase in enumerate(["burn1", "burn2"]):
    if i >= len(lives):
        check(f"life {i + 1} recorded", False)
        continue
    sysfs = load_sysfs(phase).get(burn, {})
    maps = {s: int(r["start"], 16) for s, r in lives[i]["maps"].items()}
    ok, why = compare(maps, sysfs)
    check(f"load {i + 1}: maps equal /sys/module/{burn}/sections", ok and sysfs, why)
    check(f"load {i + 1}: times in order (new <= init freed <= gone)",
          lives[i]["new"] <= lives[i]["init_gone"] <= lives[i]["gone"])
if len(lives) == 2:
    check("second load starts after the first is gone", lives[0]["gone"] <= lives[1]["new"])
    t1 = lives[0]["maps"].get(".exit.text")
    t2 = lives[1]["maps"].get(".exit.text")
    print(f"# {tag}: {burn} .exit.text at {t1 and t1['start']} then {t2 and t2['start']}"
          f" (secmap_test_late loaded in between)")
    check("the second load is at another address", t1 and t2 and t1["start"] != t2["start"])
    # The old range reused: what a resolver must tell apart by time.
    lo1 = int(t1["start"], 16) if t1 else 0
    late = [r for r in recs if r["type"] == "map" and r["module"] == "secmap_test_late" and
            r["time_local_ns"] > lives[0]["gone"] and int(r["start"], 16) <= lo1 <
            int(r["start"], 16) + max(r["len"], 1)]
    print(f"# {tag}: the first load's .exit.text address is then inside "
          f"{[(r['module'], r['section']) for r in late] or 'no other module'}")

# .data..percpu is recorded (sysfs does not show it) with readelf's size.
pcpu = [r for r in snap if r["module"] == "secmap_test_sections" and
        r["section"] == ".data..percpu"]
elf_sections = readelf_sections(os.path.join(ko_dir, "secmap_test_sections.ko"))
check(".data..percpu of secmap_test_sections is recorded, flagged percpu, readelf's size",
      len(pcpu) == 1 and "percpu" in pcpu[0]["flags"] and
      (pcpu[0]["len"], pcpu[0]["pgoff"]) == elf_sections.get(".data..percpu", (None, None, None))[:2],
      pcpu)

# Sizes and file offsets against binutils' reading of the same .ko.
elf = readelf_sections(os.path.join(ko_dir, f"{burn}.ko"))
wrong = []
for life in lives:
    for sec, r in life["maps"].items():
        if sec not in elf:
            if sec != ".data..percpu":
                wrong.append((sec, "not in readelf"))
            continue
        size, off, alloc = elf[sec]
        # .symtab/.strtab are not SHF_ALLOC: the kernel maps its own copy of
        # them, which may keep only the symbols it needs.
        if r["pgoff"] != off or (r["len"] != size if alloc else r["len"] > size):
            wrong.append((sec, r["len"], r["pgoff"], elf[sec]))
check("len and pgoff equal readelf's sh_size and sh_offset", lives and not wrong, wrong)

# Event times never go back (one CPU: local_clock is monotonic here).
ev_times = [r["time_local_ns"] for r in recs[start + 1 + len(snap):]
            if r["type"] in ("map", "unmap")] if start is not None else []
check("event records' times are in file order", ev_times == sorted(ev_times))

# perf's samples: every one inside a burner's .init.text range falls within
# the lifetime of an init mapping that covers it; each life has some.
samples = []
with open(os.path.join(outdir, "perf-script.txt")) as f:
    for line in f:
        m = re.search(r"(\d+)\.(\d{9}):\s+([0-9a-f]+)", line)
        if m:
            samples.append((int(m.group(1)) * 10**9 + int(m.group(2)), int(m.group(3), 16)))
check("perf recorded samples", len(samples) > 100, len(samples))
# Every mapping of the events, whichever module and section, with the time
# it held: a range the burner's init left may be taken by another module (on
# 6.1 secmap_test_late's init, on 7.x the burner's own .exit.text next time).
mappings = []
for mod, mod_lives in lives_of.items():
    for life in mod_lives:
        for sec, r in life["maps"].items():
            if not r["len"]:
                continue
            lo = int(r["start"], 16)
            end = (life["init_gone"] if "init" in r["flags"] else None) or life["gone"] \
                or float("inf")
            mappings.append((mod, sec, life, lo, lo + r["len"], life["new"], end))
burn_inits = [m for m in mappings if m[0] == burn and m[1] == ".init.text"]
inside = [0] * len(lives)
stray = []
for t, ip in samples:
    if not any(m[3] <= ip < m[4] for m in burn_inits):
        continue
    valid = [m for m in mappings if m[3] <= ip < m[4] and m[5] <= t <= m[6]]
    for m in valid:
        if m[0] == burn and m[1] == ".init.text":
            inside[lives.index(m[2])] += 1
    if not valid:
        stray.append((t, hex(ip)))
print(f"# {tag}: samples {len(samples)}, in the burner's init per load: {inside}")
check("every sample in a burner's .init.text range is within a mapping valid at its time",
      not stray, stray[:5])
check("each load's init has samples in its mapping's validity",
      lives and all(c > 0 for c in inside), inside)



def note_build_id(path):
    """The GNU build-id as binutils reads it, or None."""
    out = subprocess.run(["readelf", "-n", path], capture_output=True, text=True).stdout
    m = re.search(r"Build ID:\s*([0-9a-f]+)", out)
    return m.group(1) if m else None


# The archive, unpacked into an empty HOME: everything by build-id.
builds = set()
with open(os.path.join(outdir, "reload.jsonl")) as f:
    for line in f:
        r = json.loads(line)
        if r["type"] == "map" and r.get("build_id"):
            builds.add((r["module"], r["build_id"]))
home = tempfile.mkdtemp(prefix="secmap-archive-home.")
try:
    debug = os.path.join(home, ".debug")
    os.mkdir(debug)
    unpacked = subprocess.run(["tar", "-xJf", os.path.join(outdir, "reload.tar.xz"), "-C", debug],
                              capture_output=True, text=True)
    check("the archive unpacks with tar", unpacked.returncode == 0, unpacked.stderr)
    wrong = []
    for mod, bid in sorted(builds):
        elf = os.path.join(debug, ".build-id", bid[:2], bid[2:], "elf")
        got = note_build_id(elf) if os.path.exists(elf) else None
        if got != bid:
            wrong.append((mod, bid, got))
    check(f"~/.debug/.build-id/ holds all {len(builds)} module builds, readelf-matched",
          builds and not wrong, wrong)
    env = dict(os.environ, HOME=home)
    # And secmap finds them there: archiving again, from ~/.debug alone.
    again = subprocess.run([secmap, "archive", "-j", "-m", os.path.join(outdir, "reload.data"),
                            "-o", os.path.join(home, "again.tar.xz")],
                           capture_output=True, text=True, env=env)
    try:
        res = json.loads(again.stdout)
    except ValueError:
        res = {}
    check("secmap finds every module build in the unpacked archive",
          again.returncode == 0 and res.get("packed") == len(builds) and res.get("missing") == 0,
          again.stdout + again.stderr)
    # perf walks its cache with its own code: `buildid-cache --list` shows only
    # entries whose original file is on this machine, so purge it verbosely,
    # which names every entry (path recovered from the link, as perf report
    # does) and fails on a layout it does not expect. Last: it empties the cache.
    perf = open("/var/cache/secmap/perf/host").read().strip() \
        if os.path.exists("/var/cache/secmap/perf/host") else shutil.which("perf")
    purged = subprocess.run([perf, "buildid-cache", "--purge-all", "-v"], capture_output=True,
                            text=True, env=env) if perf else None
    seen = {}
    for m in re.finditer(r"^Removing (\S+) \(([0-9a-f]+)\): Ok$",
                         (purged.stdout + purged.stderr) if purged else "", re.M):
        seen[m.group(2)] = m.group(1)
    wrong = [(mod, bid, seen.get(bid)) for mod, bid in builds
             if not re.search(r"/%s\.ko(\.xz|\.zst|\.gz)?$" % re.escape(mod).replace("_", "[_-]"),
                              seen.get(bid, ""))]
    check("perf's build-id cache code finds every module build under its file's path",
          purged is not None and builds and not wrong, wrong or (purged and purged.stderr))
finally:
    shutil.rmtree(home, ignore_errors=True)

# 3: checks failed (the TAP says which); 1 would be the checker crashing.
sys.exit(3 if failed else 0)
