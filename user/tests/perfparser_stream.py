#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The samples hotspot would show: decode the stream hotspot's perfparser
writes (hotspot-perfparser --input perf.data --output STREAM) and print one
line per sample, its leaf frame: "TIME_NS ADDR SYMBOL BINARY".

The stream (perfparser's app/perfunwind.cpp, hotspot 1.3): "QPERFSTREAM\\0",
a little-endian int32 (the QDataStream version), then messages: a
little-endian u32 length, then a big-endian QDataStream payload whose first
byte is its type. Those read here:
   3 location: i32 id, u64 address, i32 file, u32 pid, i32 line, i32 column,
     i32 parent location
   4 symbol: i32 location, i32 name, i32 binary, i32 path, u8 is_kernel
   5 string: i32 id, byte array (u32 length, 0xffffffff for none, bytes)
  13 sample: i32 pid, i32 tid, u64 time, u32 cpu, vector of i32 location ids
     (u32 count first; the leaf first), ...
A location's symbol is its own, or its parent's (up the chain).

    perfparser_stream.py STREAM
"""
import struct
import sys


def main():
    data = open(sys.argv[1], "rb").read()
    if not data.startswith(b"QPERFSTREAM\0"):
        sys.exit("not a perfparser stream")
    pos = 16
    strings, locations, symbols, samples = {}, {}, {}, []
    while pos + 4 <= len(data):
        (size,) = struct.unpack_from("<I", data, pos)
        msg = data[pos + 4:pos + 4 + size]
        pos += 4 + size
        kind = msg[0]
        if kind == 5:
            sid, n = struct.unpack_from(">iI", msg, 1)
            strings[sid] = "" if n == 0xffffffff else msg[9:9 + n].decode("utf-8", "replace")
        elif kind == 3:
            lid, addr, _file, _pid, _line, _col, parent = struct.unpack_from(">iQiIiii", msg, 1)
            locations[lid] = (addr, parent)
        elif kind == 4:
            lid, name, binary = struct.unpack_from(">iii", msg, 1)
            symbols[lid] = (name, binary)
        elif kind in (13, 14):
            _pid, _tid, time, _cpu, nr = struct.unpack_from(">iiQII", msg, 1)
            frames = struct.unpack_from(">%di" % nr, msg, 25)
            if frames:
                samples.append((time, frames[0]))
    for time, lid in samples:
        addr = locations.get(lid, (0, -1))[0]
        cur = lid
        while cur not in symbols and cur in locations and locations[cur][1] != cur:
            cur = locations[cur][1]
        name, binary = symbols.get(cur, (-1, -1))
        print(f"{time} {addr:x} {strings.get(name) or '[unknown]'} {strings.get(binary) or '-'}")


if __name__ == "__main__":
    main()
