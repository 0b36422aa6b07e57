#!/usr/bin/env python3
# A small reader of HPROF heap dumps (`jcmd PID GC.heap_dump FILE`), for the memory figures of docs/benchmarks.md:
# heap-referrers.py (who holds the Strings) and heap-retained.py (what a cache entry holds by itself) build on it.
import struct

PRIM_SIZE = {2: 8, 4: 1, 5: 2, 6: 4, 7: 8, 8: 1, 9: 2, 10: 4, 11: 8}  # HPROF basic types (2 = object id)


def _align(n):
    return (n + 7) // 8 * 8


class Heap:
    """Every instance, object array and primitive array of a dump, with class names and reference fields."""

    def __init__(self, path):
        f = self.f = open(path, 'rb').read()
        p = f.index(b'\0') + 1
        if struct.unpack('>I', f[p:p + 4])[0] != 8:
            raise SystemExit('only dumps of 64-bit JVMs (8-byte ids) are read')
        p += 12
        self.strings, self.classname, self.classinfo = {}, {}, {}
        self.inst, self.objarr, self.primarr = {}, {}, {}  # id -> (class, offset, length) / (offset, n, class) / (type, n, offset)
        segments = []
        while p < len(f):
            tag = f[p]
            length = struct.unpack('>I', f[p + 5:p + 9])[0]
            body = p + 9
            if tag == 0x01:
                self.strings[self.rid(body)] = f[body + 8:body + length].decode('utf-8', 'replace')
            elif tag == 0x02:
                self.classname[self.rid(body + 4)] = self.rid(body + 16)
            elif tag in (0x0c, 0x1c):
                segments.append((body, body + length))
            p = body + length
        for start, end in segments:
            self._segment(start, end)
        self._sizes = {}

    def rid(self, o):
        return struct.unpack('>Q', self.f[o:o + 8])[0]

    def _segment(self, q, end):
        f = self.f
        while q < end:
            t = f[q]
            q += 1
            if t == 0xff:
                q += 8
            elif t in (0x01, 0x02, 0x03, 0x08):
                q += 16
            elif t in (0x04, 0x06):
                q += 12
            elif t in (0x05, 0x07):
                q += 8
            elif t == 0x20:  # class dump
                cid, sup = self.rid(q), self.rid(q + 12)
                q += 64  # id, stack trace, super, loader, signers, domain, two reserved, instance size
                n = struct.unpack('>H', f[q:q + 2])[0]
                q += 2
                for _ in range(n):  # constant pool
                    ty = f[q + 2]
                    q += 3 + (8 if ty == 2 else PRIM_SIZE[ty])
                n = struct.unpack('>H', f[q:q + 2])[0]
                q += 2
                for _ in range(n):  # static fields
                    ty = f[q + 8]
                    q += 9 + (8 if ty == 2 else PRIM_SIZE[ty])
                n = struct.unpack('>H', f[q:q + 2])[0]
                q += 2
                self.classinfo[cid] = (sup, [f[q + 9 * i + 8] for i in range(n)])  # instance field types
                q += 9 * n
            elif t == 0x21:  # instance
                oid, cid = self.rid(q), self.rid(q + 12)
                n = struct.unpack('>I', f[q + 20:q + 24])[0]
                self.inst[oid] = (cid, q + 24, n)
                q += 24 + n
            elif t == 0x22:  # object array
                oid = self.rid(q)
                n = struct.unpack('>I', f[q + 12:q + 16])[0]
                self.objarr[oid] = (q + 24, n, self.rid(q + 16))
                q += 24 + 8 * n
            elif t == 0x23:  # primitive array
                oid = self.rid(q)
                n = struct.unpack('>I', f[q + 12:q + 16])[0]
                ty = f[q + 16]
                self.primarr[oid] = (ty, n, q + 17)
                q += 17 + n * PRIM_SIZE[ty]
            else:
                raise SystemExit('unknown heap dump record %x at %d' % (t, q))

    def cname(self, cid):
        return self.strings.get(self.classname.get(cid), '?')

    def refs(self, oid):
        """The objects an instance or object array references."""
        if oid in self.objarr:
            off, n, _ = self.objarr[oid]
            return [r for r in (self.rid(off + 8 * i) for i in range(n)) if r]
        cid, off, _ = self.inst[oid]
        out = []
        while cid and cid in self.classinfo:
            sup, fields = self.classinfo[cid]
            for ty in fields:
                if ty == 2:
                    r = self.rid(off)
                    if r:
                        out.append(r)
                    off += 8
                else:
                    off += PRIM_SIZE[ty]
            cid = sup
        return out

    def kind(self, oid):
        """Short class name; arrays as Name[] (primitive ones by their HPROF type)."""
        if oid in self.inst:
            return self.cname(self.inst[oid][0]).split('/')[-1]
        if oid in self.objarr:
            return self.cname(self.objarr[oid][2]).split('/')[-1].rstrip(';') + '[]'
        if oid in self.primarr:
            return {4: 'boolean', 5: 'char', 6: 'float', 7: 'double', 8: 'byte', 9: 'short', 10: 'int',
                    11: 'long'}[self.primarr[oid][0]] + '[]'
        return '?'

    def size(self, oid):
        """Bytes as a 64-bit JVM with compressed references lays the object out (12-byte headers, 4-byte references)."""
        if oid in self.inst:
            cid = self.inst[oid][0]
            if cid not in self._sizes:
                t, c = 12, cid
                while c and c in self.classinfo:
                    sup, fields = self.classinfo[c]
                    t += sum(4 if ty == 2 else PRIM_SIZE[ty] for ty in fields)
                    c = sup
                self._sizes[cid] = _align(t)
            return self._sizes[cid]
        if oid in self.objarr:
            return _align(16 + 4 * self.objarr[oid][1])
        if oid in self.primarr:
            ty, n, _ = self.primarr[oid]
            return _align(16 + n * PRIM_SIZE[ty])
        return 0

    def text(self, string_id):
        """A java.lang.String's text (its coder says Latin-1 or UTF-16, the latter in this x86 machine's order)."""
        value = self.refs(string_id)
        if not value or value[0] not in self.primarr:
            return None
        _, n, off = self.primarr[value[0]]
        return self.f[off:off + n].decode('utf-16-le' if self._coder(string_id) == 1 else 'latin-1', 'replace')

    def _coder(self, string_id):
        cid, off, _ = self.inst[string_id]
        for ty in self.classinfo[cid][1]:
            if ty == 8:  # the only byte field of a String
                return self.f[off]
            off += 8 if ty == 2 else PRIM_SIZE[ty]
        return 0
