#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Module samples on a host that cannot load modules, for the perf-maps tests.

    fake_modules.py kos DIR
        Build three fake modules (gcc -c, ld -r --build-id: ET_REL objects like
        a .ko) with functions in .text, .text.unlikely, .init.text, .exit.text.
    fake_modules.py scenario DIR PERF_DATA OUT_PERF_DATA RECORDING EXPECTED [AFTER [TEMPLATE]]
        From a real perf.data of this host: OUT_PERF_DATA with perf's own kind
        of map for the module loaded before the recording (pid -1, its .ko path,
        time 0, after the kernel's map, as perf record writes it) and samples
        of every module function in every life spliced in after perf's records
        (FINISHED_ROUND every 50), later than any of them; RECORDING, the secmap
        recording of those lives, written from Documentation/secmap-record.rst;
        EXPECTED, one line per module sample: "time ip function life section".
        AFTER: a time after every record of PERF_DATA (needed when its samples
        are compressed); TEMPLATE: a perf.data with the same attrs whose
        first kernel sample is copied for the new ones (likewise).
    fake_modules.py recording DIR RECORDING T0
        The recording alone, the lives from T0 (ns) on.
    fake_modules.py check EXPECTED FILE [MIN_PERCENT [SKIP_LIVES]]
        FILE: lines with a time and an address then a symbol, as perf script
        -F time,ip,sym --ns or perfparser_stream.py (FILE named *.pp) print
        them. Per life and section, how many module samples name the
        expected function; fails when, in any life but SKIP_LIVES (a comma-
        separated list), fewer than MIN_PERCENT (100) do, or a sample is
        missing.
    fake_modules.py order PERF_DATA
        The records secmap inject wrote into an uncompressed PERF_DATA: each
        (but those at time 0) comes after every record of perf of an earlier
        time and before any of a later one (a map before one of its time, an
        unmap after). Prints how many; fails on one out of place.

The lives: secmap_fake_a loaded before the recording; secmap_fake_b loaded
during it (init runs, is freed), unloaded; secmap_fake_c loaded into b's old
range; secmap_fake_b loaded again elsewhere and left loaded. Section
addresses are laid out here as the kernel lays out a module (core text
sections one after the other, init text in a region of its own). The
function expected for each sample comes from readelf's symbol table of the
object, not from secmap.
"""
import os
import re
import struct
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
import readelf_facts  # noqa: E402

MODULES = {
    "secmap_fake_a": "a",
    "secmap_fake_b": "b",
    "secmap_fake_c": "c",
}
SECTIONS = [".text", ".text.unlikely", ".init.text", ".exit.text"]
# Samples every SPARSE ms: a smaller file (the fuzzer's seed) with a larger value.
SPARSE = int(os.environ.get("FAKE_MODULES_SPARSE", "1"))
SOURCE = r"""
volatile unsigned long sink;
#define BODY { unsigned long i; for (i = 0; i < 1000; i++) sink += i * 3; }
void fake_%(m)s_text_one(void) BODY
void fake_%(m)s_text_two(void) BODY
static void fake_%(m)s_text_local(void) BODY
void fake_%(m)s_text_three(void) { fake_%(m)s_text_local(); }
__attribute__((section(".text.unlikely"))) void fake_%(m)s_unlikely_one(void) BODY
__attribute__((section(".text.unlikely"))) void fake_%(m)s_unlikely_two(void) BODY
__attribute__((section(".init.text"))) void fake_%(m)s_init_one(void) BODY
__attribute__((section(".init.text"))) int fake_%(m)s_init(void) { fake_%(m)s_init_one(); return 0; }
__attribute__((section(".exit.text"))) void fake_%(m)s_exit(void) BODY
"""


def kos(d):
    os.makedirs(d, exist_ok=True)
    for mod, m in MODULES.items():
        src = os.path.join(d, mod + ".c")
        with open(src, "w") as f:
            f.write(SOURCE % {"m": m})
        obj = os.path.join(d, mod + ".o")
        subprocess.run(["gcc", "-O0", "-c", "-fno-pic", "-mcmodel=kernel", "-o", obj, src],
                       check=True)
        subprocess.run(["ld", "-r", "--build-id=sha1", "-o", os.path.join(d, mod + ".ko"),
                        obj], check=True)


def readelf(ko):
    """Sections {name: (index, size, offset)}, functions {index: [(value, size, name)]}, build-id."""
    return readelf_facts.sections(ko), readelf_facts.functions(ko), readelf_facts.build_id(ko)


def layout(secs, core, init):
    """Section addresses as the kernel would give them: core text packed, init apart."""
    addrs = {}
    for name in [".text", ".text.unlikely", ".exit.text"]:
        if name in secs:
            core = (core + 63) & ~63
            addrs[name] = core
            core += secs[name][1]
    addrs[".init.text"] = init
    return addrs


# --- the recording (Documentation/secmap-record.rst) ---------------------------

def pad8(b):
    return b + b"\0" * (-len(b) % 8)


def rec(rtype, body, *tails):
    payload = body + b"".join(tails)
    return struct.pack("<IHH", rtype, 0, 8 + len(payload)) + payload


def s(text):
    return pad8(text.encode() + b"\0")


def kernel_rec():
    release = "fake-release"
    body = struct.pack("<iIQQQHHB3x", -1, 0, 1, 1, 0, len(release), len("_text"), 0)
    return rec(1, body, s(release), s("_text"))


def resync_rec(nr_maps, nr_modules, t):
    return rec(3, struct.pack("<IIQQQQQII", 1, 1, t, t, 0, 0, 0, nr_maps, nr_modules))


def map_rec(flags, t, start, length, pgoff, seq, section, module, bid):
    body = struct.pack("<iIQQQQQQHHB3x", -1, flags, t, t, start, length, pgoff, seq,
                       len(section), len(module), len(bid))
    return rec(4, body, s(section), s(module), pad8(bid))


def unmap_rec(flags, t, seq, module, bid):
    body = struct.pack("<iIQQQHB5x", -1, flags, t, t, seq, len(module), len(bid))
    return rec(5, body, s(module), pad8(bid))


def finished_rec(t):
    return rec(6, struct.pack("<IIQQQ", 0, 0, t, t, 0))


F_EXEC, F_INIT, F_SNAPSHOT, F_FREED = 1, 4, 16, 32


# --- perf.data ------------------------------------------------------------------

class PerfData:
    def __init__(self, path):
        self.raw = open(path, "rb").read()
        h = self.raw[:104]
        assert h[:8] == b"PERFILE2"
        (self.attr_size, self.attrs_off, self.attrs_size, self.data_off, self.data_size) = \
            struct.unpack_from("<QQQQQ", h, 16)
        self.features = struct.unpack_from("<4Q", h, 72)
        attr = self.raw[self.attrs_off:self.attrs_off + self.attr_size]
        self.sample_type = struct.unpack_from("<Q", attr, 24)[0]
        flags = struct.unpack_from("<Q", attr, 40)[0]
        self.sample_id_all = bool(flags & (1 << 18))
        self.nr_attrs = self.attrs_size // self.attr_size

    def records(self):
        pos, end = self.data_off, self.data_off + self.data_size
        while pos + 8 <= end:
            rtype, misc, size = struct.unpack_from("<IHH", self.raw, pos)
            yield pos, rtype, misc, size
            if size < 8:
                break
            pos += size
            if rtype == 71:	# AUXTRACE: payload after the record
                pos += struct.unpack_from("<Q", self.raw, pos - size + 8)[0]

    def first_id(self):
        """The first sample id of the first event: samples of another file need it."""
        ids_off, ids_size = struct.unpack_from("<QQ", self.raw,
                                               self.attrs_off + self.attr_size - 16)
        return struct.unpack_from("<Q", self.raw, ids_off)[0] if ids_size >= 8 else None

    def sample_fields(self):
        """Byte offsets of ip and time in a sample, and its fixed size."""
        st, pos, offs = self.sample_type, 8, {}
        for bit, name in [(16, "identifier"), (0, "ip"), (1, "tid"), (2, "time"), (3, "addr"),
                          (6, "id"), (9, "stream_id"), (7, "cpu"), (8, "period")]:
            if st & (1 << bit):
                offs[name] = pos
                pos += 8
        return offs, pos

    def trailer(self, time):
        st, out = self.sample_type, b""
        if st & (1 << 1):
            out += struct.pack("<ii", -1, -1)
        if st & (1 << 2):
            out += struct.pack("<Q", time)
        for bit in (6, 9, 7, 16):
            if st & (1 << bit):
                out += struct.pack("<Q", 0)
        return out

    def max_time(self):
        offs, _ = self.sample_fields()
        t = 0
        for pos, rtype, misc, size in self.records():
            if rtype == 9 and "time" in offs:
                t = max(t, struct.unpack_from("<Q", self.raw, pos + offs["time"])[0])
        return t

    def chain_holds_ip(self, pos):
        """Whether the sample at pos has no callchain or one that holds its ip:
        the callchain's copy of the ip is patched with it (seen on a busy
        6.18 host: a kernel sample whose chain lacked its ip, so the spliced
        module samples kept the template's frame)."""
        st = self.sample_type
        if not st & (1 << 5) or st & (1 << 4):
            return True
        offs, fixed = self.sample_fields()
        ip = struct.unpack_from("<Q", self.raw, pos + offs["ip"])[0]
        nr = struct.unpack_from("<Q", self.raw, pos + fixed)[0]
        return ip in struct.unpack_from("<%dQ" % nr, self.raw, pos + fixed + 8)

    def template_sample(self):
        """A kernel sample of event 0 without callchain use: copied, then patched."""
        for want in (lambda m, p: m & 7 == 1 and self.chain_holds_ip(p),
                     lambda m, p: m & 7 == 1, lambda m, p: True):
            for pos, rtype, misc, size in self.records():
                if rtype == 9 and want(misc, pos):
                    return bytearray(self.raw[pos:pos + size])
        raise SystemExit("no sample in the perf.data")

    def rewrite(self, path, insert_after_kernel_map, appended, drop=()):
        """Write with one record after the [kernel.kallsyms] map and records appended to the data,
        records of the types in @drop left out."""
        data = bytearray()
        placed = False
        dropped = 0
        for pos, rtype, misc, size in self.records():
            chunk = self.raw[pos:pos + size]
            if rtype in drop:
                dropped += size
                continue
            data += chunk
            if not placed and rtype in (1, 10) and b"[kernel.kallsyms]" in chunk:
                data += insert_after_kernel_map
                placed = True
        # the AUXTRACE payloads are not expected in these files
        assert len(data) + dropped == self.data_size + \
            (len(insert_after_kernel_map) if placed else 0), \
            "unexpected data layout"
        if not placed:
            raise SystemExit("no [kernel.kallsyms] map in the perf.data")
        data += appended
        delta = len(data) - self.data_size
        old_end = self.data_off + self.data_size
        nr = sum(bin(w).count("1") for w in self.features)
        table = bytearray(self.raw[old_end:old_end + 16 * nr])
        for i in range(nr):
            off, size = struct.unpack_from("<QQ", table, 16 * i)
            struct.pack_into("<QQ", table, 16 * i, off + delta, size)
        assert self.attrs_off + self.attrs_size <= self.data_off, "attrs after the data"
        header = bytearray(self.raw[:104])
        struct.pack_into("<Q", header, 48, len(data))
        out = bytes(header) + self.raw[104:self.data_off] + bytes(data) + bytes(table) + \
            self.raw[old_end + 16 * nr:]
        # ids sections before the data stay where they are
        with open(path, "wb") as f:
            f.write(out)


def lives_and_samples(d, t0, step):
    """The recording of the lives after @t0, and the samples they would take."""
    elf = {mod: readelf(os.path.join(d, mod + ".ko")) for mod in MODULES}
    base = 0xffffffffc1000000
    lives = [  # module, core, init, load time (None: before), init freed, gone (None: stays)
        ("secmap_fake_a", base, None, None, None, None),
        ("secmap_fake_b", base + 0x100000, base + 0x200000, t0 + 100 * step,
         t0 + 200 * step, t0 + 300 * step),
        ("secmap_fake_c", base + 0x100000, base + 0x210000, t0 + 400 * step,
         t0 + 410 * step, None),
        ("secmap_fake_b", base + 0x300000, base + 0x220000, t0 + 500 * step,
         t0 + 600 * step, None),
    ]
    out = b"".join([
        struct.pack("<8sHHIQ40x", b"SECMAPv1", 1, 0, 64, 0),
        kernel_rec(),
    ])
    maps = []
    seq = 0
    samples = []	# (time, ip, function, life, section)
    for n, (mod, core, init, t_load, t_init, t_gone) in enumerate(lives):
        secs, funcs, bid = elf[mod]
        addrs = layout(secs, core, init if init else base + 0x3f0000)
        seq += 1
        if t_load is None:
            recs = [map_rec(F_EXEC | F_SNAPSHOT | (F_INIT | F_FREED if sec == ".init.text" else 0),
                            t0 - step, addrs[sec], secs[sec][1], secs[sec][2], 0, sec, mod, bid)
                    for sec in SECTIONS if sec in secs]
            out += resync_rec(len(recs), 1, t0 - step) + b"".join(recs)
        else:
            maps.append((t_load, b"".join(
                map_rec(F_EXEC | (F_INIT if sec == ".init.text" else 0), t_load, addrs[sec],
                        secs[sec][1], secs[sec][2], seq, sec, mod, bid)
                for sec in SECTIONS if sec in secs)))
            maps.append((t_init, unmap_rec(1, t_init, seq, mod, bid)))
            if t_gone:
                maps.append((t_gone, unmap_rec(0, t_gone, seq, mod, bid)))
        # Samples: each function of each section, while the section is mapped.
        start = t_load if t_load is not None else t0
        for sec in SECTIONS:
            if sec not in secs:
                continue
            if sec == ".init.text":
                if t_load is None:
                    continue	# freed before the recording
                window = (start + step, t_init - step)
            elif sec == ".exit.text" and t_gone:
                window = (t_gone - 20 * step, t_gone - step)
            else:
                first = t_init + step if t_init else start + step
                window = (first, t_gone - 25 * step if t_gone else first + 70 * step if t_init
                          else t0 + 770 * step)
            fl = funcs.get(secs[sec][0], [])
            t = window[0]
            k = 0
            while t < window[1] and fl:
                value, size, name = fl[k % len(fl)]
                ip = addrs[sec] + value + (k * 7) % max(size, 1)
                samples.append((t, ip, name, f"{n}:{mod}", sec))
                k += 1
                t += step * SPARSE + (k % 5) * 1000
    # Events in time order after the start snapshot: the recording's own order.
    for t, blob in sorted(maps, key=lambda x: x[0]):
        out += blob
    out += finished_rec(t0 + 1000 * step)
    return out, samples, base


def recording_only(d, recording, t0):
    out, _, _ = lives_and_samples(d, int(t0), 1000000)
    with open(recording, "wb") as f:
        f.write(out)


def many(recording, loads, names):
    """A recording of @loads loads of @names modules, each with two sections;
    even-numbered modules have no build-id: for archive's bounds."""
    out = [struct.pack("<8sHHIQ40x", b"SECMAPv1", 1, 0, 64, 0), kernel_rec(),
           resync_rec(0, 0, 1)]
    loads, names = int(loads), int(names)
    for i in range(loads):
        m = i % names
        bid = b"" if m % 2 == 0 else struct.pack("<I", m) * 5
        t = 1000 + 10 * i
        for j, sec in enumerate((".text", ".text.unlikely")):
            out.append(map_rec(F_EXEC, t, 0xffffffffc0000000 + 0x10000 * (i % 4096) + 0x1000 * j,
                               0x1000, 0, i + 1, sec, "many_%d" % m, bid))
        out.append(unmap_rec(0, t + 5, i + 1, "many_%d" % m, bid))
    out.append(finished_rec(10 * loads + 2000))
    with open(recording, "wb") as f:
        f.write(b"".join(out))


def forks(perf_in, perf_out, nr_maps, nr_forks):
    """@perf_in with a process of @nr_maps file maps added, then @nr_forks FORK
    records back and forth between it and a second pid: for the bound on
    what forks copy."""
    pd = PerfData(perf_in)
    t = pd.max_time() + 1000
    a, b = 4000001, 4000002
    out = bytearray()
    for i in range(int(nr_maps)):
        name = pad8(b"/usr/lib/fake-%d.so\0" % i)
        body = struct.pack("<IIQQQ", a, a, 0x400000 + 0x10000 * i, 0x1000, 0) + name
        body += pd.trailer(t)
        out += struct.pack("<IHH", 1, 2, 8 + len(body)) + body
    for i in range(int(nr_forks)):
        child, parent = (b, a) if i % 2 == 0 else (a, b)
        body = struct.pack("<IIIIQ", child, parent, child, parent, t + 10 * (i + 1))
        body += pd.trailer(t + 10 * (i + 1))
        out += struct.pack("<IHH", 7, 0, 8 + len(body)) + body
    pd.rewrite(perf_out, b"", bytes(out))


def lost(perf_in, perf_out):
    """@perf_in with two PERF_RECORD_LOST (7 and 5 events) and one LOST_SAMPLES
    (3) records appended."""
    pd = PerfData(perf_in)
    t = pd.max_time() + 1000
    out = bytearray()
    for i, n in enumerate((7, 5)):
        body = struct.pack("<QQ", pd.first_id() or 0, n) + pd.trailer(t + i)
        out += struct.pack("<IHH", 2, 0, 8 + len(body)) + body
    body = struct.pack("<Q", 3) + pd.trailer(t + 2)
    out += struct.pack("<IHH", 13, 0, 8 + len(body)) + body
    pd.rewrite(perf_out, b"", bytes(out))


def legacy(perf_in, recording, perf_out):
    """@perf_in with @recording in feature section 255, where secmap inject put
    it before the trailer: the table's entry for it comes last (the highest
    bit), the other sections move up by it, the recording goes at the end."""
    pd = PerfData(perf_in)
    rec = open(recording, "rb").read()
    assert pd.attrs_off + pd.attrs_size <= pd.data_off, "attrs after the data"
    assert not pd.features[3] >> 63, "feature section 255 taken"
    end = pd.data_off + pd.data_size
    nr = sum(bin(w).count("1") for w in pd.features)
    table = bytearray(pd.raw[end:end + 16 * nr])
    for i in range(nr):
        off, size = struct.unpack_from("<QQ", table, 16 * i)
        struct.pack_into("<QQ", table, 16 * i, off + 16, size)
    sections = pd.raw[end + 16 * nr:]
    table += struct.pack("<QQ", end + len(table) + 16 + len(sections), len(rec))
    header = bytearray(pd.raw[:104])
    struct.pack_into("<Q", header, 72 + 24, pd.features[3] | 1 << 63)
    with open(perf_out, "wb") as f:
        f.write(bytes(header) + pd.raw[104:end] + bytes(table) + sections + rec)


def scenario(d, perf_in, perf_out, recording, expected, after=None, template=None):
    pd = PerfData(perf_in)
    if not pd.sample_id_all or not pd.sample_type & 4:
        raise SystemExit("perf.data without times on every record")
    t0 = max(pd.max_time(), int(after or 0)) + 1000000
    out, samples, base = lives_and_samples(d, t0, 1000000)
    with open(recording, "wb") as f:
        f.write(out)

    # perf's own map of the module loaded before, as perf record writes it (MMAP),
    # with its trailer of zeros.
    fname = pad8(b"/lib/modules/fake-release/extra/secmap_fake_a.ko\0")
    body = struct.pack("<iiQQQ", -1, 0, base, 0x10000, 0) + fname + b"\0" * len(pd.trailer(0))
    perf_map = struct.pack("<IHH", 1, 1, 8 + len(body)) + body
    tmpl = (PerfData(template) if template else pd).template_sample()
    offs, fixed = pd.sample_fields()
    orig_ip = struct.unpack_from("<Q", tmpl, offs["ip"])[0]
    chain = None
    if pd.sample_type & (1 << 5) and not pd.sample_type & (1 << 4):
        nr = struct.unpack_from("<Q", tmpl, fixed)[0]
        entries = struct.unpack_from("<%dQ" % nr, tmpl, fixed + 8)
        if orig_ip not in entries:
            raise SystemExit("no kernel sample whose callchain holds its ip to patch")
        chain = fixed + 8 + 8 * entries.index(orig_ip)
    appended = bytearray()
    samples.sort()
    for i, (t, ip, name, life, sec) in enumerate(samples):
        r = bytearray(tmpl)
        struct.pack_into("<HH", r, 4, (struct.unpack_from("<H", r, 4)[0] & ~7) | 1, len(r))
        struct.pack_into("<Q", r, offs["ip"], ip)
        struct.pack_into("<Q", r, offs["time"], t)
        # The idle task's: perf 7 enters the mount namespace of a sample's
        # process, which in the test's chroot would be one of this host's.
        if "tid" in offs:
            struct.pack_into("<ii", r, offs["tid"], 0, 0)
        for field in ("id", "identifier"):
            if template and field in offs and pd.first_id() is not None:
                struct.pack_into("<Q", r, offs[field], pd.first_id())
        if chain:
            struct.pack_into("<Q", r, chain, ip)
        appended += r
        if i % 50 == 49:
            appended += struct.pack("<IHH", 68, 0, 8)
    appended += struct.pack("<IHH", 68, 0, 8)
    pd.rewrite(perf_out, perf_map, bytes(appended))
    with open(expected, "w") as f:
        for t, ip, name, life, sec in samples:
            f.write(f"{t} {ip:x} {name} {life} {sec}\n")


def check(expected, output, min_percent=100, skip_lives=""):
    """Samples matched by time and address (perf), or by time alone (perfparser
    shows one address per symbol of an object: its first)."""
    by_time = output.endswith(".pp")
    exp = {}
    for line in open(expected):
        t, ip, fn, life, sec = line.split()
        key = (int(t),) if by_time else (int(t), int(ip, 16))
        exp.setdefault(key, []).append((fn, life, sec))
    stats, wrong = {}, []
    for line in open(output):
        m = re.search(r"(\d+)(?:\.(\d{9}))?:?\s+([0-9a-f]{8,16})\s+(\S+)", line)
        if not m:
            continue
        t = int(m.group(1)) * 10**9 + int(m.group(2)) if m.group(2) else int(m.group(1))
        key = (t,) if by_time else (t, int(m.group(3), 16))
        if key not in exp:
            continue
        sym = m.group(4).split("+0x")[0]
        cands = exp[key]
        hit = next((c for c in cands if c[0] == sym), None)
        if by_time and not hit and not any(c[0].startswith("fake_") for c in cands):
            continue
        fn, life, sec = hit or cands[0]
        cands.remove(hit or cands[0])
        if not cands:
            del exp[key]
        st = stats.setdefault((life, sec), [0, 0])
        st[0] += 1
        if hit:
            st[1] += 1
        elif len(wrong) < 5:
            wrong.append(f"{t} {m.group(3)}: {sym}, want {fn} ({life} {sec})")
    bad = False
    for (life, sec), (n, ok) in sorted(stats.items()):
        skipped = life in skip_lives.split(",")
        print(f"#   {life:18} {sec:15} {n:5} samples, {100.0 * ok / n:6.2f}% right"
              f"{' (not counted)' if skipped else ''}")
        bad |= not skipped and ok * 100 < float(min_percent) * n
    for w in wrong:
        print(f"#   {w}")
    if exp:
        print(f"#   {sum(len(v) for v in exp.values())} module samples missing, e.g. "
              f"{next(iter(exp))}")
    return 1 if bad or exp or not stats else 0


def order(path):
    pd = PerfData(path)
    offs, _ = pd.sample_fields()
    tsize = len(pd.trailer(0))
    toff = (8 if pd.sample_type & 2 else 0)
    recs = []	# (time or None, ours: None, "map", "unmap")
    for pos, rtype, misc, size in pd.records():
        raw = pd.raw[pos:pos + size]
        if rtype == 9:
            t = struct.unpack_from("<Q", raw, offs["time"])[0]
        elif rtype < 64 and pd.sample_id_all and size >= 8 + tsize:
            t = struct.unpack_from("<Q", raw, size - tsize + toff)[0]
        else:
            t = None
        ours = None
        if rtype == 10 and b"/.secmap/" in raw:
            ours = "map"
        elif rtype == 17 and raw[24:33] == b"[secmap] ":
            ours = "unmap"
        recs.append((t or None, ours))
    n, latest = 0, 0
    for i, (t, ours) in enumerate(recs):
        if not ours:
            latest = max(latest, t or 0)
            continue
        if t is None:
            continue	# at the start, with perf's own maps
        n += 1
        nxt = next((u for u, o in recs[i + 1:] if u and not o), None)
        early = latest >= t if ours == "map" else latest > t
        late = nxt is not None and (nxt < t if ours == "map" else nxt <= t)
        if early or late:
            print(f"# {ours} at {t} after a record of {latest} or before one of {nxt}")
            return 1
    print(f"# {n} records of secmap's in their place")
    return 0 if n else 1


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "kos":
        kos(sys.argv[2])
    elif len(sys.argv) == 5 and sys.argv[1] == "recording":
        recording_only(*sys.argv[2:])
    elif 7 <= len(sys.argv) <= 9 and sys.argv[1] == "scenario":
        scenario(*sys.argv[2:])
    elif len(sys.argv) in (4, 5, 6) and sys.argv[1] == "check":
        sys.exit(check(*sys.argv[2:]))
    elif len(sys.argv) == 5 and sys.argv[1] == "many":
        many(*sys.argv[2:])
    elif len(sys.argv) == 4 and sys.argv[1] == "lost":
        lost(*sys.argv[2:])
    elif len(sys.argv) == 5 and sys.argv[1] == "legacy":
        legacy(*sys.argv[2:])
    elif len(sys.argv) == 6 and sys.argv[1] == "forks":
        forks(*sys.argv[2:])
    elif len(sys.argv) == 3 and sys.argv[1] == "order":
        sys.exit(order(sys.argv[2]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
