#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""net_hca's layers as the linker sees them (docs/architecture.md).

Reads the objects of the PMD's static library with nm: a file calls
another when it uses a symbol the other defines. Checks that no two files
call each other in a circle, that each folder calls only the folders below
it (node < mad < capture < cm < chan < ethdev), and, from the sources, that no
file includes a header of a folder above its own. With the madpmd
launcher's object directory, that no two of its files call each other in
a circle either. TAP on stdout.
Usage: check_layers.py <librte_net_hca_static.a> <pmd source dir>
                       [<madpmd's object dir>]
"""
import os
import re
import subprocess
import sys

ORDER = ["node", "mad", "capture", "cm", "chan", "ethdev"]


def objects(*paths):
    out = subprocess.run(["nm", "-A", "--defined-only", *paths],
                         capture_output=True, text=True, check=True).stdout
    defs = {}
    for line in out.splitlines():
        m = re.match(r"(?:.*[:/])?([^:/\s]+)\.o:\s*\S+\s+([TDBRC])\s+(\S+)$",
                     line)
        if m:
            defs.setdefault(m.group(3), m.group(1))
    out = subprocess.run(["nm", "-A", "--undefined-only", *paths],
                         capture_output=True, text=True, check=True).stdout
    uses = {}
    for line in out.splitlines():
        m = re.match(r"(?:.*[:/])?([^:/\s]+)\.o:\s*U\s+(\S+)$", line)
        if m:
            uses.setdefault(m.group(1), set()).add(m.group(2))
    return defs, uses


def folder(obj):
    # meson names objects <folder>_<file>.c
    return obj.split("_", 1)[0]


def calls(defs, uses):
    edges = {}
    for o, syms in uses.items():
        for s in syms:
            d = defs.get(s)
            if d and d != o:
                edges.setdefault(o, set()).add(d)
    return edges


def circle(files, edges):
    """A circle of calls as a list of files, or [] (depth-first search
    for a back edge)"""
    state, cycle = {}, []

    def visit(f, path):
        state[f] = 1
        for g in sorted(edges.get(f, ())):
            if state.get(g) == 1:
                cycle.extend(path[path.index(g):] + [g])
                return True
            if not state.get(g) and visit(g, path + [g]):
                return True
        state[f] = 2
        return False

    any(not state.get(f) and visit(f, [f]) for f in files)
    return cycle


def main():
    lib, src = sys.argv[1], sys.argv[2]
    defs, uses = objects(lib)
    edges = calls(defs, uses)
    n = 0
    fails = 0

    def ok(cond, msg):
        nonlocal n, fails
        n += 1
        print(("ok %d - " if cond else "not ok %d - ") % n + msg)
        fails += not cond

    files = sorted(set(defs.values()) | set(uses))
    ok(len(files) >= 10, "%d objects read from %s" % (len(files), os.path.basename(lib)))
    cycle = circle(files, edges)
    ok(not cycle, "no files call each other in a circle" +
       (": " + " -> ".join(cycle) if cycle else ""))
    bad = ["%s -> %s" % (a, b) for a in edges for b in edges[a]
           if folder(a) in ORDER and folder(b) in ORDER and
           ORDER.index(folder(b)) > ORDER.index(folder(a))]
    ok(not bad, "each layer calls only the layers below it" +
       (": " + ", ".join(sorted(bad)) if bad else ""))
    bad = []
    for d in ORDER:
        for name in sorted(os.listdir(os.path.join(src, d))):
            text = open(os.path.join(src, d, name)).read()
            for inc in re.findall(r'#include "\.\./(\w+)/', text):
                if inc in ORDER and ORDER.index(inc) > ORDER.index(d):
                    bad.append("%s/%s includes %s/" % (d, name, inc))
    ok(not bad, "no file includes a header of a layer above its own" +
       (": " + ", ".join(bad) if bad else ""))
    if len(sys.argv) > 3:
        objs = sorted(os.path.join(sys.argv[3], o)
                      for o in os.listdir(sys.argv[3]) if o.endswith(".o"))
        defs, uses = objects(*objs)
        edges = calls(defs, uses)
        files = sorted(set(defs.values()) | set(uses))
        cycle = circle(files, edges)
        ok(len(files) >= 10 and not cycle,
           "the launcher's %d files call each other in no circle" % len(files) +
           (": " + " -> ".join(cycle) if cycle else ""))
    print("1..%d" % n)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
