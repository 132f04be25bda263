#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""madpmd's layers as the linker sees them (docs/architecture.md).

Reads the objects of the PMD's static library with nm: a file calls
another when it uses a symbol the other defines. Checks that no two files
call each other in a circle, that each folder calls only the folders below
it (node < mad < qp < capture < cm < net < chan < ethdev < launcher), and, from
the sources, that every folder of pmd/ is one of those and no file
includes a header of a folder above its own. With the madpmd launcher's
object directory, that no two of its files call each other in a circle
either, and that it includes and calls of pmd/ only node/, the switch
management port (ethdev/hca_mgmt.h) and the PMD's API (rte_pmd_hca_*). With the lib/ source dir and the libraries' object dirs, the same
for lib/ (wire < mad < capture < topo < chan < umad < verbs < rdmacm <
tools). TAP on stdout.
Usage: check_layers.py <librte_net_hca_static.a> <pmd source dir>
                       <madpmd's object dir> <lib source dir>
                       <object dir of a library of lib/>...
"""
import os
import re
import subprocess
import sys

ORDER = ["node", "mad", "qp", "capture", "cm", "net", "chan", "ethdev", "launcher"]
# what the launcher may use of the PMD: the switches it runs (node/), a
# switch's management port (ethdev/hca_mgmt.h) and the PMD's public API
LAUNCHER_USES = {"node"}
LAUNCHER_HEADERS = {"ethdev/hca_mgmt.h"}
LIB_ORDER = ["wire", "mad", "capture", "topo", "chan", "umad", "verbs",
             "rdmacm", "tools"]


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


def folders_known(src, order, others, top):
    """Every folder of src is a layer (or one of others)"""
    extra = sorted(d for d in os.listdir(src)
                   if os.path.isdir(os.path.join(src, d)) and
                   d not in order and d not in others)
    return (not extra, "every folder of %s/ is a layer of its order" % top +
            (": not " + ", ".join(extra) if extra else ""))


def includes_down(src, order, top):
    """No file of a layer includes a header of a layer above it"""
    bad = []
    for d in order:
        path = os.path.join(src, d)
        if not os.path.isdir(path):
            continue
        for name in sorted(os.listdir(path)):
            if not name.endswith((".c", ".h")):
                continue
            text = open(os.path.join(path, name)).read()
            for inc in re.findall(r'#include "(?:\.\./)?(\w+)/', text):
                if inc in order and order.index(inc) > order.index(d):
                    bad.append("%s/%s includes %s/" % (d, name, inc))
    return (not bad, "no file of %s/ includes a header of a layer above "
            "its own" % top + (": " + ", ".join(bad) if bad else ""))


def launcher_seam(src, defs_pmd, objdir):
    """The launcher includes and calls of pmd/ only node/, hca_mgmt.h and
    rte_pmd_hca.h (the ethdev's own API, rte_pmd_hca_* wherever defined)"""
    bad = []
    path = os.path.join(src, "launcher")
    for name in sorted(os.listdir(path)):
        if not name.endswith((".c", ".h")):
            continue
        text = open(os.path.join(path, name)).read()
        for inc in re.findall(r'#include "((\w+)/[\w.]+)"', text):
            if (inc[1] in ORDER and inc[1] not in LAUNCHER_USES and
                    inc[0] not in LAUNCHER_HEADERS):
                bad.append("launcher/%s includes %s" % (name, inc[0]))
    objs = [os.path.join(objdir, o) for o in os.listdir(objdir)
            if o.endswith(".o")]
    _, uses = objects(*objs)
    for o, syms in sorted(uses.items()):
        for sym in sorted(syms):
            d = defs_pmd.get(sym)
            if (d and folder(d) in ORDER and folder(d) not in LAUNCHER_USES
                    and folder(d) != "ethdev" and
                    not sym.startswith("rte_pmd_hca_")):
                bad.append("launcher %s calls %s (%s)" % (o, sym, d))
    return (not bad, "the launcher uses of pmd/ only node/, the management "
            "port and the ethdev's API" + (": " + ", ".join(bad[:8])
                                           if bad else ""))


def main():
    lib, src = sys.argv[1], sys.argv[2]
    defs, uses = objects(lib)
    defs_pmd = defs
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
    ok(*folders_known(src, ORDER, set(), "pmd"))
    ok(*includes_down(src, ORDER, "pmd"))
    objs = sorted(os.path.join(sys.argv[3], o)
                  for o in os.listdir(sys.argv[3]) if o.endswith(".o"))
    defs, uses = objects(*objs)
    edges = calls(defs, uses)
    files = sorted(set(defs.values()) | set(uses))
    cycle = circle(files, edges)
    ok(len(files) >= 10 and not cycle,
       "the launcher's %d files call each other in no circle" % len(files) +
       (": " + " -> ".join(cycle) if cycle else ""))
    ok(*launcher_seam(src, defs_pmd, sys.argv[3]))
    lib_src = sys.argv[4]
    ok(*folders_known(lib_src, LIB_ORDER, {"include"}, "lib"))
    ok(*includes_down(lib_src, LIB_ORDER, "lib"))
    for d in sys.argv[5:]:
        objs = sorted(os.path.join(d, o) for o in os.listdir(d)
                      if o.endswith(".o"))
        defs, uses = objects(*objs)
        edges = calls(defs, uses)
        files = sorted(set(defs.values()) | set(uses))
        cycle = circle(files, edges)
        name = os.path.basename(d.rstrip("/")).split(".")[0]
        ok(len(files) >= 1 and not cycle,
           "%s: its %d files call each other in no circle" %
           (name, len(files)) + (": " + " -> ".join(cycle) if cycle else ""))
    print("1..%d" % n)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
