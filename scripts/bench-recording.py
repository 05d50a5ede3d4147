#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make bench: bytes per record type of the recordings record_bench.sh left,
read by the layout in Documentation/secmap-record.rst (not by libsecmap):
a 64-byte file header, then records of {u32 type, u16 misc, u16 size}.

    bench-recording.py FILE...
"""
import struct
import sys

NAMES = {1: "kernel", 2: "kallsyms", 3: "resync", 4: "sec_map", 5: "unmap", 6: "finished"}

for path in sys.argv[1:]:
    data = open(path, "rb").read()
    if data[:8] != b"SECMAPv1":
        print(f"bench record: {path}: not a recording")
        continue
    hdr_size = struct.unpack_from("<I", data, 12)[0]
    off, sizes = hdr_size, {}
    while off + 8 <= len(data):
        rtype, _, size = struct.unpack_from("<IHH", data, off)
        if size < 8:
            break
        n, b = sizes.get(rtype, (0, 0))
        sizes[rtype] = (n + 1, b + size)
        off += size
    n, b = sizes.get(4, (0, 0))
    parts = ", ".join(f"{NAMES.get(t, t)} {c} x {s / c:.0f} B" for t, (c, s) in sorted(sizes.items()))
    print(f"bench record: {path.rsplit('/', 1)[-1]}: {len(data)} bytes; "
          f"{b / n if n else 0:.1f} bytes per recorded section; {parts}")
