#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""No call circle between the files of lib/ (lib/README.md's layer rule, for calls).

layers.py sees includes; this sees calls: a file "uses" another when its object
file needs a symbol the other defines (nm).  Within a layer the files must
form a hierarchy too: when a check calls its engine's emitter and the engine
calls the checks' table, neither can be read, tested or changed alone.  Every
strongly connected set of two or more files is printed as "circle: a.c <-> b.c
(a uses x, y; b uses z)" and makes the exit status 1.

usage: tests/lint/calls.py OBJ_DIR   (e.g. build/obj: its lib/**/*.o)
"""
import os
import subprocess
import sys


def symbols(obj):
    out = subprocess.run(["nm", obj], capture_output=True, text=True, check=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        f = line.split()
        if len(f) == 3 and f[1] in "TDBRVW":
            defined.add(f[2])
        elif len(f) == 2 and f[0] == "U":
            undefined.add(f[1])
    return defined, undefined


def sccs(graph):
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def main(argv):
    if len(argv) != 2:
        sys.exit(__doc__.strip().splitlines()[-1])
    top = os.path.join(argv[1], "lib")
    objs = []
    for root, _, files in os.walk(top):
        objs += [os.path.join(root, f) for f in files if f.endswith(".o")]
    if not objs:
        sys.exit("calls: no object files under %s (build first)" % top)
    sys.setrecursionlimit(10000)
    defs, needs, owner = {}, {}, {}
    for o in objs:
        name = os.path.relpath(o, argv[1])[:-2] + ".c"
        defs[name], needs[name] = symbols(o)
        for s in defs[name]:
            owner.setdefault(s, name)
    graph = {n: set() for n in defs}
    why = {}
    for n, und in needs.items():
        for s in und:
            m = owner.get(s)
            if m and m != n:
                graph[n].add(m)
                why.setdefault((n, m), []).append(s)
    circles = sccs(graph)
    for comp in circles:
        parts = []
        for a in comp:
            for b in comp:
                if (a, b) in why:
                    parts.append("%s uses %s" % (os.path.basename(a), ", ".join(sorted(why[(a, b)])[:4])))
        print("circle: %s (%s)" % (" <-> ".join(comp), "; ".join(parts)))
    print("calls: %d files, %d circles" % (len(defs), len(circles)))
    return 1 if circles else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
