#!/usr/bin/env python3
"""raw2folded.py: the text of `go tool pprof -raw PROFILE` to folded stacks,
independently of tflame. Usage:

    go tool pprof -raw PROFILE | python3 raw2folded.py INDEX [LABELKEY]

INDEX is the 0-based column of the "Samples:" table to weigh by. Each
sample's location ids are listed leaf first; every location's lines are
listed innermost (inlined callee) first. So a stack is the sample's
locations reversed, each expanded to its lines reversed. A location without
function names is its address ("0x4f6a87"), or "[file+0xOFF]" when its
mapping names a file (OFF = address - start + offset, from "Mappings").
With LABELKEY, the sample's first value of that label becomes a root frame
"KEY=VALUE" ("KEY=[none]" without one). Samples of value 0 are dropped,
equal stacks summed, lines sorted byte-wise (as `LC_ALL=C sort`)."""
import re
import sys

index = int(sys.argv[1])
labelkey = sys.argv[2] if len(sys.argv) > 2 else None
section = None
samples = []        # [value, [loc ids], {label: first value}]
locs = {}           # id -> (address, mapping, [function names])
maps = {}           # id -> (start, offset, file)
cur = None
for line in sys.stdin.read().split("\n"):
    if line in ("Samples:", "Locations", "Mappings"):
        section = line
        continue
    if section == "Samples:":
        m = re.match(r"^\s*(-?\d+(?:\s+-?\d+)*):((?:\s+\d+)*)\s*$", line)
        if m:
            vals = m.group(1).split()
            samples.append([int(vals[index]), [int(x) for x in m.group(2).split()], {}])
            continue
        for k, v in re.findall(r"(\S+?):\[([^\]]*)\]", line):
            if samples and k not in samples[-1][2]:
                samples[-1][2][k] = v.split()[0] if v.split() else ""
    elif section == "Locations":
        m = re.match(r"^\s*(\d+): (0x[0-9a-f]+) M=(\d+)\s*(\S*)", line)
        if m:
            cur = int(m.group(1))
            locs[cur] = (int(m.group(2), 16), int(m.group(3)), [m.group(4)] if m.group(4) else [])
        elif line.strip() and cur is not None:
            locs[cur][2].append(line.split()[0])
    elif section == "Mappings":
        m = re.match(r"^(\d+): (0x[0-9a-f]+)/(0x[0-9a-f]+)/(0x[0-9a-f]+)\s*(\S*)", line)
        if m:
            maps[int(m.group(1))] = (int(m.group(2), 16), int(m.group(4), 16), m.group(5))

def frames(lid):
    addr, mid, names = locs[lid]
    if names:
        return list(reversed(names))
    if mid in maps and maps[mid][2]:
        start, off, f = maps[mid]
        return ["[%s+0x%x]" % (f.split("/")[-1], addr - start + off)]
    return ["0x%x" % addr]

out = {}
for value, ids, labels in samples:
    if value <= 0:
        continue
    stack = []
    if labelkey:
        stack.append("%s=%s" % (labelkey, labels.get(labelkey, "[none]")))
    for lid in reversed(ids):
        stack += frames(lid)
    key = ";".join(stack)
    out[key] = out.get(key, 0) + value
for key in sorted(out, key=lambda s: s.encode()):
    print("%s %d" % (key, out[key]))
