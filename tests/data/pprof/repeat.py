#!/usr/bin/env python3
"""A pprof profile whose stacks repeat, big enough that tflame counts its
samples while a compressed copy inflates and moves the pages of those
counted ahead (src/read/pprof_read.c):

    repeat.py N PROFILE.pb EXPECTED.folded [first]

writes N samples of 5 stacks (each sample with 8 labels, which tflame
ignores without --label-root, to make it 70 bytes or so), two sample types
(samples/count, cpu/nanoseconds), and the folded stacks of the type pprof
weighs by, summed here as the samples are written (not by tflame). With
"first", default_sample_type names the first type: what was counted as
the file arrived (by the last) does not stand, and tflame reads the file
again.
"""
import sys

from pbwire import field, varint


def main():
    n, pb_path, folded_path = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    first = len(sys.argv) > 4 and sys.argv[4] == "first"
    strings = ["", "samples", "count", "cpu", "nanoseconds", "main", "parse", "lex", "emit",
               "worker", "alpha", "beta"]
    # leaf first; location i is function i, named strings[4 + i]
    stacks = [[1], [2, 1], [3, 2, 1], [4, 2, 1], [3, 1]]
    labels = b"".join(field(3, 2, field(1, 0, k) + field(2, 0, v))
                      for k, v in ((9, 10), (9, 11), (5, 6), (5, 7), (6, 7), (6, 10), (7, 11), (7, 5)))
    out = bytearray()
    for t, u in ((1, 2), (3, 4)):
        out += field(1, 2, field(1, 0, t) + field(2, 0, u))
    sums = {}
    for i in range(n):
        st = stacks[(i * 7 + i // 3) % len(stacks)]
        vals = (1 + i % 3, 10 * (1 + i % 5))
        body = field(1, 2, b"".join(varint(x) for x in st))
        body += field(2, 2, b"".join(varint(x) for x in vals))
        out += field(2, 2, body + labels)
        name = ";".join(strings[4 + x] for x in reversed(st))
        sums[name] = sums.get(name, 0) + vals[0 if first else 1]
    for i in range(1, 5):
        line = field(1, 0, i)
        out += field(4, 2, field(1, 0, i) + field(3, 0, 0x1000 * i) + field(4, 2, line))
        out += field(5, 2, field(1, 0, i) + field(2, 0, 4 + i))
    for s in strings:
        out += field(6, 2, s.encode())
    if first:
        out += field(14, 0, 1)
    with open(pb_path, "wb") as f:
        f.write(out)
    with open(folded_path, "w") as f:
        for name in sorted(sums):
            f.write("%s %d\n" % (name, sums[name]))


main()
