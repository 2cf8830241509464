"""Hand-made checkpoint bytes for the hostile-input tests, written opcode by opcode and zip
record by record (independent of ``shims.save``)."""
import bz2
import io
import struct
import zipfile
import zlib

import numpy as np


def text(s: str) -> bytes:
    """BINUNICODE."""
    return b"X" + struct.pack("<I", len(s.encode())) + s.encode()


def ints(values) -> bytes:
    """A tuple of non-negative ints (MARK, BININT..., TUPLE)."""
    return b"(" + b"".join(b"J" + struct.pack("<i", v) for v in values) + b"t"


def tensor_pickle(size, stride, offset=0, numel=4, stype="FloatStorage", key="0") -> bytes:
    """``_rebuild_tensor_v2(storage, offset, size, stride, False, OrderedDict())`` as a pickle body
    (no PROTO/STOP)."""
    return (b"ctorch._utils\n_rebuild_tensor_v2\n("
            + b"(" + text("storage") + f"ctorch\n{stype}\n".encode() + text(key) + text("cpu")
            + b"J" + struct.pack("<i", numel) + b"tQ"
            + b"J" + struct.pack("<i", offset) + ints(size) + ints(stride)
            + b"\x89ccollections\nOrderedDict\n)RtR")


def zip_bytes(members) -> bytes:
    """A zip archive of (name, bytes) members, stored uncompressed."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, data in members:
            zf.writestr(name, data)
    return buf.getvalue()


def checkpoint(pickle_body: bytes, storages=None) -> bytes:
    """A torch-style zip checkpoint: ``archive/data.pkl`` = PROTO 2 + body + STOP."""
    members = [("archive/data.pkl", b"\x80\x02" + pickle_body + b".")]
    members += [(f"archive/data/{k}", v) for k, v in (storages or {}).items()]
    return zip_bytes(members)


def float_tensor_file(values=(1.0, 2.0, 3.0, 4.0)) -> bytes:
    """One float32 tensor, the victim of the poisoning attacks."""
    arr = np.asarray(values, "<f4")
    return checkpoint(tensor_pickle((arr.size,), (1,), numel=arr.size), {"0": arr.tobytes()})


def raw_zip(members) -> bytes:
    """A zip archive written record by record, headers as given (they may lie):
    ``members`` are (name, payload as stored, method, crc32, declared uncompressed size)."""
    out = io.BytesIO()
    central = []
    for fname, payload, method, crc32, size in members:
        nb = fname.encode()
        central.append((nb, method, crc32, len(payload), size, out.tell()))
        out.write(struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, method, 0, 0x21, crc32,
                              len(payload), size, len(nb), 0) + nb + payload)
    start = out.tell()
    for nb, method, crc32, csize, size, offset in central:
        out.write(struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, method, 0, 0x21,
                              crc32, csize, size, len(nb), 0, 0, 0, 0, 0, offset) + nb)
    out.write(struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(central), len(central),
                          out.tell() - start, start, 0))
    return out.getvalue()


def stored(name: str, payload: bytes):
    """A stored (uncompressed) member for :func:`raw_zip`, its header honest."""
    return (name, payload, zipfile.ZIP_STORED, zlib.crc32(payload), len(payload))


def zeros_deflate_bomb(name: str, inflated: int, extra=()) -> bytes:
    """A zip whose member ``name`` is ``inflated`` zero bytes deflated to ~1/1000 of that, built
    in well under a second: one fully-flushed deflate block of 1 MiB of zeros, repeated (each
    block stands alone after Z_FULL_FLUSH). ``extra``: further (name, bytes) stored members."""
    mib = 1 << 20
    assert inflated % mib == 0
    comp = zlib.compressobj(1, zlib.DEFLATED, -15)
    block = comp.compress(b"\0" * mib) + comp.flush(zlib.Z_FULL_FLUSH)
    data = block * (inflated // mib) + comp.flush()
    crc, zeros = 0, b"\0" * mib
    for _ in range(inflated // mib):
        crc = zlib.crc32(zeros, crc)
    return raw_zip([(name, data, zipfile.ZIP_DEFLATED, crc, inflated), *(stored(n, p) for n, p in extra)])


_BZ2_BLOCK_MAGIC = f"{0x314159265359:048b}"
_BZ2_END_MAGIC = f"{0x177245385090:048b}"


def zeros_bzip2(blocks: int) -> bytes:
    """A bzip2 stream of ``blocks`` identical blocks of zeros (4.86 MiB each at level 1), built in
    under a second where compressing 1 GiB takes half a minute: one block of a real stream is
    repeated bit for bit (blocks are not byte-aligned) and the stream's combined CRC recomputed
    (rotate left by one, xor the block's CRC, per block)."""
    bits = "".join(f"{b:08b}" for b in bz2.compress(b"\0" * (12 << 20), 1))
    first = bits.index(_BZ2_BLOCK_MAGIC, 32)
    block = bits[first:bits.index(_BZ2_BLOCK_MAGIC, first + 48)]
    crc, combined = int(block[48:80], 2), 0
    for _ in range(blocks):
        combined = (((combined << 1) | (combined >> 31)) & 0xFFFFFFFF) ^ crc
    out = block * blocks + _BZ2_END_MAGIC + f"{combined:032b}"
    out += "0" * (-len(out) % 8)
    return b"BZh1" + int(out, 2).to_bytes(len(out) // 8, "big")


def run_python_child(args, timeout: float = 120):
    """Run ``python args...`` in a child with this environment; returns the CompletedProcess.

    The child runs under ``sh`` so that its death by a signal (a failed allocation under a memory
    limit can end in SIGSEGV) reaches us as an exit status: Jittor's SIGCHLD handler would
    quick-exit this process if a direct child died of a signal.
    """
    import os
    import subprocess
    import sys
    return subprocess.run(["sh", "-c", '"$@"; exit $?', "sh", sys.executable, *args],
                          capture_output=True, text=True, timeout=timeout, env=dict(os.environ))
