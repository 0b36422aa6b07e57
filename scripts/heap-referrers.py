#!/usr/bin/env python3
# Usage: jcmd <pid> GC.heap_dump /tmp/x.hprof; scripts/heap-referrers.py /tmp/x.hprof
# (docs/benchmarks.md, "A fleet from the user's side": how the memory per host was attributed)
# Who holds the Strings? Parses an HPROF heap dump: for every java.lang.String, the class of the object (or array)
# that references it, and for Strings held by arrays/collections nodes, one level further up.
import struct, sys, collections
f = open(sys.argv[1], 'rb').read()
p = f.index(b'\0') + 1
idsize = struct.unpack('>I', f[p:p+4])[0]; p += 12
assert idsize == 8
def rid(o): return struct.unpack('>Q', f[o:o+8])[0]
strings = {}; classname = {}; classinfo = {}  # class id -> (super, [field types])
inst = {}  # obj id -> (class id, offset, length)
objarr = {}  # arr id -> (offset, n, elemclass)
primsize = {2:8, 4:1, 5:2, 6:4, 7:8, 8:1, 9:2, 10:4, 11:8}
heap_segments = []
while p < len(f):
    tag = f[p]; length = struct.unpack('>I', f[p+5:p+9])[0]; body = p + 9
    if tag == 0x01:
        strings[rid(body)] = f[body+8:body+length].decode('utf-8', 'replace')
    elif tag == 0x02:
        classname[rid(body+4)] = rid(body+16)
    elif tag in (0x0c, 0x1c):
        heap_segments.append((body, body+length))
    p = body + length
for (s, e) in heap_segments:
    q = s
    while q < e:
        t = f[q]; q += 1
        if t == 0xff: q += 8
        elif t in (0x01,): q += 16
        elif t in (0x02, 0x03): q += 16
        elif t == 0x04: q += 12
        elif t in (0x05, 0x07): q += 8
        elif t == 0x06: q += 12
        elif t == 0x08: q += 16
        elif t == 0x20:
            cid = rid(q); sup = rid(q+12); q += 64  # id, stack, super, loader, signers, domain, res1, res2, size
            ncp = struct.unpack('>H', f[q:q+2])[0]; q += 2
            for _ in range(ncp):
                ty = f[q+2]; q += 3 + (8 if ty == 2 else primsize[ty])
            ns = struct.unpack('>H', f[q:q+2])[0]; q += 2
            for _ in range(ns):
                ty = f[q+8]; q += 9 + (8 if ty == 2 else primsize[ty])
            ni = struct.unpack('>H', f[q:q+2])[0]; q += 2
            fields = []
            for _ in range(ni):
                fields.append(f[q+8]); q += 9
            classinfo[cid] = (sup, fields)
        elif t == 0x21:
            oid = rid(q); cid = rid(q+12); n = struct.unpack('>I', f[q+20:q+24])[0]
            inst[oid] = (cid, q+24, n); q += 24 + n
        elif t == 0x22:
            oid = rid(q); n = struct.unpack('>I', f[q+12:q+16])[0]; ec = rid(q+16)
            objarr[oid] = (q+24, n, ec); q += 24 + 8*n
        elif t == 0x23:
            n = struct.unpack('>I', f[q+12:q+16])[0]; ty = f[q+16]
            q += 17 + n*primsize[ty]
        else:
            raise Exception('unknown subtag %x at %d' % (t, q))
def cname(cid):
    return strings.get(classname.get(cid), '?')
string_cls = [c for c in classinfo if cname(c) == 'java/lang/String'][0]
def refs(oid):
    cid, off, n = inst[oid]; out = []; c = cid
    while c and c in classinfo:
        sup, fields = classinfo[c]
        for ty in fields:
            if ty == 2:
                out.append(rid(off)); off += 8
            else:
                off += primsize[ty]
        c = sup
    return out
holder = collections.defaultdict(list)  # string id -> referrer ids
string_ids = set(o for o, v in inst.items() if v[0] == string_cls)
for oid, (cid, off, n) in inst.items():
    if cid == string_cls: continue
    for r in refs(oid):
        if r in string_ids: holder[r].append(oid)
for aid, (off, n, ec) in objarr.items():
    for i in range(n):
        r = rid(off + 8*i)
        if r in string_ids: holder[r].append(aid)
arr_owner = {}
for oid, (cid, off, n) in inst.items():
    for r in refs(oid):
        if r in objarr: arr_owner.setdefault(r, oid)
node_owner = {}
def kind(oid):
    if oid in inst: return cname(inst[oid][0])
    if oid in objarr: return 'array<' + cname(objarr[oid][2]) + '>' + (' in ' + cname(inst[arr_owner[oid]][0]) if oid in arr_owner else '')
    return '?'
c = collections.Counter(); seen = 0
for s in string_ids:
    hs = holder.get(s)
    key = kind(hs[0]) if hs else '(no referrer found)'
    c[key] += 1
print('strings', len(string_ids))
for k, v in c.most_common(40): print(v, k)
# who holds the domain snapshots
target_names = ['dev/rendezvous/service/domain/host/ConnectivityReport', 'dev/rendezvous/service/domain/host/HostSnapshot',
                'dev/rendezvous/service/domain/cluster/ClusterContext', 'dev/rendezvous/service/brain/StoredHost',
                'dev/rendezvous/service/domain/validation/ValidationsInfo']
tcls = {c: cname(c) for c in classinfo if cname(c) in target_names}
targets = {o: tcls[v[0]] for o, v in inst.items() if v[0] in tcls}
back = collections.defaultdict(list)
for oid, (cid, off, n) in inst.items():
    for r in refs(oid):
        if r in targets: back[r].append(oid)
for aid, (off, n, ec) in objarr.items():
    for i in range(n):
        r = rid(off + 8*i)
        if r in targets: back[r].append(aid)
def up(oid, depth=4):
    chain = []
    cur = oid
    for _ in range(depth):
        hs = back.get(cur)
        if not hs: break
        cur = hs[0]; chain.append(kind(cur))
        if cur not in targets and cur in inst:
            # one more level via generic scan (slow path): skip
            break
    return ' <- '.join(chain)
cc = collections.Counter((targets[o], up(o)) for o in targets)
for k, v in cc.most_common(20): print(v, k[0].split('/')[-1], '<-', k[1])
