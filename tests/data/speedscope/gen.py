#!/usr/bin/env python3
"""Writes speedscope files from known folded stacks, and the folded output
expected from them, independently of tflame. Run in this directory:
    python3 gen.py
Files (all regenerated):
  two.speedscope.json    "profiles" before "shared"; profile 1 sampled
                         ("main thread", nanoseconds), profile 2 evented
                         ("worker", nanoseconds, made from stacks in time)
  two.folded             all profiles: each under a root frame named after it
  two.main.folded        --profile="main thread" (no root frame)
  two.2.folded           --profile=2 (the evented one alone)
  bytes.speedscope.json  one sampled profile in bytes, "$schema" first
  bytes.folded"""
import collections
import json

MAIN = """\
main;parse;lex 30
main;parse;lex;next_char 12
main;eval;eval;eval;apply 25
main;eval;eval;apply 9
main;caf\u00e9;r\u00e9sum\u00e9 4
main 3
main;parse 5
main;eval;eval;eval;apply 6
"""
WORKER = """\
run;poll 40
run;poll;read 15
run;work;hash 22
run;work 8
run;work;hash;mix 7
run 2
idle 11
run;work;hash 5
"""
BYTES = """\
alloc;vec_grow 4096
alloc;vec_grow;realloc 123456789012
alloc;map_insert 65536
free_list 7
"""


def parse(text):
    """[(frames, weight)] in input order."""
    out = []
    for line in text.splitlines():
        stack, w = line.rsplit(" ", 1)
        out.append((stack.split(";"), int(w)))
    return out


class Frames:
    def __init__(self):
        self.index, self.list = {}, []

    def get(self, name):
        if name not in self.index:
            self.index[name] = len(self.list)
            self.list.append({"name": name, "file": "src/%s.py" % name.split("_")[0],
                              "line": 10 + len(self.list), "col": 1})
        return self.index[name]


def sampled(name, unit, stacks, frames):
    samples = [[frames.get(f) for f in st] for st, _ in stacks]
    weights = [w for _, w in stacks]
    return {"type": "sampled", "name": name, "unit": unit, "startValue": 0,
            "endValue": sum(weights), "samples": samples, "weights": weights}


def evented(name, unit, stacks, frames):
    """Opens and closes frames so that each stack is on top for its weight."""
    events, cur, t = [], [], 1000
    for st, w in stacks:
        common = 0
        while common < min(len(cur), len(st)) and cur[common] == st[common]:
            common += 1
        for f in reversed(cur[common:]):
            events.append({"type": "C", "frame": frames.get(f), "at": t})
        for f in st[common:]:
            events.append({"type": "O", "frame": frames.get(f), "at": t})
        cur = st
        t += w
    for f in reversed(cur):
        events.append({"type": "C", "frame": frames.get(f), "at": t})
    return {"type": "evented", "name": name, "unit": unit, "startValue": 1000,
            "endValue": t, "events": events}


def folded(stacks, prefix=None):
    total = collections.Counter()
    for st, w in stacks:
        total[";".join(([prefix] if prefix else []) + st)] += w
    return "".join("%s %d\n" % (s, total[s])
                   for s in sorted(total, key=lambda s: s.encode("utf-8")))


def write(path, text):
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)


main, worker, nbytes = parse(MAIN), parse(WORKER), parse(BYTES)
frames = Frames()
profiles = [sampled("main thread", "nanoseconds", main, frames),
            evented("worker", "nanoseconds", worker, frames)]
# "profiles" before "shared", and "$schema" last: key order is free
doc = {"profiles": profiles, "shared": {"frames": frames.list},
       "name": "two threads", "activeProfileIndex": 0, "exporter": "gen.py",
       "$schema": "https://www.speedscope.app/file-format-schema.json"}
write("two.speedscope.json", json.dumps(doc, ensure_ascii=False, indent=1) + "\n")
write("two.folded", folded(main, "main thread") + folded(worker, "worker"))
write("two.main.folded", folded(main))
write("two.2.folded", folded(worker))

frames = Frames()
prof = sampled("heap", "bytes", nbytes, frames)
doc = {"$schema": "https://www.speedscope.app/file-format-schema.json",
       "shared": {"frames": frames.list}, "profiles": [prof], "name": "heap"}
write("bytes.speedscope.json", json.dumps(doc, ensure_ascii=True) + "\n")
write("bytes.folded", folded(nbytes))
