#!/usr/bin/env python3
# Usage: jcmd <pid> GC.heap_dump /tmp/x.hprof; scripts/heap-referrers.py /tmp/x.hprof
# (docs/benchmarks.md, "A fleet from the user's side": how the memory per host was attributed)
# Who holds the Strings? For every java.lang.String, the class of the object (or array) that references it, and for
# Strings held by arrays, the class of the object holding the array. Then who holds the brain's domain snapshots.
import collections
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hprof import Heap  # noqa: E402

heap = Heap(sys.argv[1])
string_ids = set(o for o in heap.inst if heap.kind(o) == 'String')
holder = collections.defaultdict(list)  # string id -> referrer ids
arr_owner = {}
for oid in list(heap.inst) + list(heap.objarr):
    for r in heap.refs(oid):
        if r in string_ids:
            holder[r].append(oid)
        elif r in heap.objarr and oid in heap.inst:
            arr_owner.setdefault(r, oid)


def kind(oid):
    k = heap.kind(oid)
    return k + (' in ' + heap.kind(arr_owner[oid]) if oid in arr_owner else '')


c = collections.Counter(kind(holder[s][0]) if holder.get(s) else '(no referrer found)' for s in string_ids)
print('strings', len(string_ids))
for k, v in c.most_common(40):
    print(v, k)
targets = {o: heap.kind(o) for o in heap.inst
           if heap.kind(o) in ('ConnectivityReport', 'HostSnapshot', 'ClusterContext', 'StoredHost', 'ValidationsInfo')}
back = collections.defaultdict(list)
for oid in list(heap.inst) + list(heap.objarr):
    for r in heap.refs(oid):
        if r in targets:
            back[r].append(oid)
cc = collections.Counter((targets[o], kind(back[o][0]) if back.get(o) else '') for o in targets)
for (name, by), v in cc.most_common(20):
    print(v, name, '<-', by)
