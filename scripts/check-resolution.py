#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Ground truth for the resolver and for stock perf after secmap inject:
every sample perf took inside the test module secmap_test_burn
(selftests/secmap/record_test.sh) must resolve to the function that ran,
in each executable section and each of its three lives (loaded before the
recording, during it, and again elsewhere after another module took the
old range).

The expected function of a sample comes without secmap: the module's
section addresses from /sys/module/secmap_test_burn/sections captured in
each life, its function symbols from readelf -s of the .ko, and each life's
time span from perf's module:module_load and module:module_free
tracepoints. The answers checked, each at >= 99% per life and section:
  - `secmap script` run here, offline, on the perf.data the VM sent, with
    nothing but that file and the archive `secmap archive` made of it,
    unpacked into an empty HOME;
  - stock perf (6.1) in the VM, online, on the perf.data `secmap record
    --inject` rewrote, and on what `perf inject -b` made of that;
  - stock perf here, offline, 6.1 and sid's 7.x, from nothing but the
    perf.data and the archive unpacked into an empty build-id cache.
Stock perf's attribution of the file perf wrote (perf script in the VM,
live kallsyms, the .ko where perf looks) is printed beside. Prints TAP.

    check-resolution.py OUTDIR KO_DIR TAG SECMAP
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import readelf_facts  # noqa: E402

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


def expected_names(section, off):
    idx = elf_sections[section][0]
    return {name for value, size, name in funcs.get(idx, []) if value <= off < value + size}


elf_sections = readelf_facts.sections(os.path.join(ko_dir, f"{MOD}.ko"))
funcs = readelf_facts.functions(os.path.join(ko_dir, f"{MOD}.ko"))

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
        # From the last life's end: the load itself begins before its
        # module_load tracepoint, with the parameters' callbacks (burn=N).
        lives.append({"name": ["before", "during", "again"][i], "addrs": load_sysfs(phase),
                      "from": frees[i - 1] if i else 0, "loaded": loads[i - 1] if i else 0,
                      "to": frees[i]})


def in_params(t):
    """The life a sample at @t was taken in while that load parsed its parameters, if any."""
    for life in lives:
        if life["from"] <= t < life["loaded"]:
            return life["name"]
    return None


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


CACHE = "/var/cache/secmap"


def run_sid_perf(args, cwd, buildid_dir):
    """sid's perf 7.x in its build root, in mount and PID namespaces of its own (perf 7
    enters the mount namespace of a recorded pid: by this host's /proc, a host process)."""
    root = os.path.join(CACHE, "sid-root")
    perf = open(os.path.join(CACHE, "perf", "sid")).read().strip()
    inner = " ".join("'%s'" % a for a in [perf, "--buildid-dir", buildid_dir] + args)
    cmd = (f"mount -t proc proc {root}/proc && mount --rbind /sys {root}/sys && "
           f"exec chroot {root} sh -c \"cd '{cwd}' && exec {inner}\"")
    return subprocess.run(["unshare", "--mount", "--pid", "--fork", "sh", "-c", cmd],
                          capture_output=True, text=True)


def perf_lines(lines):
    """(time, ip, symbol) of perf script -F event,time,ip,sym lines."""
    for line in lines:
        mt = re.search(r"(\d+)\.(\d{9}):", line)
        mi = re.search(r"\s([0-9a-f]{16})\s+(\S+)", line)
        if mt and mi:
            yield (int(mt.group(1)) * 10**9 + int(mt.group(2)), int(mi.group(1), 16),
                   mi.group(2).rsplit("+0x", 1)[0])


def score(triples):
    """Per (life, section): [samples, right, examples of wrong] of (time, ip, symbol)."""
    out = {}
    for t, ip, sym in triples:
        exp = expected(t, ip)
        if not exp:
            continue
        st = out.setdefault(exp[:2], [0, 0, []])
        st[0] += 1
        if sym in exp[2]:
            st[1] += 1
        elif len(st[2]) < 3:
            st[2].append(f"{t} {ip:x}: got {sym}, want {sorted(exp[2])}")
    return out


def script_samples(text, event="cpu-clock"):
    """(time, [(ip, symbol, dso), ...]) of each `event` sample in perf script's default layout
    (secmap script's; perf script -F event,time,ip,sym,dso): the ip on the sample's line, or,
    with -g, its callchain's frames on the lines below, the sample's own first."""
    head_re = re.compile(r"\s(\d+)\.(\d{9}):\s+(?:\d+\s+)?(\S+):(.*)$")
    frame_re = re.compile(r"^\s*([0-9a-f]+)\s+(\S+)\s+\((\S+)\)$")
    cur = None
    for line in text.splitlines():
        m = head_re.search(line)
        if m:
            if cur and cur[1]:
                yield cur
            cur = None
            if m.group(3) == event:
                cur = (int(m.group(1)) * 10**9 + int(m.group(2)), [])
                f = frame_re.match(m.group(4))
                if f:
                    cur[1].append((int(f.group(1), 16), f.group(2).rsplit("+0x", 1)[0],
                                   f.group(3)))
            continue
        f = frame_re.match(line)
        if cur is not None and f:
            cur[1].append((int(f.group(1), 16), f.group(2).rsplit("+0x", 1)[0], f.group(3)))
    if cur and cur[1]:
        yield cur


def chain_score(samples):
    """Per life: [frames, right, examples of wrong] of the burner's frames in callchains below
    each sample's own (its callers: the parameter callback, init, exit)."""
    out = {}
    for t, frames in samples:
        for ip, sym, dso in frames[1:]:
            exp = expected(t, ip)
            if not exp:
                continue
            st = out.setdefault(exp[0], [0, 0, []])
            st[0] += 1
            if sym in exp[2]:
                st[1] += 1
            elif len(st[2]) < 3:
                st[2].append(f"{t} {ip:x}: got {sym} ({dso}), want {sorted(exp[2])}")
    return out


# secmap and stock perf, offline: the perf.data and its archive, in an empty HOME.
home = tempfile.mkdtemp(prefix="secmap-resolution-home.")
offline = {}
offline_lines = {}
perf_args = ["script", "-i", "gt-perf.data", "-F", "event,time,ip,sym", "--ns", "-G"]
try:
    os.mkdir(os.path.join(home, ".debug"))
    untar = subprocess.run(["tar", "-xJf", os.path.join(outdir, "gt.tar.xz"), "-C",
                            os.path.join(home, ".debug")], capture_output=True, text=True)
    check("the archive unpacks", untar.returncode == 0, untar.stderr)
    script = subprocess.run([secmap, "script", "--ns", "-i", os.path.join(outdir, "gt-perf.data")],
                            capture_output=True, text=True, env=dict(os.environ, HOME=home))
    # The uevent backend's recording of the same run, on the file perf
    # wrote (--strip: nothing of the other recordings' left to fall back on).
    uev_script = None
    if os.path.exists(os.path.join(outdir, "uev.data")):
        stripped = os.path.join(home, "perf-stripped.data")
        r = subprocess.run([secmap, "inject", "--strip", "-i", os.path.join(outdir, "gt-perf.data"),
                            "-o", stripped], capture_output=True, text=True)
        check("secmap inject --strip of the VM's perf.data", r.returncode == 0, r.stderr)
        uev_script = subprocess.run([secmap, "script", "--ns", "-i", stripped, "-m",
                                     os.path.join(outdir, "uev.data")],
                                    capture_output=True, text=True, env=dict(os.environ, HOME=home))
    host_perf = open(os.path.join(CACHE, "perf", "host")).read().strip()
    r = subprocess.run([host_perf, "--buildid-dir", os.path.join(home, ".debug")] + perf_args,
                       capture_output=True, text=True, cwd=outdir)
    check("perf 6.1 script offline runs", r.returncode == 0, r.stderr)
    offline_lines["perf 6.1 offline"] = list(perf_lines(r.stdout.splitlines()))
    offline["perf 6.1 offline"] = score(offline_lines["perf 6.1 offline"])
    # The callchains (perf record -g): the frames below each sample.
    r = subprocess.run([host_perf, "--buildid-dir", os.path.join(home, ".debug"), "script", "-i",
                        "gt-perf.data", "-F", "event,time,ip,sym,dso", "--ns"],
                       capture_output=True, text=True, cwd=outdir)
    perf_chains = list(script_samples(r.stdout))
    sid_tmp = tempfile.mkdtemp(prefix="secmap-resolution.",
                               dir=os.path.join(CACHE, "sid-root", "tmp"))
    try:
        shutil.copy(os.path.join(outdir, "gt-perf.data"), sid_tmp)
        shutil.copytree(os.path.join(home, ".debug"), os.path.join(sid_tmp, "debug"),
                        symlinks=True)
        inner = sid_tmp[len(os.path.join(CACHE, "sid-root")):]
        r = run_sid_perf(perf_args, inner, inner + "/debug")
        check("perf 7.x script offline runs", r.returncode == 0, r.stderr)
        offline["perf 7.x offline"] = score(perf_lines(r.stdout.splitlines()))
    finally:
        shutil.rmtree(sid_tmp, ignore_errors=True)
finally:
    shutil.rmtree(home, ignore_errors=True)
check("secmap script resolves the VM's perf.data on the host, offline", script.returncode == 0,
      script.stderr)
secmap_samples = list(script_samples(script.stdout))
stats = {}
per_func = {}
for t, frames in secmap_samples:
    ip, sym, dso = frames[0]
    exp = expected(t, ip)
    if not exp:
        continue
    life, sec, names = exp
    st = stats.setdefault((life, sec), {"n": 0, "ok": 0, "perf": 0, "wrong": []})
    st["n"] += 1
    for name in names:
        per_func[name] = per_func.get(name, 0) + 1
    if dso == f"[{MOD}]" and sym in names:
        st["ok"] += 1
    elif len(st["wrong"]) < 3:
        st["wrong"].append(f"{t} {ip:x}: got {sym} ({dso}), want {sorted(names)}")


# Stock perf in the VM: the file perf wrote; after secmap inject, then after perf inject -b.
stock = score(perf_lines(open(os.path.join(outdir, "perf-mod.txt"))))
for key, (n, ok, _) in stock.items():
    if key in stats:
        stats[key]["perf"] = ok
online = {}
for name, label in [("perf-inj.txt", "perf 6.1 in the VM"),
                    ("perf-injb.txt", "perf 6.1 in the VM after perf inject -b")]:
    try:
        online[label] = score(perf_lines(open(os.path.join(outdir, name))))
    except OSError as e:
        check(f"{label}: its samples arrived", False, e)
after = dict(online, **offline)

print(f"# {tag}: {MOD} samples per life and section, % right: secmap (offline); stock perf on "
      f"the file perf wrote (in the VM); stock perf after secmap inject:")
print(f"# {tag}:   {'life':7} {'section':15} {'samples':>7} {'secmap':>7} {'stock':>6}  " +
      " | ".join(after))
for life in ["before", "during", "again"]:
    for sec in SECTIONS:
        st = stats.get((life, sec))
        if not st:
            continue
        figs = [f"{100 * r[1] / r[0]:.1f}% of {r[0]}" if r else "-"
                for r in (res.get((life, sec)) for res in after.values())]
        print(f"# {tag}:   {life:7} {sec:15} {st['n']:7} {100 * st['ok'] / st['n']:6.1f}% "
              f"{100 * st['perf'] / st['n']:5.1f}%  " + " | ".join(figs))
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
# Without secmap.ko (record --source uevent): the same samples, resolved
# from uevents, sysfs and perf's tracepoints. Never a wrong function or
# module: right, or [unknown] where that backend cannot know (init code,
# and without syscall tracepoints what ran before module_load); right
# wherever it knows: the life loaded before the recording (its snapshot),
# exit code, and with the tracepoints all but init code.
def uevent_score(text):
    out = {}
    for t, frames in script_samples(text):
        ip, sym, dso = frames[0]
        exp = expected(t, ip)
        if not exp:
            continue
        st = out.setdefault(exp[:2], {"n": 0, "ok": 0, "wrong": []})
        st["n"] += 1
        if dso == f"[{MOD}]" and sym in exp[2]:
            st["ok"] += 1
        elif sym != "[unknown]" or dso not in ("[unknown]", f"[{MOD}]"):
            # Another function, or another module's section: both wrong.
            st["wrong"].append(f"{t} {ip:x}: got {sym} ({dso}), want {sorted(exp[2])}")
    return out


if uev_script is not None:
    check("secmap script resolves with the uevent backend's recording", uev_script.returncode == 0,
          uev_script.stderr)
    check("secmap script says what the uevent backend's recording cannot know",
          "recorded without the secmap module, from uevents" in uev_script.stderr,
          uev_script.stderr)
    uev = uevent_score(uev_script.stdout)
    print(f"# {tag}: {MOD} samples right with secmap.ko (netlink) and without it (uevent):")
    tot = [0, 0, 0]
    for life in ["before", "during", "again"]:
        for sec in SECTIONS:
            st, us = stats.get((life, sec)), uev.get((life, sec))
            if not st or not us:
                continue
            tot[0] += st["n"]
            tot[1] += st["ok"]
            tot[2] += us["ok"]
            print(f"# {tag}:   {life:7} {sec:15} {st['n']:7} netlink {100 * st['ok'] / st['n']:5.1f}%"
                  f"  uevent {100 * us['ok'] / us['n']:5.1f}% ({len(us['wrong'])} wrong)")
    if tot[0]:
        print(f"# {tag}: all {tot[0]} samples in {MOD}: netlink {100 * tot[1] / tot[0]:.1f}% right, "
              f"uevent {100 * tot[2] / tot[0]:.1f}% right")
    wrong = [w for us in uev.values() for w in us["wrong"]]
    check(f"uevent backend: no sample of {MOD} on a wrong function ({len(wrong)})", not wrong,
          "\n".join(wrong[:10]))
    # With perf's module_load tracepoint (the note says so) and syscall
    # tracepoints (record_test.sh says), a load is known from its
    # finit_module() call: what ran while its parameters were parsed too,
    # all but init code.
    load_trace = "module_load tracepoint" in uev_script.stderr
    syscalls = os.path.exists(os.path.join(outdir, "syscall-tracepoints"))
    check("uevent backend: loads known from the module_load tracepoint", load_trace,
          uev_script.stderr)
    for w in want:
        if not (w[0] == "before" or w[1] == ".exit.text" or
                (load_trace and syscalls and w[1] != ".init.text")):
            continue
        us = uev.get(w, {"n": 0, "ok": 0})
        if stats.get(w, {"n": 0})["n"] < 20:
            continue
        check(f"uevent backend: {w[0]:6} {w[1]:14}: >= 99% of {us['n']} samples on the right "
              f"function", us["n"] and us["ok"] >= GOAL * us["n"], us.get("wrong"))


# perf record -g: the burner's frames in the callchains, below each sample's
# own (the parameter callback, init and exit calling the burning
# functions), per life, by secmap and by stock perf after secmap inject.
# record_test.sh records them on every kernel but the debug one.
if os.path.exists(os.path.join(outdir, "callchains")):
    chains = {"secmap": chain_score(secmap_samples),
              "perf 6.1 offline": chain_score(perf_chains)}
    for life in ["before", "during", "again"]:
        figs = [f"{label} {100 * c[life][1] / c[life][0]:.1f}% of {c[life][0]}" if life in c
                else f"{label} -" for label, c in chains.items()]
        print(f"# {tag}: callchain frames in {MOD}, {life}: " + ", ".join(figs))
    for life in ["before", "during", "again"]:
        n, ok, wrong = chains["secmap"].get(life, [0, 0, []])
        check(f"callchains, {life:6}: >= 99% of {n} frames of {MOD} below the samples on the "
              f"right function (at least 20)", n >= 20 and ok >= GOAL * n, "\n".join(wrong))
        pn, pok, pwrong = chains["perf 6.1 offline"].get(life, [0, 0, []])
        check(f"perf 6.1 offline, callchains, {life:6}: >= 99% of {pn} frames on the right "
              f"function", pn >= GOAL * n and pok >= GOAL * max(pn, 1), "\n".join(pwrong))
else:
    print(f"ok - {tag}: resolution: callchains # SKIP not recorded on this kernel "
          f"(record_test.sh: the debug kernel's VM has no time to spare)")


# The samples the parameter callback (burn=N) took before the module_load
# tracepoint: the load is stamped when the module became COMING.
def param_phase(triples):
    n = ok = 0
    for t, ip, sym in triples:
        exp = expected(t, ip)
        if exp and in_params(t) == exp[0]:
            n += 1
            ok += sym in exp[2]
    return n, ok


secmap_triples = [(t, frames[0][0], frames[0][1]) for t, frames in secmap_samples]
n, ok = param_phase(secmap_triples)
print(f"# {tag}: samples while the loads parsed their parameters: {n}, secmap right {ok}")
check("the parameter callbacks of both loads took at least 20 samples, before module_load",
      n >= 20, n)
check(f"secmap: >= 99% of the {n} samples taken while parameters were parsed on the right "
      f"function", n and ok >= GOAL * n, f"{ok} of {n}")
for label in ["perf 6.1 in the VM", "perf 6.1 offline"]:
    src = os.path.join(outdir, "perf-inj.txt") if "VM" in label else None
    triples = list(perf_lines(open(src))) if src else offline_lines.get(label, [])
    pn, pok = param_phase(triples)
    check(f"{label}: >= 99% of the {pn} samples taken while parameters were parsed on the "
          f"right function", pn >= GOAL * n and pok >= GOAL * max(pn, 1), f"{pok} of {pn}")

# Stock perf after secmap inject: the same goal, on the same samples.
for label, res in after.items():
    for w in want:
        if not stats.get(w) or stats[w]["n"] < 20:
            continue
        n, ok, wrong = res.get(w, [0, 0, []])
        check(f"{label}: {w[0]:6} {w[1]:14}: >= 99% of {n} samples on the right function",
              n >= GOAL * stats[w]["n"] and ok >= GOAL * n,
              f"{n} of the {stats[w]['n']} samples seen\n" + "\n".join(wrong))

# The two reports of the same perf.data, in the VM: the burner's rows.
for name, title in [("perf-report.txt", "perf report --sort dso,sym (the file perf wrote)"),
                    ("perf-report-inj.txt", "perf report --sort dso,sym (after secmap inject)"),
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
