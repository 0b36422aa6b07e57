#!/usr/bin/env python3
# What each instance of a class holds by itself: every object reachable from one root (e.g. each of the brain's
# cached keys, `Loaded`) and from no other root, sized as the JVM lays it out with compressed references.
# Objects reachable from two roots (shared texts, validation results, peer ids) count for none of them.
#   jcmd PID GC.heap_dump FILE; scripts/heap-retained.py FILE [ROOT_CLASS=Loaded] [DIVISOR=number of roots]
# Prints the bytes per root (or per DIVISOR, e.g. the number of hosts), by class, and the roots' own texts by holder.
import collections
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hprof import Heap  # noqa: E402

heap = Heap(sys.argv[1])
root_class = sys.argv[2] if len(sys.argv) > 2 else 'Loaded'
roots = [o for o in heap.inst if heap.kind(o) == root_class]
if not roots:
    raise SystemExit('no instance of ' + root_class)
divisor = int(sys.argv[3]) if len(sys.argv) > 3 else len(roots)
SHARED = -1
owner = {}  # object -> index of the one root reaching it, or SHARED
for i, r in enumerate(roots):
    stack = [r]
    while stack:
        o = stack.pop()
        w = owner.get(o)
        if w is not None:
            if w != i and w != SHARED:
                # shared: so is everything below it (first claimed by an earlier root)
                below = [o]
                while below:
                    x = below.pop()
                    if owner.get(x) not in (None, SHARED):
                        owner[x] = SHARED
                        if x in heap.inst and heap.kind(x) != 'Class' or x in heap.objarr:
                            below.extend(heap.refs(x))
            continue
        owner[o] = i
        if o in heap.inst and heap.kind(o) != 'Class' or o in heap.objarr:
            stack.extend(heap.refs(o))
by_class = collections.Counter()
count = collections.Counter()
for o, w in owner.items():
    if w != SHARED:
        by_class[heap.kind(o)] += heap.size(o)
        count[heap.kind(o)] += 1
total = sum(by_class.values())
print('%d %s: %d bytes held by them alone, %.0f bytes per %s' % (
    len(roots), root_class, total, total / divisor, 'root' if divisor == len(roots) else 'unit of %d' % divisor))
for k, v in by_class.most_common(25):
    print('  %8.0f B %7.2f objects  %s' % (v / divisor, count[k] / divisor, k))
back = {}
for o, w in owner.items():
    if w != SHARED and (o in heap.inst or o in heap.objarr):
        for r in heap.refs(o):
            back.setdefault(r, o)
texts = collections.Counter()
for o, w in owner.items():
    if w != SHARED and heap.kind(o) == 'String' and o in back:
        value = heap.refs(o)
        texts[heap.kind(back[o])] += heap.size(o) + (heap.size(value[0]) if value else 0)
print('their own texts, by holder:')
for k, v in texts.most_common(10):
    print('  %8.0f B  %s' % (v / divisor, k))
