#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Compare the call graphs of two `report -g graph` texts of one perf.data:
perf report's and secmap report's. Each row's tree is read back from
perf's layout (branches "|--share--frame", continuations 11 columns in)
into nodes, and compared as a tree: depth, share and frames of every node.
Siblings of one share come in perf's order of its objects' heap addresses,
which nothing in the file decides: within a run of siblings of one share
the order is ignored, every other order must be perf's. A tree that has
no such run must be perf's byte for byte (its pipes and blank lines too).
Rows of one text (perf makes one per map of a dso) are compared as a set.
With --flat, the texts are of `-g flat`: each row's chains (share, then a
frame a line) are compared as a set, their order being perf's by the
samples that ended in each, which the text does not show.
With --named, rows of unknown functions (an address: "0x...", "0000...")
are left out on both sides: with --children, perf 6.1 keys a callchain's
unknown frame by its map-relative address, another row than the sample's.
Prints a summary line; exits 1 on any difference, or on no rows.

    graph_trees.py [--flat] [--named] PERF_TEXT SECMAP_TEXT
"""
import re
import sys

ROW = re.compile(r" +([0-9.]+%)(?: +[0-9]+)?  (.*)$")
BRANCH = re.compile(r"^([ |]*?)[| ]--([0-9.]+%)--(.*)$")
CHAIN = re.compile(r"^( *)---(.*)$")
INDENT = 11     # perf's columns per level of the tree


def blocks(path):
    """Each row's text (share and sort keys, spaces squeezed) and the lines of its trees."""
    out, row = {}, None
    for line in open(path):
        # perf's "[...]" symbol is malloc()ed and never cleared (init_rem_hits(),
        # ui/stdio/hist.c): its inlined flag is whatever the heap held.
        line = line.rstrip("\n").replace("--[...] (inlined)", "--[...]")
        if line.startswith("#"):
            continue
        m = ROW.match(line)
        if m and not line.lstrip().startswith(("|", "-")):
            row = m.group(1) + " " + " ".join(m.group(2).split())
            out.setdefault(row, []).append([])
        elif row is not None and line:
            out[row][-1].append(line)
    return out


def tree(lines):
    """perf's layout back into nodes: [share, frames, children]."""
    root = ["", [], []]
    stack = [(None, root)]      # (column of the node's frames and branches, node)
    for line in lines:
        if not line.strip(" |"):
            continue            # between siblings: pipes only
        m = BRANCH.match(line)
        if m:
            col = len(m.group(1))
            while len(stack) > 1 and stack[-1][0] > col:
                stack.pop()
            if stack[-1][0] is None:
                stack[-1] = (col, root)
            if stack[-1][0] != col:
                raise ValueError("branch at column %d under none: %r" % (col, line))
            node = [m.group(2), [m.group(3)], []]
            stack[-1][1][2].append(node)
            stack.append((col + INDENT, node))
            continue
        m = CHAIN.match(line)
        if m and len(stack) == 1 and not root[2]:
            node = ["", [m.group(2)], []]
            root[2].append(node)
            stack.append((len(m.group(1)) + 3, node))
            continue
        col = len(line) - len(line.lstrip(" |"))
        while len(stack) > 1 and stack[-1][0] > col:
            stack.pop()
        if stack[-1][0] != col:
            raise ValueError("frame at column %d under none: %r" % (col, line))
        stack[-1][1][1].append(line[col:])
    return root


def canon(node):
    """The node as text, each run of siblings of one share sorted; and whether there was such a run."""
    kids, tied = [], False
    for k in node[2]:
        text, tie = canon(k)
        kids.append((k[0], text))
        tied |= tie
    out, i = [], 0
    while i < len(kids):
        j = i
        while j < len(kids) and kids[j][0] == kids[i][0]:
            j += 1
        tied |= j - i > 1
        out += sorted(text for _, text in kids[i:j])
        i = j
    return "(%s %s [%s])" % (node[0], "/".join(node[1]), " ".join(out)), tied


def flat_chains(lines):
    """-g flat's chains of a row: (share, frames...) each, sorted."""
    chains = []
    for line in lines:
        if line.startswith(" " * 16):
            chains[-1].append(line[16:])
        else:
            chains.append([line.strip()])
    return sorted(map(tuple, chains))


def main_flat(perf, ours):
    bad = [row for row in perf
           if sorted(map(flat_chains, perf[row])) != sorted(map(flat_chains, ours.get(row, [])))]
    bad += [row for row in ours if row not in perf]
    chains = sum(len(flat_chains(t)) for trees in perf.values() for t in trees)
    print("# %d rows, %d chains: %d rows differ %s" % (len(perf), chains, len(bad), bad[:2]))
    return 1 if not perf or bad else 0


def named(rows):
    """@rows without those of an unknown function's address."""
    return {row: trees for row, trees in rows.items()
            if not re.search(r" (0x[0-9a-f]+|0{8,}[0-9a-f]*)( |$)", row)}


def main():
    args = sys.argv[1:]
    flat, only_named = "--flat" in args, "--named" in args
    args = [a for a in args if a not in ("--flat", "--named")]
    perf, ours = blocks(args[0]), blocks(args[1])
    if only_named:
        perf, ours = named(perf), named(ours)
    if flat:
        return main_flat(perf, ours)
    same = tied = 0
    bad = []
    for row, trees in perf.items():
        theirs = [canon(tree(t)) for t in trees]
        mine = ours.get(row, [])
        if sorted(c for c, _ in theirs) != sorted(canon(tree(t))[0] for t in mine):
            bad.append(row)
        elif trees == mine:
            same += 1
        elif len(trees) > 1 or any(t for _, t in theirs):
            tied += 1
        else:
            bad.append(row)     # nothing excuses another layout
    bad += [row for row in ours if row not in perf]
    print("# %d rows: %d trees byte for byte, %d the same but for the order of siblings "
          "of one share, %d differ %s" % (len(perf), same, tied, len(bad), bad[:2]))
    return 1 if not perf or bad else 0


if __name__ == "__main__":
    sys.exit(main())
