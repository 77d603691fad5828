#!/usr/bin/env python3
"""Folded stacks of a Chrome trace's ProfileChunk events whose sample times
(each profile's Profile startTime plus its chunks' timeDeltas, in us) fall in
[START, END) seconds after the first sample, worked out independently of
tflame:  trace_expected.py TRACE.json START,END  (either may be empty)."""
import collections, json, sys
from decimal import Decimal
d = json.load(open(sys.argv[1]))
evs = d["traceEvents"] if isinstance(d, dict) else d
start, tsum, nodes, parent, samples = {}, {}, {}, {}, []
for e in evs:
    a = e.get("args", {}).get("data", {})
    key = (e.get("pid"), e.get("id"))
    if e.get("name") == "Profile":
        start[key] = a.get("startTime", 0)
        tsum[key] = 0
    if e.get("name") != "ProfileChunk":
        continue
    cp = a.get("cpuProfile", {})
    for n in cp.get("nodes", []):
        nodes[(key, n["id"])] = n["callFrame"]["functionName"] or "(anonymous)"
        if "parent" in n:
            parent[(key, n["id"])] = (key, n["parent"])
    for s, dt in zip(cp.get("samples", []), a.get("timeDeltas", [])):
        tsum[key] = tsum.get(key, 0) + dt
        samples.append(((key, s), start.get(key, 0) + tsum[key]))
first = min(t for _, t in samples)
lo, hi = sys.argv[2].split(",")
lo = first + Decimal(lo) * 10**6 if lo else 0
hi = first + Decimal(hi) * 10**6 if hi else float("inf")
out = collections.Counter()
for n, t in samples:
    if not (lo <= t < hi):
        continue
    fr, j = [], n
    while j is not None:
        if not (j not in parent and nodes[j] == "(root)"):
            fr.append(nodes[j])
        j = parent.get(j)
    out[";".join(reversed(fr))] += 1
for s in sorted(out, key=lambda s: s.encode()):
    print(s, out[s])
