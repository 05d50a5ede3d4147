# SPDX-License-Identifier: GPL-2.0
"""What binutils' readelf says of an ELF object: the independent source the
resolution checks take their expected answers from (never secmap's own
reading). Used by scripts/check-resolution.py and user/tests/fake_modules.py.
"""
import re
import subprocess


def _readelf(option, path):
    return subprocess.run(["readelf", option, path], capture_output=True, text=True,
                          check=True).stdout


def sections(path):
    """{name: (index, size, offset)} from readelf -S."""
    secs = {}
    for m in re.finditer(r"^\s*\[\s*(\d+)\]\s+(\S+)\s+\S+\s+[0-9a-f]+\s+([0-9a-f]+)\s+"
                         r"([0-9a-f]+)", _readelf("-SW", path), re.M):
        secs[m.group(2)] = (int(m.group(1)), int(m.group(4), 16), int(m.group(3), 16))
    return secs


def functions(path):
    """{section index: [(value, size, name)]}: the FUNC symbols from readelf -s."""
    funcs = {}
    for m in re.finditer(r"^\s*\d+:\s+([0-9a-f]+)\s+(\d+)\s+FUNC\s+\S+\s+\S+\s+(\d+)\s+(\S+)$",
                         _readelf("-sW", path), re.M):
        funcs.setdefault(int(m.group(3)), []).append(
            (int(m.group(1), 16), int(m.group(2)), m.group(4)))
    return funcs


def build_id(path):
    """The GNU build-id from readelf -n, as bytes."""
    return bytes.fromhex(re.search(r"Build ID:\s*([0-9a-f]+)", _readelf("-n", path)).group(1))
