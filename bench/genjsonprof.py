#!/usr/bin/env python3
"""Generates large JSON profiles for benchmarking the JSON readers:
    genjsonprof.py cpuprofile MB > big.cpuprofile
    genjsonprof.py speedscope MB > big.speedscope.json
cpuprofile: 50,000 nodes (a random call tree up to 40 deep over 3,000
function names), then "samples" and "timeDeltas" up to about MB megabytes.
speedscope: 5,000 frames, three sampled profiles over 40,000 distinct
stacks (5 to 60 frames, sharing prefixes; consecutive samples mostly near
each other, as a profiler's are), one evented profile (a quarter of the
size).
Deterministic (fixed seed)."""
import random
import sys

rnd = random.Random(42)
out = sys.stdout
kind, mb = sys.argv[1], float(sys.argv[2])
target = int(mb * 1e6)
names = ["fn_%d_%s" % (i, rnd.choice(["parse", "eval", "gc", "render", "io"])) for i in range(3000)]


def chunks(items, per=4096):
    for i in range(0, len(items), per):
        yield items[i:i + per]


if kind == "cpuprofile":
    nn = 50000
    parent, depth = [0, 0], [0, 0]          # ids from 1; node 1 is (root)
    for i in range(2, nn + 1):
        p = rnd.randrange(1, i) if i > 50 else 1
        while depth[p] >= 40:
            p = parent[p]
        parent.append(p)
        depth.append(depth[p] + 1)
    kids = [[] for _ in range(nn + 1)]
    for i in range(2, nn + 1):
        kids[parent[i]].append(i)
    size = 0
    out.write('{"nodes":[')
    for i in range(1, nn + 1):
        name = "(root)" if i == 1 else rnd.choice(names)
        s = ('%s{"id":%d,"callFrame":{"functionName":"%s","scriptId":"%d","url":"file:///app/%s.js",'
             '"lineNumber":%d,"columnNumber":%d},"hitCount":%d%s}') % (
            "," if i > 1 else "", i, name, i % 97, name, i % 500, i % 80, 0,
            ',"children":[%s]' % ",".join(map(str, kids[i])) if kids[i] else "")
        out.write(s)
        size += len(s)
    out.write('],"startTime":1000000,"endTime":9000000,')
    # samples and deltas: about the same count; ~8.5 bytes per sample in all
    n = max(1, (target - size) // 9)
    out.write('"samples":[')
    first = True
    for part in chunks(range(n), 65536):
        ids = ",".join(str(rnd.randrange(2, nn + 1)) for _ in part)
        out.write(ids if first else "," + ids)
        first = False
    out.write('],"timeDeltas":[')
    first = True
    for part in chunks(range(n), 65536):
        ds = ",".join(str(rnd.randrange(90, 130)) for _ in part)
        out.write(ds if first else "," + ds)
        first = False
    out.write("]}\n")
elif kind == "speedscope":
    nf = 5000
    # stacks share prefixes as real ones do: each extends a prefix of an
    # earlier one; sorted, neighbours share the most
    stacks = [[rnd.randrange(nf) for _ in range(rnd.randrange(5, 30))]]
    while len(stacks) < 40000:
        base = stacks[rnd.randrange(len(stacks))]
        keep = rnd.randrange(1, len(base) + 1)
        st = base[:keep] + [rnd.randrange(nf) for _ in range(rnd.randrange(1, 12))]
        stacks.append(st[:60])
    stacks.sort()

    def walk():
        """Sample order: consecutive samples mostly near in the sorted
        list (a profiler samples a thread that moves on slowly)."""
        i = rnd.randrange(len(stacks))
        while True:
            i = rnd.randrange(len(stacks)) if rnd.random() < 0.02 else \
                min(len(stacks) - 1, max(0, i + rnd.randrange(-3, 4)))
            yield stacks[i]
    nxt = walk()
    out.write('{"$schema":"https://www.speedscope.app/file-format-schema.json","shared":{"frames":[')
    out.write(",".join('{"name":"%s_%d","file":"src/m%d.py","line":%d,"col":1}' % (
        rnd.choice(names), i, i % 300, i % 1000) for i in range(nf)))
    out.write(']},"profiles":[')
    per = target // 4
    for p in range(3):
        out.write('{"type":"sampled","name":"thread %d","unit":"nanoseconds","startValue":0,'
                  '"endValue":1000000,"samples":[' % p)
        size, first, ns = 0, True, 0
        while size < per:
            st = next(nxt)
            s = ("[" if first else ",[") + ",".join(map(str, st)) + "]"
            out.write(s)
            size += len(s)
            ns += 1
            first = False
        out.write('],"weights":[')
        out.write(",".join(str(rnd.randrange(1000, 20000)) for _ in range(ns)))
        out.write(']},')
    out.write('{"type":"evented","name":"events","unit":"microseconds","startValue":0,"events":[')
    size, t, cur, first = 0, 0, [], True
    while size < per:
        st = next(nxt)
        common = 0
        while common < min(len(cur), len(st)) and cur[common] == st[common]:
            common += 1
        evs = ['{"type":"C","frame":%d,"at":%d}' % (f, t) for f in reversed(cur[common:])]
        evs += ['{"type":"O","frame":%d,"at":%d}' % (f, t) for f in st[common:]]
        t += rnd.randrange(1, 50)
        if not evs:
            continue
        s = ("" if first else ",") + ",".join(evs)
        out.write(s)
        size += len(s)
        first = False
        cur = st
    evs = ['{"type":"C","frame":%d,"at":%d}' % (f, t) for f in reversed(cur)]
    out.write("," + ",".join(evs) + '],"endValue":%d}]}\n' % t)
else:
    sys.exit("usage: genjsonprof.py cpuprofile|speedscope MB")
