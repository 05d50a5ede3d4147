#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check that uapi/linux/secmap.h and the YNL spec describe the same family.

Every name and value the spec implies is compiled against the header (so
the C compiler, not a regex, reads the header), and every enumerator the
header declares must come from the spec. Prints TAP.

    scripts/check-spec.py SPEC HEADER_DIR
"""
import os
import re
import subprocess
import sys
import tempfile

import yaml


def c_name(*parts):
    return "".join(parts).upper().replace("-", "_")


def number(out, items, prefix, cnt_name, max_name):
    """Attributes or commands: counted from 0 unless a "value" sets it."""
    value = -1
    for item in items:
        value = item.get("value", value + 1)
        out[c_name(prefix, item["name"])] = value
    out[c_name(cnt_name)] = value + 1
    out[c_name(max_name)] = value


def expected_constants(spec):
    """{C identifier: value} for every constant the spec defines."""
    out = {}
    for d in spec.get("definitions", []):
        if d["type"] == "const":
            out[c_name("secmap-", d["name"])] = d["value"]
            continue
        if d["type"] == "struct":
            continue
        prefix = d.get("name-prefix", "secmap-" + d["name"] + "-")
        for i, entry in enumerate(d["entries"]):
            value = d.get("value-start", 0) + i
            out[c_name(prefix, entry)] = 1 << value if d["type"] == "flags" else value
    for aset in spec["attribute-sets"]:
        number(out, aset["attributes"], aset["name-prefix"], aset["attr-cnt-name"],
               aset["attr-max-name"])
    ops = spec["operations"]
    number(out, ops["list"], ops["name-prefix"], ops["cmd-cnt-name"], ops["cmd-max-name"])
    return out


SIZES = {"u8": 1, "u16": 2, "u32": 4, "u64": 8}


def expected_layouts(spec):
    """{C expression: value}: size and member offsets of every struct, packed in order."""
    out = {}
    for d in spec.get("definitions", []):
        if d["type"] != "struct":
            continue
        struct = "struct " + c_name("secmap-", d["name"]).lower()
        offset = 0
        for m in d["members"]:
            size = SIZES[m["type"]]
            if offset % size:
                raise SystemExit(f"{struct}.{m['name']}: spec leaves a hole before it")
            out[f"offsetof({struct}, {c_name(m['name']).lower()})"] = offset
            offset += size
        out[f"sizeof({struct})"] = offset
    return out


def expected_strings(spec):
    return {
        c_name(spec["c-family-name"]): spec["name"],
        "SECMAP_MCGRP_EVENTS": spec["mcast-groups"]["list"][0]["name"],
    }


def header_enumerators(header):
    """Enumerator names declared in the header's enums, via the preprocessor."""
    text = subprocess.run(["cpp", "-P", header], check=True, capture_output=True,
                          text=True).stdout
    names = []
    for body in re.findall(r"enum\s+\w*\s*\{(.*?)\}", text, re.S):
        for item in body.split(","):
            m = re.match(r"\s*([A-Za-z_]\w*)", item)
            if m:
                names.append(m.group(1))
    return names


def main():
    spec_path, include_dir = sys.argv[1], sys.argv[2]
    with open(spec_path) as f:
        spec = yaml.safe_load(f)
    consts = expected_constants(spec)
    layouts = expected_layouts(spec)
    strings = expected_strings(spec)
    header = os.path.join(include_dir, "linux", "secmap.h")

    prog = ["#include <stddef.h>", "#include <stdio.h>", "#include <string.h>",
            "#include <linux/secmap.h>",
            "int main(void)", "{", "\tint bad = 0;"]
    for name, value in consts.items():
        prog.append(f'\tif ((long long)({name}) != {value}LL) {{ printf("# {name} is %lld, '
                    f'spec says {value}\\n", (long long)({name})); bad = 1; }}')
    for expr, value in layouts.items():
        prog.append(f'\tif ({expr} != {value}) {{ printf("# {expr} is %zu, spec says {value}\\n", '
                    f'(size_t){expr}); bad = 1; }}')
    for name, value in strings.items():
        prog.append(f'\tif (strcmp({name}, "{value}")) {{ printf("# {name} is %s, spec says '
                    f'{value}\\n", {name}); bad = 1; }}')
    prog += ["\treturn bad;", "}"]

    results = []
    with tempfile.TemporaryDirectory() as tmp:
        src, exe = os.path.join(tmp, "t.c"), os.path.join(tmp, "t")
        with open(src, "w") as f:
            f.write("\n".join(prog) + "\n")
        cc = subprocess.run(["cc", "-I", include_dir, "-o", exe, src], capture_output=True,
                            text=True)
        if cc.returncode:
            print("".join("# " + l + "\n" for l in cc.stderr.splitlines()[:20]), end="")
            results.append((False, "every constant of the spec exists in the header"))
        else:
            results.append((True, "every constant of the spec exists in the header"))
            run = subprocess.run([exe], capture_output=True, text=True)
            print(run.stdout, end="")
            results.append((run.returncode == 0, "header values and struct layouts equal the spec's"))

    extra = [n for n in header_enumerators(header) if n not in consts]
    for name in extra:
        print(f"# {name} is in the header but not in the spec")
    results.append((not extra, "every enumerator of the header is in the spec"))

    for ok, desc in results:
        print(f"{'ok' if ok else 'not ok'} - uapi/spec: {desc}")
    return 0 if all(ok for ok, _ in results) else 1


if __name__ == "__main__":
    sys.exit(main())
