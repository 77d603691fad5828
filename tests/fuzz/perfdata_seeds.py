#!/usr/bin/env python3
"""tests/fuzz/perfdata_seeds.py: small perf.data files, built by hand from
the layouts in linux/perf_event.h and perf's header.c, as fuzz seeds for
fuzz_perfdata and as hostile inputs for tests/hostile-perfdata.sh.

  perfdata_seeds.py seeds DIR [--prefix]   valid files covering every record
                                           type the reader handles (with
                                           --prefix: one option byte first,
                                           the fuzz_perfdata input form)
  perfdata_seeds.py hostile DIR [--big]    damaged and hostile files (--big
                                           adds large ones, megabytes each,
                                           that take seconds to minutes)
An MMAP of the hostile set names the FIFO $HOSTILE_FIFO (default
/tmp/tflame-hostile-fifo), which the caller is to create.

Only the standard library is used; COMPRESSED records are made with libzstd
through ctypes when it can be loaded (skipped otherwise)."""
import ctypes
import ctypes.util
import os
import struct
import sys

# ---- the format's numbers ----
MAGIC = b"PERFILE2"
MMAP, LOST, COMM, EXIT, THROTTLE, FORK, SAMPLE, MMAP2 = 1, 2, 3, 4, 5, 7, 9, 10
LOST_SAMPLES, KSYMBOL = 13, 17
HEADER_ATTR, HEADER_EVENT_TYPE, HEADER_TRACING_DATA, HEADER_BUILD_ID = 64, 65, 66, 67
FINISHED_ROUND, ID_INDEX, AUXTRACE, EVENT_UPDATE, HEADER_FEATURE = 68, 69, 71, 78, 80
COMPRESSED, FINISHED_INIT = 81, 82

S_IP, S_TID, S_TIME, S_ADDR, S_READ, S_CALLCHAIN, S_ID, S_CPU = (1 << i for i in range(8))
S_PERIOD, S_STREAM_ID, S_RAW, S_BRANCH_STACK, S_REGS_USER, S_STACK_USER = (1 << i for i in range(8, 14))
S_WEIGHT, S_DATA_SRC, S_IDENTIFIER = 1 << 14, 1 << 15, 1 << 16
S_ALL = (1 << 25) - 1
RF_TOTAL_TIME_ENABLED, RF_TOTAL_TIME_RUNNING, RF_ID, RF_GROUP, RF_LOST = 1, 2, 4, 8, 16

F_SAMPLE_ID_ALL = 1 << 18
F_DEFAULT = (1 << 0) | (1 << 1) | (1 << 5) | (1 << 8) | (1 << 9) | (1 << 10) | (1 << 12) | F_SAMPLE_ID_ALL

MISC_KERNEL, MISC_USER = 1, 2
MISC_MMAP_BUILD_ID = 1 << 14
MISC_BUILD_ID_SIZE = 1 << 15

CTX_HV = (1 << 64) - 32
CTX_KERNEL = (1 << 64) - 128
CTX_USER = (1 << 64) - 512
CTX_GUEST = (1 << 64) - 2048

FEAT_BUILD_ID, FEAT_HOSTNAME, FEAT_OSRELEASE, FEAT_VERSION, FEAT_ARCH = 2, 3, 4, 5, 6
FEAT_NRCPUS, FEAT_CMDLINE, FEAT_EVENT_DESC, FEAT_COMPRESSED = 7, 11, 12, 27

ST_DEFAULT = S_IP | S_TID | S_TIME | S_CALLCHAIN | S_ID | S_CPU | S_PERIOD | S_IDENTIFIER
ST_DWARF = ST_DEFAULT | S_REGS_USER | S_STACK_USER
REGS_X86 = 0xff0fff  # perf's x86-64 user register mask


def u16(v): return struct.pack("<H", v & 0xffff)
def u32(v): return struct.pack("<I", v & 0xffffffff)
def u64(v): return struct.pack("<Q", v & 0xffffffffffffffff)


def pad8(b, extra=0):
    """b NUL-terminated (at least `extra` NULs) and padded to 8 bytes."""
    b = b + b"\0" * max(extra, 1)
    return b + b"\0" * (-len(b) % 8)


# ---- attributes ----
class Attr:
    def __init__(self, type=1, config=0, period=1000000, sample_type=ST_DEFAULT, read_format=0,
                 flags=F_DEFAULT, size=128, branch=0, regs_user=0, stack_user=0, ids=(1,), name=None):
        self.__dict__.update(locals())
        del self.__dict__["self"]

    def pack(self, size=None):
        size = self.size if size is None else size
        b = (u32(self.type) + u32(size) + u64(self.config) + u64(self.period) + u64(self.sample_type) +
             u64(self.read_format) + u64(self.flags) + u32(0) + u32(0) + u64(0) + u64(0) +
             u64(self.branch) + u64(self.regs_user) + u32(self.stack_user) + u32(0) + u64(0) +
             u32(0) + u16(0) + u16(0) + u32(0) + u32(0) + u64(0))
        return (b + b"\0" * max(0, size - len(b)))[:size]


def hdr(type, misc, size):
    return u32(type) + u16(misc) + u16(size)


def rec(type, body, misc=0, size=None):
    """A record: its header, then body (size: force header.size)."""
    n = 8 + len(body)
    return hdr(type, misc, n if size is None else size) + body


def sample_id(a, pid, tid, time, id=None, cpu=0):
    """The sample_id_all trailer of a non-sample record for attribute a."""
    if not a.flags & F_SAMPLE_ID_ALL:
        return b""
    st, b = a.sample_type, b""
    id = a.ids[0] if id is None and a.ids else (id or 0)
    if st & S_TID: b += u32(pid) + u32(tid)
    if st & S_TIME: b += u64(time)
    if st & S_ID: b += u64(id)
    if st & S_STREAM_ID: b += u64(id)
    if st & S_CPU: b += u32(cpu) + u32(0)
    if st & S_IDENTIFIER: b += u64(id)
    return b


def r_mmap(a, pid, tid, start, length, pgoff, fname, time=1, misc=MISC_USER):
    return rec(MMAP, u32(pid) + u32(tid) + u64(start) + u64(length) + u64(pgoff) +
               pad8(fname.encode() if isinstance(fname, str) else fname) + sample_id(a, pid, tid, time), misc)


def r_mmap2(a, pid, tid, start, length, pgoff, fname, time=1, misc=MISC_USER, prot=5, flags=2, bid=None):
    if bid is not None:
        misc |= MISC_MMAP_BUILD_ID
        mid = bytes([len(bid)]) + b"\0" * 3 + (bid + b"\0" * 20)[:20]
    else:
        mid = u32(8) + u32(1) + u64(1234) + u64(0)
    return rec(MMAP2, u32(pid) + u32(tid) + u64(start) + u64(length) + u64(pgoff) + mid + u32(prot) +
               u32(flags) + pad8(fname.encode() if isinstance(fname, str) else fname) +
               sample_id(a, pid, tid, time), misc)


def r_comm(a, pid, tid, comm, time=1, exec_=False):
    return rec(COMM, u32(pid) + u32(tid) + pad8(comm.encode() if isinstance(comm, str) else comm) +
               sample_id(a, pid, tid, time), (1 << 13) if exec_ else 0)


def r_fork(a, pid, ppid, tid, ptid, time=1, type=FORK, misc=0):
    return rec(type, u32(pid) + u32(ppid) + u32(tid) + u32(ptid) + u64(time) +
               sample_id(a, pid, tid, time), misc)


def r_lost(a, n, time=1):
    return rec(LOST, u64(a.ids[0] if a.ids else 0) + u64(n) + sample_id(a, 0, 0, time))


def r_ksymbol(a, addr, length, name, time=1, flags=0):
    return rec(KSYMBOL, u64(addr) + u32(length) + u16(1) + u16(flags) + pad8(name.encode()) +
               sample_id(a, -1, -1, time))    # header.misc 0, as the kernel writes it


def r_round():
    return rec(FINISHED_ROUND, b"")


def r_sample(a, pid, tid, time, ip=0x401000, chain=(), misc=MISC_USER, period=None, id=None,
             regs=None, stack=None, read=None, raw=b"", branch=(), nchain=None, extra=b""):
    st, b = a.sample_type, b""
    id = a.ids[0] if id is None and a.ids else (id or 0)
    if st & S_IDENTIFIER: b += u64(id)
    if st & S_IP: b += u64(ip)
    if st & S_TID: b += u32(pid) + u32(tid)
    if st & S_TIME: b += u64(time)
    if st & S_ADDR: b += u64(0xdead)
    if st & S_ID: b += u64(id)
    if st & S_STREAM_ID: b += u64(id)
    if st & S_CPU: b += u32(0) + u32(0)
    if st & S_PERIOD: b += u64(a.period if period is None else period)
    if st & S_READ:
        b += read if read is not None else u64(1) + (u64(id) if a.read_format & RF_ID else b"")
    if st & S_CALLCHAIN:
        b += u64(len(chain) if nchain is None else nchain) + b"".join(u64(x) for x in chain)
    if st & S_RAW:
        r = u32(len(raw)) + raw
        b += r + b"\0" * (-(len(r)) % 8)
    if st & S_BRANCH_STACK:
        b += u64(len(branch))
        if a.branch & (1 << 17): b += u64(0)
        for f, t in branch: b += u64(f) + u64(t) + u64(0)
    if st & S_REGS_USER:
        if regs is None: b += u64(0)
        else: b += u64(2) + b"".join(u64(x) for x in regs)
    if st & S_STACK_USER:
        if stack is None: b += u64(0)
        else: b += u64(len(stack)) + stack + u64(len(stack))
    if st & S_WEIGHT: b += u64(0)
    if st & S_DATA_SRC: b += u64(0)
    return rec(SAMPLE, b + extra, misc)


# ---- feature sections ----
def f_string(s, align=64):
    b = s.encode() if isinstance(s, str) else s
    b = b + b"\0"
    b += b"\0" * (-len(b) % align)
    return u32(len(b)) + b


def f_cmdline(args):
    return u32(len(args)) + b"".join(f_string(x) for x in args)


def f_build_ids(entries):
    """entries: (misc, pid, bid bytes, path)"""
    out = b""
    for misc, pid, bid, path in entries:
        body = u32(pid) + (bid + b"\0" * 20)[:20] + bytes([len(bid)]) + b"\0" * 3 + pad8(path.encode(), 1)
        body += b"\0" * (-(len(body) + 8) % 64)
        out += rec(HEADER_BUILD_ID, body, misc | MISC_BUILD_ID_SIZE)
    return out


def f_event_desc(attrs, names=None, attr_size=128):
    out = u32(len(attrs)) + u32(attr_size)
    for i, a in enumerate(attrs):
        name = (names[i] if names else a.name) or "cpu-clock:u"
        out += a.pack(attr_size) + u32(len(a.ids)) + f_string(name) + b"".join(u64(x) for x in a.ids)
    return out


def f_compressed(level=1, mmap_len=1 << 16):
    return u32(0) + u32(1) + u32(level) + u32(16) + u32(mmap_len)


DEFAULT_FEATS = None


def default_feats(attrs):
    return {
        FEAT_BUILD_ID: f_build_ids([(MISC_USER, 100, bytes(range(1, 21)), "/usr/bin/true"),
                                    (MISC_KERNEL, -1, bytes(range(20)), "[kernel.kallsyms]")]),
        FEAT_HOSTNAME: f_string("fuzzhost"),
        FEAT_OSRELEASE: f_string("6.1.0-fuzz"),
        FEAT_NRCPUS: u32(2) + u32(2),
        FEAT_CMDLINE: f_cmdline(["/usr/bin/perf", "record", "-g", "true"]),
        FEAT_EVENT_DESC: f_event_desc(attrs),
    }


# ---- whole files ----
def perf_file(attrs, data, feats=None, attr_size=None, hsize=104, tweak=None):
    """The file form: header, attrs (each with its ids section), ids, data,
    feature index and sections. tweak(dict) may change header fields."""
    feats = default_feats(attrs) if feats is None else feats
    asz = attr_size or (attrs[0].size if attrs else 128)
    entry = asz + 16
    off_attrs = hsize
    off_ids = off_attrs + entry * len(attrs)
    idblob, attrblob = b"", b""
    for a in attrs:
        ids = b"".join(u64(x) for x in a.ids)
        attrblob += a.pack(asz) + u64(off_ids + len(idblob)) + u64(len(ids))
        idblob += ids
    off_data = off_ids + len(idblob)
    off_data += -off_data % 8
    feat_bits = [0, 0, 0, 0]
    for f in feats:
        feat_bits[f // 64] |= 1 << (f % 64)
    off_feat = off_data + len(data)
    index, blobs = b"", b""
    fstart = off_feat + 16 * len(feats)
    for f in sorted(feats):
        index += u64(fstart + len(blobs)) + u64(len(feats[f]))
        blobs += feats[f]
    h = dict(magic=MAGIC, size=hsize, attr_size=entry, attrs=(off_attrs, len(attrblob)),
             data=(off_data, len(data)), event_types=(0, 0), feats=feat_bits)
    if tweak:
        tweak(h)
    head = (h["magic"] + u64(h["size"]) + u64(h["attr_size"]) + u64(h["attrs"][0]) + u64(h["attrs"][1]) +
            u64(h["data"][0]) + u64(h["data"][1]) + u64(h["event_types"][0]) + u64(h["event_types"][1]) +
            b"".join(u64(x) for x in h["feats"]))
    head += b"\0" * (hsize - len(head))
    body = head + attrblob + idblob
    body += b"\0" * (off_data - len(body))
    return body + data + index + blobs


def pipe_header():
    return MAGIC + u64(16)


def r_header_attr(a, size=None):
    return rec(HEADER_ATTR, a.pack(size) + b"".join(u64(x) for x in a.ids))


def r_header_feature(feat, body):
    return rec(HEADER_FEATURE, u64(feat) + body)


def pipe_file(attrs, data, feats=None):
    feats = default_feats(attrs) if feats is None else feats
    out = pipe_header()
    for a in attrs:
        out += r_header_attr(a)
    for f in sorted(feats):
        if f != FEAT_BUILD_ID:
            out += r_header_feature(f, feats[f])
    return out + rec(FINISHED_INIT, b"") + data


# ---- zstd through ctypes ----
_zstd = None


def zstd():
    global _zstd
    if _zstd is None:
        _zstd = False
        name = ctypes.util.find_library("zstd")
        for cand in ([name] if name else []) + ["libzstd.so.1", "libzstd.so"]:
            try:
                lib = ctypes.CDLL(cand)
                lib.ZSTD_compressBound.restype = ctypes.c_size_t
                lib.ZSTD_compress.restype = ctypes.c_size_t
                lib.ZSTD_compress.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p,
                                              ctypes.c_size_t, ctypes.c_int]
                lib.ZSTD_isError.argtypes = [ctypes.c_size_t]
                _zstd = lib
                break
            except OSError:
                continue
    return _zstd


def zcompress(data, level=1):
    lib = zstd()
    cap = lib.ZSTD_compressBound(ctypes.c_size_t(len(data)))
    out = ctypes.create_string_buffer(cap)
    n = lib.ZSTD_compress(out, cap, data, len(data), level)
    if lib.ZSTD_isError(n):
        raise RuntimeError("zstd")
    return out.raw[:n]


def r_compressed(payload):
    return rec(COMPRESSED, payload)


# ---- a small recording ----
PID = 4242
EXE = "/usr/bin/true"
LIBC = "/usr/lib/x86_64-linux-gnu/libc.so.6"


def workload(a, pid=PID, t0=1000, rounds=True, dwarf=False, kernel=True, a2=None):
    """A process: comm, mmaps, a thread forked, samples with callchains
    (user, kernel, hypervisor markers), lost, ksymbol, unknown records."""
    d = b""
    if kernel:
        d += r_mmap(a, -1, 0, 0xffffffff81000000, 0x1000000, 0xffffffff81000000,
                    "[kernel.kallsyms]_text", t0, MISC_KERNEL)
        d += r_mmap(a, -1, 0, 0xffffffffc0000000, 0x4000, 0, "/lib/modules/x/kernel/drivers/ext4-fs.ko",
                    t0, MISC_KERNEL)
    d += r_comm(a, pid, pid, "perf", t0)
    d += r_comm(a, pid, pid, "true", t0 + 1, exec_=True)
    d += r_mmap2(a, pid, pid, 0x400000, 0x5000, 0, EXE, t0 + 2, bid=bytes(range(1, 21)))
    d += r_mmap2(a, pid, pid, 0x7f0000000000, 0x200000, 0x28000, LIBC, t0 + 3)
    d += r_mmap(a, pid, pid, 0x7fff00000000, 0x2000, 0, "[vdso]", t0 + 4)
    d += r_mmap2(a, pid, pid, 0x7e0000000000, 0x10000, 0, "//anon", t0 + 5, prot=7)
    d += r_mmap2(a, pid, pid, 0x600000, 0x1000, 0, "[heap]", t0 + 5, prot=3)
    d += r_fork(a, pid, pid, pid + 1, pid, t0 + 6)
    d += r_comm(a, pid, pid + 1, "worker", t0 + 7)
    d += r_fork(a, pid + 5, pid, pid + 5, pid, t0 + 7)  # a new process: maps copied
    if rounds:
        d += r_round()
    chains = [
        [CTX_USER, 0x401010, 0x7f0000001234, 0x401100],
        [CTX_KERNEL, 0xffffffff81001234, 0xffffffffc0000100, CTX_USER, 0x401020, 0x7e0000000040],
        [CTX_HV, 0x1000, CTX_KERNEL, 0xffffffff81000010, CTX_USER, 0x7fff00000100],
        [CTX_USER] + [0x401000 + 16 * i for i in range(140)],      # past max-stack
        [CTX_GUEST, 0x401010],                                     # unknown marker
        [],
    ]
    for i, ch in enumerate(chains):
        tid = pid + (i % 2)
        regs = stack = None
        if dwarf:
            regs = [0x7ffd0000 + 8 * k for k in range(bin(REGS_X86).count("1"))]
            stack = bytes(range(256)) * 2
        d += r_sample(a, pid, tid, t0 + 10 + i, ip=ch[1] if len(ch) > 1 else 0x401000, chain=ch,
                      regs=regs, stack=stack, misc=MISC_KERNEL if i == 1 else MISC_USER)
        if a2 is not None:
            d += r_sample(a2, pid, tid, t0 + 10 + i, chain=ch)
        if rounds and i == 2:
            d += r_round()
    d += r_sample(a, 0, 0, t0 + 20, ip=0xffffffff81000100, chain=[CTX_KERNEL, 0xffffffff81000100],
                  misc=MISC_KERNEL)
    d += r_lost(a, 3, t0 + 21)
    d += rec(LOST_SAMPLES, u64(2) + sample_id(a, pid, pid, t0 + 21))
    d += r_ksymbol(a, 0xffffffffa0000000, 0x100, "bpf_prog_1234_fuzz", t0 + 22)
    d += r_sample(a, pid, pid, t0 + 23, ip=0xffffffffa0000010, chain=[CTX_KERNEL, 0xffffffffa0000010],
                  misc=MISC_KERNEL)
    d += rec(30, u64(1) + sample_id(a, pid, pid, t0 + 24))    # a kernel type not handled
    d += rec(99, u64(1))                                      # unknown, beyond perf's
    d += rec(THROTTLE, u64(t0) + u64(1) + u64(1) + sample_id(a, pid, pid, t0 + 25))
    d += r_fork(a, pid, pid, pid + 1, pid, t0 + 26, type=EXIT)
    if rounds:
        d += r_round()
    return d


def attr_dwarf(ids=(1,)):
    return Attr(sample_type=ST_DWARF, regs_user=REGS_X86, stack_user=512, ids=ids, name="cpu-clock:u")


def valid_seeds():
    """name -> bytes"""
    s = {}
    a = Attr(ids=(11, 12), name="cpu-clock:u")
    s["file-fp"] = perf_file([a], workload(a))
    s["file-no-rounds"] = perf_file([a], workload(a, rounds=False))
    ad = attr_dwarf()
    s["file-dwarf"] = perf_file([ad], workload(ad, dwarf=True))
    a1 = Attr(ids=(21, 22), name="cpu-clock:u")
    a2 = Attr(type=1, config=1, ids=(31, 32), name="task-clock:u",
              sample_type=ST_DEFAULT | S_READ, read_format=RF_ID | RF_GROUP)
    s["file-two-events"] = perf_file([a1, a2], workload(a1, a2=Attr(type=1, config=1, ids=(31,),
                                     sample_type=ST_DEFAULT | S_READ, read_format=RF_ID | RF_GROUP)))
    # no sample_id_all: nothing ordered, no trailers; an old attr size
    a0 = Attr(flags=F_DEFAULT & ~F_SAMPLE_ID_ALL, sample_type=S_IP | S_TID | S_TIME | S_CALLCHAIN | S_PERIOD,
              size=64, ids=(5,))
    s["file-v0-unordered"] = perf_file([a0], workload(a0), feats={FEAT_HOSTNAME: f_string("h")})
    # no callchain: the one-line form
    an = Attr(sample_type=S_IP | S_TID | S_TIME | S_PERIOD | S_ID, ids=(7,))
    s["file-nochain"] = perf_file([an], workload(an), feats={})
    # every field a sample can carry before the stack
    ar = Attr(sample_type=ST_DEFAULT | S_ADDR | S_STREAM_ID | S_RAW | S_BRANCH_STACK | S_WEIGHT | S_DATA_SRC |
              S_READ, read_format=RF_TOTAL_TIME_ENABLED | RF_TOTAL_TIME_RUNNING | RF_ID | RF_LOST,
              branch=1 << 17, ids=(9,))
    d = workload(ar, kernel=False)
    d += r_sample(ar, PID, PID, 2000, chain=[CTX_USER, 0x401010], raw=b"rawdata!!",
                  branch=[(0x401000, 0x401010), (0x401020, 0x401030)],
                  read=u64(1) + u64(2) + u64(3) + u64(9) + u64(0))
    s["file-many-fields"] = perf_file([ar], d)
    # event update names an event
    d = rec(EVENT_UPDATE, u64(1) + u64(11) + pad8(b"renamed-event")) + workload(a)
    s["file-event-update"] = perf_file([a], d, feats={FEAT_HOSTNAME: f_string("x")})
    # the stream form
    ap = Attr(ids=(41,), name="cpu-clock:u")
    s["pipe-fp"] = pipe_file([ap], workload(ap))
    s["pipe-tracing"] = pipe_file([ap], rec(HEADER_TRACING_DATA, u32(13) + u32(0)) + b"tracingdata" + b"\0" * 5 +
                                  f_build_ids([(MISC_USER, PID, b"\x01\x02", EXE)]) + workload(ap))
    s["pipe-dwarf"] = pipe_file([attr_dwarf((51,))], workload(attr_dwarf((51,)), dwarf=True))
    # compressed records (file: one chunk holding the records, another cut
    # mid-record and completed by the next)
    if zstd():
        w = workload(a)
        half = len(w) // 2 + 3
        zrecs = r_compressed(zcompress(w[:half])) + r_compressed(zcompress(w[half:]))
        feats = default_feats([a])
        feats[FEAT_COMPRESSED] = f_compressed()
        s["file-zstd"] = perf_file([a], zrecs, feats=feats)
        s["pipe-zstd"] = pipe_file([ap], r_header_feature(FEAT_COMPRESSED, f_compressed()) +
                                   r_compressed(zcompress(workload(ap))))
    return s


# ---- hostile ----
def hostile(big=False):
    """name -> bytes; each must load (exit 0 or 1) quickly in bounded memory."""
    h = {}
    a = Attr(ids=(11,), name="cpu-clock:u")
    base = perf_file([a], workload(a))
    w = workload(a)
    # truncated at every record boundary and mid-record (a sample of them)
    # locate the data section from the header
    doff, dsz = struct.unpack_from("<QQ", base, 40)
    pos, k = doff, 0
    while pos < doff + dsz:
        size = struct.unpack_from("<H", base, pos + 6)[0]
        if k % 3 == 0:
            h["trunc-at-record-%d" % k] = base[:pos]
            h["trunc-mid-record-%d" % k] = base[:pos + size // 2]
        pos += size
        k += 1
    for n in (0, 8, 15, 16, 17, 64, 103, 104, 105, 200):
        h["trunc-header-%d" % n] = base[:n]
    p = pipe_file([a], w)
    for n in (16, 20, 24, 100, len(p) // 2, len(p) - 3):
        h["pipe-trunc-%d" % n] = p[:n]
    # record sizes 0, 7, 65535
    for sz in (0, 7, 65535):
        h["recsize-%d" % sz] = perf_file([a], w[:200] + hdr(SAMPLE, 2, sz) + w[200:])
        h["pipe-recsize-%d" % sz] = pipe_file([a], w[:200] + hdr(SAMPLE, 2, sz) + w[200:])
    # header fields out of range
    def tw(field, val):
        def f(hd):
            hd[field] = val
        return f
    E = 1 << 63
    for name, field, val in [
        ("attr-size-0", "attr_size", 0), ("attr-size-8", "attr_size", 8), ("attr-size-80", "attr_size", 80),
        ("attr-size-huge", "attr_size", (1 << 64) - 8), ("attr-size-past-end", "attr_size", 1 << 20),
        ("attrs-past-end", "attrs", (1 << 20, 144)), ("attrs-size-huge", "attrs", (104, (1 << 64) - 1)),
        ("attrs-wrap", "attrs", ((1 << 64) - 8, 144)),
        ("data-past-end", "data", (1 << 30, 100)), ("data-size-huge", "data", (288, (1 << 64) - 1)),
        ("data-wrap", "data", ((1 << 64) - 16, 64)), ("data-overlaps-header", "data", (0, 4096)),
        ("data-overlaps-attrs", "data", (104, 4096)), ("hsize-huge", "size", 1 << 40),
        ("feats-all", "feats", [(1 << 64) - 1] * 4), ("data-size-wraps-feats", "data", (288, E)),
    ]:
        h["hdr-" + name] = perf_file([a], w, tweak=tw(field, val))
    # ids section of an attr past the end / huge
    bad = bytearray(base)
    struct.pack_into("<QQ", bad, 104 + 128, (1 << 64) - 8, 16)
    h["ids-section-wrap"] = bytes(bad)
    struct.pack_into("<QQ", bad, 104 + 128, 200, (1 << 62))
    h["ids-section-huge"] = bytes(bad)
    # feature sections pointing past the end / overlapping the header
    def feat_at(off, size):
        b = bytearray(base)
        findex = doff + dsz
        for i in range(6):
            struct.pack_into("<QQ", b, findex + 16 * i, off, size)
        return bytes(b)
    h["feat-past-end"] = feat_at(1 << 40, 64)
    h["feat-size-huge"] = feat_at(0, (1 << 64) - 1)
    h["feat-overlap-header"] = feat_at(0, 104)
    h["feat-overlap-data"] = feat_at(doff, dsz)
    # callchains: huge nr, nr just past the record, all markers
    h["chain-nr-huge"] = perf_file([a], w + r_sample(a, PID, PID, 5000, chain=[CTX_USER, 1], nchain=(1 << 61)))
    h["chain-nr-max"] = perf_file([a], w + r_sample(a, PID, PID, 5000, chain=[CTX_USER, 1], nchain=(1 << 64) - 1))
    h["chain-nr-plus1"] = perf_file([a], w + r_sample(a, PID, PID, 5000, chain=[CTX_USER, 1], nchain=3))
    h["chain-markers-only"] = perf_file([a], w + r_sample(a, PID, PID, 5000, chain=[CTX_KERNEL, CTX_USER] * 4000))
    h["chain-long"] = perf_file([a], w + r_sample(a, PID, PID, 5000, chain=[CTX_USER] + list(range(0x401000, 0x401000 + 8000))))
    # read_format GROUP with huge nr
    ag = Attr(sample_type=ST_DEFAULT | S_READ, read_format=RF_GROUP | RF_ID | RF_LOST | 3, ids=(11,))
    for nr in (1 << 40, (1 << 64) - 1, 1 << 61, 2):
        h["read-group-nr-%x" % nr] = perf_file([ag], workload(ag, kernel=False) +
                                             r_sample(ag, PID, PID, 5000, read=u64(nr) + u64(0) * 4))
    # sample_type with every bit (known and unknown)
    for name, st in (("all-known", S_ALL), ("all-bits", (1 << 64) - 1), ("all-known-no-id", S_ALL & ~(S_ID | S_IDENTIFIER))):
        ax = Attr(sample_type=st, read_format=(1 << 64) - 1, branch=(1 << 64) - 1, regs_user=(1 << 64) - 1,
                  ids=(11,))
        h["sample-type-" + name] = perf_file([ax], workload(a) + rec(SAMPLE, u64(11) * 100, MISC_USER))
        h["sample-type-" + name + "-short"] = perf_file([ax], workload(a) + rec(SAMPLE, u64(11) * 3))
    # stack size huge, regs abi with no regs
    ad = attr_dwarf((11,))
    def dwarf_sample(stack_size, dyn, stack=b"", abi=2):
        return rec(SAMPLE, u64(11) + u64(0x400010) + u32(PID) * 2 + u64(10) + u64(11) + u64(0) + u64(1) +
                   u64(2) + u64(CTX_USER) + u64(0x400010) + u64(abi) + (u64(0) * 17 if abi else b"") +
                   u64(stack_size) + stack + u64(dyn), MISC_USER)
    h["stack-size-huge"] = perf_file([ad], workload(ad, dwarf=True) + dwarf_sample((1 << 64) - 1, 0))
    h["stack-size-past-record"] = perf_file([ad], workload(ad, dwarf=True) + dwarf_sample(4096, 4096, b"\1" * 64))
    h["stack-abi-none"] = perf_file([ad], workload(ad, dwarf=True) + dwarf_sample(64, 64, b"\1" * 64, abi=0))
    h["stack-dyn-bigger"] = perf_file([ad], workload(ad, dwarf=True) + r_sample(ad, PID, PID, 10, chain=[CTX_USER, 0x401000], regs=[0] * 17, stack=b"\xff" * 64)[:-8] + u64(1 << 40))
    # EVENT_DESC with huge counts
    ed = {FEAT_EVENT_DESC: u32(0xffffffff) + u32(0xffffffff) + b"\0" * 64}
    h["event-desc-huge-count"] = perf_file([a], w, feats=ed)
    ed = {FEAT_EVENT_DESC: u32(0xffffffff) + u32(128) + (a.pack() + u32(0xffffffff) + f_string("x")) * 3}
    h["event-desc-huge-ids"] = perf_file([a], w, feats=ed)
    ed = {FEAT_EVENT_DESC: u32(1000000) + u32(0) + (u32(0) + u32(4) + b"ev\0\0") * 20000}
    h["event-desc-many-names"] = perf_file([a], w, feats=ed)
    ed = {FEAT_EVENT_DESC: u32(2) + u32(128) + a.pack() + u32(1) + u32(0xfffffff0) + b"x" * 16}
    h["event-desc-string-huge"] = perf_file([a], w, feats=ed)
    h["cmdline-huge"] = perf_file([a], w, feats={FEAT_CMDLINE: u32(0xffffffff) + f_string("\x1b[31mred\x07" * 40) * 50})
    h["hostname-controls"] = perf_file([a], w, feats={FEAT_HOSTNAME: f_string("\x1b]0;pwned\x07\x9b31m"),
                                                      FEAT_OSRELEASE: u32(0xffffffff) + b"x"})
    h["build-id-sizes"] = perf_file([a], w, feats={FEAT_BUILD_ID: hdr(0, 0, 36) + b"\0" * 28 + hdr(0, 0x8000, 0xffff) +
                                                   b"\0" * 60 + hdr(0, 0x8000, 40) + u32(1) + b"\x01" * 20 + b"\xff" + b"\0" * 11})
    # event names with terminal controls (reach messages, status line)
    ae = Attr(ids=(11,), name="\x1b[2J\x1b]0;x\x07ev\x7f\xc2\x9b")
    h["event-name-controls"] = perf_file([ae], workload(ae) +
                                         r_comm(ae, PID, PID, "\x1b[31mcomm\x00", 9999) +
                                         r_mmap(ae, PID, PID, 0x900000, 0x1000, 0, "/tmp/\x1b[2Jevil\nname", 9999) +
                                         r_sample(ae, PID, PID, 10000, chain=[CTX_USER, 0x900010]))
    # pipe: HEADER_TRACING_DATA of huge size; AUXTRACE with huge trailing size
    h["pipe-tracing-huge"] = pipe_file([a], rec(HEADER_TRACING_DATA, u32(0xffffffff) + u32(0)) + w)
    h["pipe-auxtrace-huge"] = pipe_file([a], rec(AUXTRACE, u64((1 << 64) - 8) + u64(0) * 4) + w)
    h["file-auxtrace-huge"] = perf_file([a], rec(AUXTRACE, u64((1 << 64) - 8) + u64(0) * 4) + w)
    h["pipe-attr-size-huge"] = pipe_header() + rec(HEADER_ATTR, a.pack(0xffff) + u64(1)) + w
    h["pipe-attr-size-small"] = pipe_header() + rec(HEADER_ATTR, a.pack(16)) + w
    h["pipe-records-before-attr"] = pipe_header() + w + r_header_attr(a) + w
    h["pipe-many-attrs"] = pipe_header() + b"".join(r_header_attr(Attr(ids=(i, i + 1))) for i in range(0, 4000, 2)) + w
    h["pipe-file-header"] = MAGIC + u64(104) + base[16:]
    # a stream of many events without FINISHED_ROUND, time going backwards
    many = b"".join(r_sample(a, PID, PID, 10 ** 6 - i, chain=[CTX_USER, 0x401010]) for i in range(20000))
    h["no-rounds-many"] = perf_file([a], workload(a, rounds=False) + many)
    h["rounds-only"] = perf_file([a], r_round() * 20000)
    # samples without TID: thread -1, a comm the perf script reader cannot
    # split (its root frame had a NULL name)
    an = Attr(sample_type=S_IP | S_PERIOD, flags=F_DEFAULT & ~F_SAMPLE_ID_ALL, ids=(11,))
    h["sample-no-tid"] = perf_file([an], r_sample(an, 0, 0, 0, ip=0x401000) * 2, feats={})
    # FORK/MMAP: many maps, many threads, forks copying maps
    d = r_comm(a, 1, 1, "init")
    for i in range(3000):
        d += r_mmap(a, 1, 1, 0x10000000 + i * 0x2000, 0x1000, 0, "/lib/x%d.so" % i)
    for i in range(300):
        d += r_fork(a, 1000 + i, 1, 1000 + i, 1)
    h["fork-copies-maps"] = perf_file([a], d)
    d = b""
    for i in range(2000):
        d += r_fork(a, 2 + i, 1 + i, 2 + i, 1 + i) + r_mmap(a, 2 + i, 2 + i, 0x400000 + i * 0x1000, 0x1000, 0, EXE)
    d += r_sample(a, 2001, 2001, 10, chain=[CTX_USER, 0x400010, 0x400000 + 1999 * 0x1000])
    h["fork-chain-deep"] = perf_file([a], d)
    d = b"".join(r_comm(a, 4096 * i, 4096 * i, "t") for i in range(1, 6000))
    h["threads-same-bucket"] = perf_file([a], d)
    d = b"".join(r_mmap(a, PID, PID, 0x400000 + (i % 7) * 0x800, 0x1800 + i, i, EXE) for i in range(5000))
    h["mmaps-overlapping"] = perf_file([a], d + r_sample(a, PID, PID, 10, chain=[CTX_USER, 0x400010]))
    d = b"".join(r_mmap2(a, PID, PID, 0x400000, 0x1000, 0, EXE, bid=struct.pack("<I", i) * 5) for i in range(4000))
    h["dsos-same-name-many-bids"] = perf_file([a], d)
    d = b"".join(r_mmap(a, -1, 0, 0xffffffff00000000 + i * 0x1000, 0x1000, 0, "m%d" % i, misc=MISC_KERNEL)
                 for i in range(3000))
    h["kernel-modules-many"] = perf_file([a], d + r_sample(a, PID, PID, 10, chain=[CTX_KERNEL, 0xffffffff00000010]))
    h["mmap-wraps"] = perf_file([a], r_mmap(a, PID, PID, (1 << 64) - 0x1000, 0x2000, 0, EXE) +
                                r_mmap(a, -1, 0, (1 << 64) - 0x1000, 0x2000, 0, "[kernel.kallsyms]_text", misc=MISC_KERNEL) +
                                r_mmap(a, -1, 0, (1 << 64) - 0x1000, 0x2000, 0, "mod.ko", misc=MISC_KERNEL) +
                                r_ksymbol(a, (1 << 64) - 0x10, 0x100, "wrap") +
                                r_sample(a, PID, PID, 10, chain=[CTX_USER, (1 << 64) - 0x1001, CTX_KERNEL, (1 << 64) - 0x1001]))
    h["mmap-name-unterminated"] = perf_file([a], rec(MMAP, u32(PID) * 2 + u64(0x400000) + u64(0x1000) + u64(0) + b"A" * 5000, MISC_USER) +
                                            rec(MMAP, u32(PID) * 2 + u64(0x400000) + u64(0x1000) + u64(0) + b"/usr/bin/tru", MISC_USER) +
                                            r_sample(a, PID, PID, 10, chain=[CTX_USER, 0x400010]))
    # symbol files that are not ELF, at paths an MMAP names
    # a FIFO nobody writes to (the caller creates it; see hostile-perfdata.sh)
    fifo = os.environ.get("HOSTILE_FIFO", "/tmp/tflame-hostile-fifo")
    for name, path in (("passwd", "/etc/passwd"), ("dev-zero", "/dev/zero"), ("dev-zero-deleted", "/dev/zero (deleted)"),
                       ("dev-urandom", "/dev/urandom"), ("dev-stdin", "/dev/stdin"), ("dev-tty", "/dev/tty"),
                       ("fifo", fifo), ("proc-self-mem", "/proc/self/mem"), ("proc-kcore", "/proc/kcore"),
                       ("proc-self-fd0", "/proc/self/fd/0"), ("dir", "/etc"), ("sys-file", "/sys/kernel/notes"),
                       ("proc-self-exe", "/proc/self/exe"), ("relative", "relative/path.so"), ("empty", "")):
        d = (r_mmap2(a, PID, PID, 0x400000, 0x10000, 0, path, prot=5) +
             r_mmap(a, PID, PID, 0x500000, 0x10000, 0, path) +
             r_sample(a, PID, PID, 10, chain=[CTX_USER, 0x400010, 0x500010]))
        h["mmap-" + name] = perf_file([a], d)
        ad2 = attr_dwarf((11,))
        d = (r_mmap2(ad2, PID, PID, 0x400000, 0x10000, 0, path, prot=5) +
             r_sample(ad2, PID, PID, 10, chain=[CTX_USER, 0x400010], regs=[0x400010] * 17, stack=b"\0" * 256))
        h["mmap-dwarf-" + name] = perf_file([ad2], d)
    # compressed: garbage, a bomb, and a record split across chunks forever
    if zstd():
        feats = {FEAT_COMPRESSED: f_compressed()}
        h["zstd-garbage"] = perf_file([a], r_compressed(b"\x28\xb5\x2f\xfd" + b"\xff" * 100) + w, feats=feats)
        h["zstd-empty"] = perf_file([a], r_compressed(b"") + w, feats=feats)
        h["zstd-record-size-0"] = perf_file([a], r_compressed(zcompress(b"\0" * 64)) + w, feats=feats)
        h["zstd-partial-forever"] = perf_file([a], r_compressed(zcompress(hdr(SAMPLE, 2, 0xffff) + b"\0" * 100)) +
                                              r_compressed(zcompress(w)) * 3, feats=feats)
        h["zstd-nested"] = perf_file([a], r_compressed(zcompress(r_compressed(zcompress(w)))), feats=feats)
        # 60 MiB of zeros per record in ~2 KiB: inflated whole before framing
        bomb = zcompress(b"\0" * (60 << 20), 19)
        h["zstd-bomb-zeros"] = perf_file([a], r_compressed(bomb) + w, feats=feats)
        # the same with valid records: 60 MiB of LOST records per 64 KiB record
        lost = r_lost(a, 1) * ((60 << 20) // len(r_lost(a, 1)))
        h["zstd-bomb-records"] = perf_file([a], r_compressed(zcompress(lost, 19)) + w, feats=feats)
        h["pipe-zstd-bomb-zeros"] = pipe_file([a], r_compressed(bomb) + w)
        if big:
            # one COMPRESSED record as large as allowed, of zeros: ~ 2 GiB
            z = zcompress(b"\0" * (1800 << 20), 19)
            h["big-zstd-bomb-1.8g"] = perf_file([a], r_compressed(z[:65527]), feats=feats)
    if big:
        # a build id per object and as many objects: lookups are linear
        ents = [(MISC_USER, 1, struct.pack("<I", i) * 5, "/o/%d" % i) for i in range(40000)]
        d = b"".join(r_mmap(a, PID, PID, 0x100000 + i * 0x1000, 0x1000, 0, "/p/%d" % i) for i in range(40000))
        h["big-bids-x-dsos"] = perf_file([a], d, feats={FEAT_BUILD_ID: f_build_ids(ents)})
        d = b"".join(r_mmap2(a, PID, PID, 0x400000, 0x1000, 0, EXE, bid=struct.pack("<I", i) * 5) for i in range(60000))
        h["big-dsos-same-name"] = perf_file([a], d)
        d = b"".join(r_comm(a, 4096 * i, 4096 * i, "t") for i in range(1, 100000))
        h["big-threads-same-bucket"] = perf_file([a], d)
        d = [r_comm(a, 1, 1, "init")]
        for i in range(20000):
            d.append(r_mmap(a, 1, 1, 0x10000000 + i * 0x2000, 0x1000, 0, "/l"))
        for i in range(20000):
            d.append(r_fork(a, 100000 + i, 1, 100000 + i, 1))
        h["big-fork-copies-maps"] = perf_file([a], b"".join(d))
        # past the per-process and total map limits: every fork still
        # tries to copy 65,000 maps
        d = [r_comm(a, 1, 1, "init")]
        for i in range(65000):
            d.append(r_mmap(a, 1, 1, 0x10000000 + i * 0x2000, 0x1000, 0, "/l"))
        for i in range(40000):
            d.append(r_fork(a, 100000 + i, 1, 100000 + i, 1))
        h["big-fork-copies-maps-capped"] = perf_file([a], b"".join(d))
    return h


def main(argv):
    if len(argv) < 3 or argv[1] not in ("seeds", "hostile"):
        sys.stderr.write(__doc__)
        return 2
    out = argv[2]
    os.makedirs(out, exist_ok=True)
    files = valid_seeds() if argv[1] == "seeds" else hostile("--big" in argv)
    pre = b"\0" if "--prefix" in argv else b""
    for name, data in sorted(files.items()):
        with open(os.path.join(out, name), "wb") as f:
            f.write(pre + data)
    if argv[1] == "seeds" and not zstd():
        sys.stderr.write("perfdata_seeds.py: libzstd not found: no COMPRESSED seeds\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
