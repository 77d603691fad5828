#!/usr/bin/env python3
"""A hostile pprof profile against the reader's repeated-stack caches
(src/read/pprof.c, and src/read/pprof_pre.c's while a compressed file
inflates: a stack seen before is found by a hash of its packed location
ids, with a fixed seed):

    collide.py N PROFILE.pb EXPECTED.folded [HOT]

writes N samples whose packed location ids are distinct 16-byte strings
with the same 64-bit hash, each followed by HOT samples (default 1) of one
hot stack (so that half the samples, or more, repeat and the cache stays
on; 4 keep pprof_pre.c's table on too: it wants 3 in 4), and the folded
stacks they must give, worked out here from the ids written (not by
tflame).

The hash (pp_key_hash in src/read/pprof_stack.c, seed 0: no label root,
the main tree) of a 16-byte key, words w1 and w2, is
mix(a ^ rotl(b, 32)) with a = rotl((A0 ^ w1) * C1, 29) and
b = rotl((~0 ^ w2) * C2, 31): for any w1 there is one w2 that gives a
chosen value of a ^ rotl(b, 32), hence one hash. w1 is 8 one-byte ids
(1..127, locations the profile has); w2 is kept when its bytes are varints
too (the last byte below 0x80), ids the profile does not hold: those
frames read "[unknown]". Samples are leaf first, so a stack reads, root
first, [unknown] frames (one per id in w2), then the names of w1's ids
reversed.
"""
import sys

from pbwire import field, varint

M = (1 << 64) - 1
C1 = 0xff51afd7ed558ccd
C2 = 0xc4ceb9fe1a85ec53
C2INV = pow(C2, -1, 1 << 64)
GOLDEN = 0x9e3779b97f4a7c15


def rotl(x, r):
    return ((x << r) | (x >> (64 - r))) & M


def ids_of(b):
    """The varints of b (all complete) as a list."""
    out, v, shift = [], 0, 0
    for x in b:
        v |= (x & 0x7f) << shift
        shift += 7
        if x < 0x80:
            out.append(v)
            v, shift = 0, 0
    assert shift == 0
    return out


def main():
    n, pb_path, folded_path = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    hot_n = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    a0 = (16 * GOLDEN) & M      # seed 0, 16 bytes
    target = 0x0123456789abcdef  # a ^ rotl(b, 32), the same for every key
    nloc = 127
    strings = ["", "samples", "count"] + ["f%d" % i for i in range(1, nloc + 1)]
    counts = {}
    samples = bytearray()
    hot = bytes([1, 2, 3])      # leaf first: f1 <- f2 <- f3
    made, i = 0, 0
    while made < n:
        # w1: eight ids 1..127 from i in base 127, all distinct words
        k, w1 = i, bytearray()
        for _ in range(8):
            w1.append(k % 127 + 1)
            k //= 127
        i += 1
        x = int.from_bytes(w1, "little")
        a = rotl(((a0 ^ x) * C1) & M, 29)
        b = rotl(target ^ a, 32)
        w2 = (((rotl(b, 64 - 31) * C2INV) & M) ^ M).to_bytes(8, "little")
        if w2[7] >= 0x80:
            continue            # not a whole run of varints
        key = bytes(w1) + w2
        made += 1
        for ids, body in [(ids_of(key), key)] + [(list(hot), hot)] * hot_n:
            samples += field(2, 2, field(1, 2, body) + field(2, 0, 1))
            names = ["f%d" % v if 1 <= v <= nloc else "[unknown]" for v in ids]
            stack = ";".join(reversed(names))
            counts[stack] = counts.get(stack, 0) + 1
    out = bytearray()
    out += field(1, 2, field(1, 0, 1) + field(2, 0, 2))    # samples/count
    out += samples
    for loc in range(1, nloc + 1):      # location k: one line, function k
        out += field(4, 2, field(1, 0, loc) + field(4, 2, field(1, 0, loc)))
    for fn in range(1, nloc + 1):       # function k named "fk" (string k+2)
        out += field(5, 2, field(1, 0, fn) + field(2, 0, fn + 2))
    for s in strings:
        out += field(6, 2, s.encode())
    with open(pb_path, "wb") as fp:
        fp.write(out)
    with open(folded_path, "w") as fp:
        for stack in sorted(counts, key=lambda s: s.encode()):
            fp.write("%s %d\n" % (stack, counts[stack]))


main()
