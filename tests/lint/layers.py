#!/usr/bin/env python3
"""Include-graph check of the layer rule (lib/README.md).

The layer table in lib/README.md is the rule; this script reads it and checks
every quoted #include of lib/, tools/ (and the white-box tests' headers exist):

  1. every lib source lives in a layer folder the table names;
  2. a layer names as "may include" only layers of lower rank (so the layers
     themselves can never form a circle);
  3. a file includes, from another layer, only that layer's interface header
     "<layer>/<layer>.h", and only of a layer its own layer may include;
  4. inside a layer, files include siblings by bare name; a unit (x.c + x.h)
     never includes its own layer's interface header;
  5. no circle between units (x.c and x.h are one unit) anywhere;
  6. tools include layer interfaces and their own folder (tools/<tool>/) only.

Prints one line per violation; exit 1 if any.  usage: layers.py [ROOT]
"""
import os
import re
import sys

root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..', '..')
os.chdir(root)
problems = []


def bad(path, line, msg):
    problems.append('%s:%d: %s' % (path, line, msg))


# ---- the rule, from lib/README.md: | rank | layer | ... | may include |
rank, allowed = {}, {}
row = re.compile(r'^\|\s*(\d+)\s*\|\s*`?([a-z_]+)/?`?\s*\|.*\|\s*([^|]*)\|\s*$')
with open('lib/README.md') as f:
    for n, text in enumerate(f, 1):
        m = row.match(text)
        if not m:
            continue
        layer = m.group(2)
        rank[layer] = int(m.group(1))
        deps = re.findall(r'[a-z_]+', m.group(3).replace('nothing', ''))
        allowed[layer] = (set(deps), n)
if not rank:
    print('layers: no layer table found in lib/README.md')
    sys.exit(1)
for layer, (deps, n) in allowed.items():
    for d in deps:
        if d not in rank:
            bad('lib/README.md', n, '%s may include unknown layer %s' % (layer, d))
        elif rank[d] >= rank[layer]:
            bad('lib/README.md', n, '%s (rank %d) may include %s (rank %d): only lower ranks' %
                (layer, rank[layer], d, rank[d]))

inc_re = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def includes(path):
    with open(path, errors='replace') as f:
        for n, text in enumerate(f, 1):
            m = inc_re.match(text)
            if m:
                yield n, m.group(1)


def unit(path):
    return os.path.splitext(path)[0]


edges = {}   # unit -> set of units


def edge(src, dst):
    if unit(src) != unit(dst):
        edges.setdefault(unit(src), set()).add(unit(dst))


# ---- lib/
for d in sorted(os.listdir('lib')):
    p = os.path.join('lib', d)
    if os.path.isfile(p) and p.endswith(('.c', '.h')):
        bad(p, 1, 'not in a layer folder (lib/<layer>/)')
    if not os.path.isdir(p):
        continue
    if d not in rank:
        bad(p, 1, 'folder is not a layer of lib/README.md')
        continue
    for fn in sorted(os.listdir(p)):
        if not fn.endswith(('.c', '.h')):
            continue
        path = os.path.join(p, fn)
        for n, h in includes(path):
            if '/' not in h:
                target = os.path.join(p, h)
                if not os.path.exists(target):
                    bad(path, n, '"%s": no such file in lib/%s/ (another layer: "<layer>/<layer>.h")' % (h, d))
                    continue
                if h == d + '.h' and fn != d + '.h' and fn != d + '.c':
                    bad(path, n, 'includes its own layer\'s interface header; include the sibling unit')
                edge(path, target)
                continue
            other, name = h.split('/', 1)
            if other not in rank:
                bad(path, n, '"%s": not a layer' % h)
                continue
            if other == d:
                bad(path, n, '"%s": a sibling is included by bare name ("%s")' % (h, name))
                continue
            if name != other + '.h':
                bad(path, n, '"%s": only the interface header "%s/%s.h" of another layer' % (h, other, other))
            if other not in allowed[d][0]:
                bad(path, n, 'layer %s may not include layer %s (lib/README.md)' % (d, other))
            target = os.path.join('lib', h)
            if not os.path.exists(target):
                bad(path, n, '"%s": no such file' % h)
                continue
            edge(path, target)

# ---- tools/
for d in sorted(os.listdir('tools')):
    p = os.path.join('tools', d)
    files = [p] if os.path.isfile(p) else [os.path.join(p, f) for f in sorted(os.listdir(p))]
    for path in files:
        if not path.endswith(('.c', '.h')):
            continue
        tool = d[:-2] if d.endswith('.c') else d
        for n, h in includes(path):
            if '/' not in h:
                target = os.path.join(os.path.dirname(path), h)
                if os.path.dirname(path) == 'tools' or not os.path.exists(target):
                    bad(path, n, '"%s": include a layer as "<layer>/<layer>.h"' % h)
                    continue
                edge(path, target)
                continue
            other, name = h.split('/', 1)
            if other in rank:
                if name != other + '.h':
                    bad(path, n, '"%s": tools include only the interface header "%s/%s.h"' % (h, other, other))
                target = os.path.join('lib', h)
            elif other == tool:
                target = os.path.join('tools', h)
            else:
                bad(path, n, '"%s": another tool\'s code; move what both need into lib/' % h)
                continue
            if not os.path.exists(target):
                bad(path, n, '"%s": no such file' % h)
                continue
            edge(path, target)

# ---- circles between units
state = {}


def visit(u, stack):
    state[u] = 1
    stack.append(u)
    for v in sorted(edges.get(u, ())):
        if state.get(v) == 1:
            cyc = stack[stack.index(v):] + [v]
            problems.append('circle: ' + ' -> '.join(cyc))
        elif not state.get(v):
            visit(v, stack)
    stack.pop()
    state[u] = 2


for u in sorted(edges):
    if not state.get(u):
        visit(u, [])

for line in problems:
    print(line)
print('layers: %d layers, %d units, %d problem(s)' % (len(rank), len(edges), len(problems)))
sys.exit(1 if problems else 0)
