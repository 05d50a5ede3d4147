#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Inputs of n items that a quadratic path would take n^2 steps over, each with
the answers secmap must give, computed here from the input alone; and a timer.

  complexity.py user-maps BASE.data OUT.data EXPECTED N overlap|spread
      one process of N file maps (all over one address, remapped in turn,
      or side by side) and 2N user samples in it
  complexity.py comms BASE.data OUT.data EXPECTED N
      one thread renamed N times (COMM), a sample after each
  complexity.py tids BASE.data OUT.data EXPECTED N
      N threads whose ids collided in the old tid hash, one COMM and one
      sample each
  complexity.py no-rounds BASE.data OUT.data N
      N user samples out of time order and no FINISHED_ROUND
  complexity.py sections OUT.rec QUERIES N
      a recording of one module load with N sections
  complexity.py reloads OUT.rec QUERIES N
      a recording of one module loaded and unloaded N times at one address
  complexity.py resyncs OUT.rec QUERIES N
      a recording of N module loads, each unloaded, then a LOST resync
  complexity.py overlaps OUT.rec QUERIES N
      a recording of N modules valid at once over one range, and one beside
  complexity.py check EXPECTED SCRIPT_OUTPUT
      every sample's dso or comm as expected (secmap script's lines)
  complexity.py check-resolve QUERIES RESOLVE_OUTPUT
      every address answered by the module and section expected, or none
  complexity.py cost CMD...
      the least CPU seconds and peak RSS (KiB) of three runs of CMD
"""
import os
import resource
import struct
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fake_modules as fm  # noqa: E402

PID = 4000001
USER = 2	# PERF_RECORD_MISC_USER
US = 1000 * 1000	# between records: script prints microseconds; and room for half


def start_time(pd):
    return (pd.max_time() // US + 1000) * US


def mmap_rec(pd, pid, start, length, name, t):
    body = struct.pack("<IIQQQ", pid, pid, start, length, 0) + fm.pad8(name + b"\0")
    body += pd.trailer(t)
    return struct.pack("<IHH", 1, USER, 8 + len(body)) + body


def comm_rec(pd, pid, tid, comm, t):
    body = struct.pack("<II", pid, tid) + fm.pad8(comm + b"\0") + pd.trailer(t)
    return struct.pack("<IHH", 3, 0, 8 + len(body)) + body


class Samples:
    """User samples made from the perf.data's first kernel sample."""

    def __init__(self, pd):
        self.pd = pd
        self.tmpl = pd.template_sample()
        self.offs, self.fixed = pd.sample_fields()
        if "tid" not in self.offs or "time" not in self.offs:
            raise SystemExit("perf.data samples without tid or time")
        if pd.sample_type & (1 << 5):
            raise SystemExit("perf.data with callchains: record the base without -g")

    def sample(self, pid, tid, ip, t):
        r = bytearray(self.tmpl)
        struct.pack_into("<H", r, 4, (struct.unpack_from("<H", r, 4)[0] & ~7) | USER)
        struct.pack_into("<Q", r, self.offs["ip"], ip)
        struct.pack_into("<ii", r, self.offs["tid"], pid, tid)
        struct.pack_into("<Q", r, self.offs["time"], t)
        return bytes(r)


def write_expected(path, rows):
    with open(path, "w") as f:
        for t, ip, want in rows:
            f.write(f"{t} {ip:x} {want}\n")


def user_maps(base, out, expected, n, how):
    pd = fm.PerfData(base)
    smp = Samples(pd)
    t0 = start_time(pd)
    n = int(n)
    recs, rows = bytearray(), []
    maps = []	# (time, start, end, name), in time order
    for i in range(n):
        t = t0 + US * i
        start = 0x400000 if how == "overlap" else 0x400000 + 0x2000 * i
        name = b"/usr/lib/cx-%d.so" % i
        maps.append((t, start, start + 0x1000, name))
        recs += mmap_rec(pd, PID, start, 0x1000, name, t)
    for i in range(2 * n):
        # Each sample falls after some map (at an odd time between two) and
        # asks for an address of a map made at or before it, or after it.
        k = (i * 7919) % n
        t = t0 + US * k + US // 2
        # spread: map j alone holds its addresses, even before it is made
        # (perf too finds the first map there); overlap: the last one made.
        j = (i * 104729) % n if how == "spread" else k
        ip = maps[j][1] + 0x10 + i % 0x100
        want = maps[j][3]
        recs += smp.sample(PID, PID, ip, t)
        rows.append((t, ip, want.decode()))
    recs += struct.pack("<IHH", 68, 0, 8)
    pd.rewrite(out, b"", bytes(recs))
    write_expected(expected, rows)


def comms(base, out, expected, n):
    pd = fm.PerfData(base)
    smp = Samples(pd)
    t0 = start_time(pd)
    n = int(n)
    recs, rows = bytearray(), []
    recs += mmap_rec(pd, PID, 0x400000, 0x1000, b"/usr/bin/cx", t0)
    for i in range(n):
        recs += comm_rec(pd, PID, PID, b"cx%d" % i, t0 + US * (i + 1))
    for i in range(n):
        k = (i * 7919) % n
        t = t0 + US * (k + 1) + US // 2
        recs += smp.sample(PID, PID, 0x400010, t)
        rows.append((t, 0x400010, "cx%d" % k))
    recs += struct.pack("<IHH", 68, 0, 8)
    pd.rewrite(out, b"", bytes(recs))
    write_expected(expected, rows)


def tids(base, out, expected, n):
    """Thread ids that are multiples of 2^16, all positive below 32768 of
    them: the old hash (id * odd, its low bits) put them all in one chain
    in a table of 2^16 slots or fewer."""
    pd = fm.PerfData(base)
    smp = Samples(pd)
    t0 = start_time(pd)
    n = int(n)
    shift = 16
    if n >= 1 << 15:
        raise SystemExit("tids: at most 32767")
    recs, rows = bytearray(), []
    recs += mmap_rec(pd, PID, 0x400000, 0x1000, b"/usr/bin/cx", t0)
    for i in range(n):
        tid = (i + 1) << shift
        recs += comm_rec(pd, PID, tid, b"t%d" % i, t0 + US * (i + 1))
    for i in range(n):
        tid = (i + 1) << shift
        t = t0 + US * (n + 1 + i)
        recs += smp.sample(PID, tid, 0x400010, t)
        rows.append((t, 0x400010, "t%d" % i))
    recs += struct.pack("<IHH", 68, 0, 8)
    pd.rewrite(out, b"", bytes(recs))
    write_expected(expected, rows)


def no_rounds(base, out, n):
    """N user samples and no FINISHED_ROUND (the base file's own removed):
    each block of 1000 in falling time, blocks in rising time."""
    pd = fm.PerfData(base)
    smp = Samples(pd)
    t0 = start_time(pd)
    n = int(n)
    recs = bytearray(mmap_rec(pd, PID, 0x400000, 0x1000, b"/usr/bin/cx", t0))
    for i in range(n):
        block, k = divmod(i, 1000)
        recs += smp.sample(PID, PID, 0x400010, t0 + US * (1000 * block + 999 - k + 1))
    pd.rewrite(out, b"", bytes(recs), drop=(68,))


def header():
    return struct.pack("<8sHHIQ40x", b"SECMAPv1", 1, 0, 64, 0) + fm.kernel_rec() + \
        fm.resync_rec(0, 0, 1)


def sections(out, queries, n):
    """Each section 16 bytes after the last; the queries ask for one address
    in each, answered by that section (no .ko: no symbols)."""
    n = int(n)
    base = 0xffffffffc1000000
    recs = [fm.map_rec(fm.F_EXEC, 1000, base + 16 * i, 16, 0, 1, ".text.s%d" % i, "cx_mod",
                       b"\x11" * 20) for i in range(n)]
    with open(out, "wb") as f:
        f.write(header() + b"".join(recs) + fm.finished_rec(10 ** 9))
    with open(queries, "w") as f:
        for i in range(n):
            f.write("%#x@%d cx_mod .text.s%d\n" % (base + 16 * ((i * 7919) % n) + 3, 2000,
                                                   (i * 7919) % n))


def reloads(out, queries, n):
    """Life i from 1000 + 100 i to + 50; a query inside each life (answered by
    it) and one in the gap after it (answered by none)."""
    n = int(n)
    addr = 0xffffffffc1000000
    recs = []
    for i in range(n):
        t = 1000 + 100 * i
        recs.append(fm.map_rec(fm.F_EXEC, t, addr, 0x1000, 0, i + 1, ".text", "cx_mod",
                               b"\x22" * 20))
        recs.append(fm.unmap_rec(0, t + 50, i + 1, "cx_mod", b"\x22" * 20))
    with open(out, "wb") as f:
        f.write(header() + b"".join(recs) + fm.finished_rec(1000 + 100 * n + 10))
    with open(queries, "w") as f:
        for i in range(n):
            k = (i * 7919) % n
            f.write("%#x@%d cx_mod .text\n" % (addr + 0x10, 1000 + 100 * k + 25))
            f.write("%#x@%d -\n" % (addr + 0x10, 1000 + 100 * k + 75))


def resyncs(out, queries, n):
    """Module i loaded at 1000 + 100 i for 50, then a LOST resync (an empty
    snapshot) at + 60; a query inside each life."""
    n = int(n)
    addr = 0xffffffffc1000000
    recs = []
    for i in range(n):
        t = 1000 + 100 * i
        mod = "cx_%d" % i
        recs.append(fm.map_rec(fm.F_EXEC, t, addr + 0x1000 * (i % 4096), 0x1000, 0, i + 1,
                               ".text", mod, b""))
        recs.append(fm.unmap_rec(0, t + 50, i + 1, mod, b""))
        recs.append(fm.rec(3, struct.pack("<IIQQQQQII", 2, 1, t + 60, t + 60, 1, t + 55,
                                          t + 55, 0, 0)))
    with open(out, "wb") as f:
        f.write(header() + b"".join(recs) + fm.finished_rec(1000 + 100 * n + 10))
    with open(queries, "w") as f:
        for i in range(n):
            k = (i * 7919) % n
            f.write("%#x@%d cx_%d .text\n" % (addr + 0x1000 * (k % 4096) + 0x10,
                                              1000 + 100 * k + 25, k))


def overlaps(out, queries, n):
    """N modules loaded in turn at one range (1000 + 10 i), none unloaded, and
    one loaded first beside them in the same page: a query in the shared
    range is the last loaded by then; one beside it passes all N, which hold
    that page but not the address, to the first."""
    n = int(n)
    addr = 0xffffffffc1000000
    recs = [fm.map_rec(fm.F_EXEC, 500, addr + 0x800, 0x100, 0, 1, ".text", "cx_first",
                       b"")]
    for i in range(n):
        recs.append(fm.map_rec(fm.F_EXEC, 1000 + 10 * i, addr, 0x100, 0, i + 2, ".text",
                               "cx_%d" % i, b""))
    with open(out, "wb") as f:
        f.write(header() + b"".join(recs) + fm.finished_rec(1000 + 10 * n + 10))
    with open(queries, "w") as f:
        for i in range(n):
            k = (i * 7919) % n
            f.write("%#x@%d cx_%d .text\n" % (addr + 0x10, 1000 + 10 * k + 5, k))
            f.write("%#x@%d cx_first .text\n" % (addr + 0x810, 1000 + 10 * k + 5))


def check(expected, output):
    """secmap script: "comm pid/tid time: ...: ip sym (dso)", matched by time
    and ip; each expected sample once."""
    want = {}
    for line in open(expected):
        t, ip, name = line.split()
        want[(int(t), int(ip, 16))] = name
    got = bad = 0
    for line in open(output):
        f = line.split()
        if len(f) < 4 or not f[2].endswith(":"):
            continue
        secs, _, frac = f[2].rstrip(":").partition(".")
        t = int(secs) * 10 ** 9 + int(frac.ljust(9, "0"))
        try:
            key = (t, int(f[-3], 16))
        except ValueError:
            continue
        if key not in want:
            continue
        got += 1
        name = want.pop(key)
        if name not in (f[0], f[-1].strip("()")):
            bad += 1
            if bad <= 3:
                print(f"# at {t}: want {name}, got: {line.strip()}")
    print(f"# {got - bad} of {got + len(want)} samples as expected")
    return 0 if not want and not bad else 1


def check_resolve(queries, output):
    """secmap resolve: "ADDR@TIME module section+off ..." or "ADDR@TIME [unknown]",
    a line for each query, in order."""
    want = [line.split(None, 1) for line in open(queries)]
    got = [line.split() for line in open(output)]
    bad = 0
    for (q, exp), g in zip(want, got):
        exp = exp.split()
        ok = g[0] == q and (g[1] == "[unknown]" if exp == ["-"] else
                            len(g) > 2 and g[1] == exp[0] and g[2].split("+")[0] == exp[1])
        if not ok:
            bad += 1
            if bad <= 3:
                print(f"# {q}: want {' '.join(exp)}, got: {' '.join(g)}")
    print(f"# {len(want) - bad} of {len(want)} addresses as expected ({len(got)} answers)")
    return 0 if not bad and len(got) == len(want) else 1


def cost(cmd):
    best, rss = None, 0
    for _ in range(3):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if p.returncode not in (0, 7):
            raise SystemExit(f"{cmd[0]} exited {p.returncode}")
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        best = cpu if best is None else min(best, cpu)
        rss = max(rss, after.ru_maxrss)
    print(f"{best:.3f} {rss}")
    return 0


def main():
    a = sys.argv[1:]
    if len(a) == 6 and a[0] == "user-maps":
        return user_maps(*a[1:])
    if len(a) == 4 and a[0] == "no-rounds":
        return no_rounds(*a[1:])
    if len(a) == 5 and a[0] in ("comms", "tids"):
        return {"comms": comms, "tids": tids}[a[0]](*a[1:])
    if len(a) == 4 and a[0] in ("sections", "reloads", "resyncs", "overlaps"):
        return {"sections": sections, "reloads": reloads, "resyncs": resyncs,
                "overlaps": overlaps}[a[0]](*a[1:])
    if len(a) == 3 and a[0] == "check":
        return check(a[1], a[2])
    if len(a) == 3 and a[0] == "check-resolve":
        return check_resolve(a[1], a[2])
    if len(a) >= 2 and a[0] == "cost":
        return cost(a[1:])
    raise SystemExit(__doc__)


if __name__ == "__main__":
    sys.exit(main() or 0)
