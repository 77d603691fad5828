#!/usr/bin/env python3
"""Folded stacks of a V8 .cpuprofile, computed independently of tflame:
parents from the "children" arrays (and "parent" fields), weights from the
number of times each node id occurs in "samples" (hitCount when there is
no "samples" array), frame = callFrame.functionName or "(anonymous)", the
top "(root)" node dropped (but for its
own samples, if any). Lines are sorted byte-wise, as tflame --collapse
sorts them.  Usage: expected.py FILE.cpuprofile > FILE.folded"""
import collections
import json
import sys

with open(sys.argv[1], encoding="utf-8") as f:
    prof = json.load(f)
nodes = {n["id"]: n for n in prof["nodes"]}
parent = {}
for n in prof["nodes"]:
    for c in n.get("children", []):
        parent[c] = n["id"]
    if "parent" in n:
        parent[n["id"]] = n["parent"]
if prof.get("samples"):
    weight = collections.Counter(prof["samples"])
else:
    weight = {i: n.get("hitCount", 0) for i, n in nodes.items()}

folded = collections.Counter()
for i, w in weight.items():
    if w == 0:
        continue
    frames = []
    j = i
    while j is not None:
        name = nodes[j]["callFrame"]["functionName"] or "(anonymous)"
        if not (j not in parent and name == "(root)"):
            frames.append(name)
        j = parent.get(j)
    if not frames:          # samples of "(root)" itself keep its name
        frames = ["(root)"]
    folded[";".join(reversed(frames))] += w
out = sys.stdout.buffer
for stack in sorted(folded, key=lambda s: s.encode("utf-8")):
    out.write(b"%s %d\n" % (stack.encode("utf-8"), folded[stack]))
