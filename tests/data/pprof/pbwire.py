"""The protobuf wire format, as the test profiles' writers (collide.py,
repeat.py) write it: varints and fields."""


def varint(v):
    """v (unsigned) as a varint."""
    out = bytearray()
    while True:
        b = v & 0x7f
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def field(num, wt, payload):
    """Field num: a varint (wt 0, payload an int) or bytes (payload)."""
    if wt == 0:
        return varint(num << 3) + varint(payload)
    return varint(num << 3 | 2) + varint(len(payload)) + payload
