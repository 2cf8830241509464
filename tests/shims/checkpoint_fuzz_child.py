"""Child of the fuzz test: feed ``shims.load`` seeded random and mutated checkpoints.

usage: checkpoint_fuzz_child.py SEED CASES WORKDIR   -> prints a JSON summary

An audit hook records every attempt to run a process, compile or exec code, load a native
library or import a module not imported during warm-up; the summary lists them (the test wants
none).  Every load must return or raise a ``CheckpointError`` whose message starts with the
file's path.  After the fuzzing, the checkpoints loaded at warm-up must load identically again
(nothing poisons a later load).
"""
import collections
import io
import json
import pickle
import random
import struct
import sys
import time
import zipfile
from pathlib import Path

import numpy as np

import shims
from shims.checkpoint import CheckpointError

_WATCH = ("os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork", "subprocess.Popen",
          "exec", "compile", "ctypes.dlopen", "os.remove", "os.rename", "shutil.rmtree")
events = []
armed = False


def hook(event, args):
    if not armed:
        return
    if event in _WATCH or event == "import":
        what = getattr(args[0], "co_filename", args[0])
        events.append(f"{event} {what!r:.120}")


GLOBALS = [b"ctorch._utils\n_rebuild_tensor_v2\n", b"ctorch\nFloatStorage\n", b"ctorch\nLongStorage\n",
           b"ccollections\nOrderedDict\n", b"c__builtin__\nset\n", b"c__builtin__\ncomplex\n",
           b"cnumpy.core.multiarray\n_reconstruct\n", b"cnumpy\nndarray\n", b"cnumpy\ndtype\n",
           b"c_codecs\nencode\n", b"ctorch._utils\n_rebuild_parameter\n", b"ctorch\nSize\n",
           b"cos\nsystem\n", b"cbuiltins\neval\n", b"cposix\nsystem\n", b"csubprocess\nPopen\n",
           b"cbuiltins\ngetattr\n", b"ctorch.nn.modules.linear\nLinear\n"]
ATOMS = [b"(", b"t", b")", b"]", b"}", b"l", b"d", b"a", b"e", b"s", b"u", b"R", b"b", b"\x81",
         b"\x85", b"\x86", b"\x87", b"0", b"2", b"1", b"N", b"\x88", b"\x89", b"Q", b"\x94",
         b"\x8f", b"\x90", b"\x91", b"i", b"o", b"\x92", b"\x93", b"c", b"P", b"p0\n", b"g0\n"]


def random_opcodes(rng: random.Random) -> bytes:
    """A stream of opcodes: atoms, globals, small ints/strings/bytes, memo traffic."""
    parts = [b"\x80\x02"]
    for _ in range(rng.randint(1, 40)):
        r = rng.random()
        if r < 0.35:
            parts.append(rng.choice(ATOMS))
        elif r < 0.55:
            parts.append(rng.choice(GLOBALS))
        elif r < 0.7:
            parts.append(b"J" + struct.pack("<i", rng.choice([0, 1, 4, -1, 2 ** 31 - 1, rng.randint(-9, 99)])))
        elif r < 0.8:
            s = rng.choice(["storage", "0", "cpu", "name", "__defaults__", "latin1", "f4", "O8", ""])
            parts.append(b"X" + struct.pack("<I", len(s)) + s.encode())
        elif r < 0.9:
            parts.append(rng.choice([b"h", b"q"]) + bytes([rng.randint(0, 5)]))
        else:
            parts.append(b"C" + bytes([4]) + rng.randbytes(4))
    if rng.random() < 0.8:
        parts.append(b".")
    return b"".join(parts)


def mutate(rng: random.Random, data: bytes) -> bytes:
    """Flip, insert, delete, duplicate or truncate a few bytes."""
    b = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        op = rng.random()
        i = rng.randrange(len(b)) if b else 0
        if op < 0.4 and b:
            b[i] = rng.randrange(256)
        elif op < 0.6:
            b[i:i] = rng.randbytes(rng.randint(1, 4))
        elif op < 0.75 and b:
            del b[i:i + rng.randint(1, 8)]
        elif op < 0.9 and b:
            j = rng.randrange(len(b))
            b[i:i] = b[j:j + rng.randint(1, 16)]
        else:
            del b[i:]
    return bytes(b)


def rezip(pkl: bytes, storages) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("archive/data.pkl", pkl)
        for k, v in storages.items():
            zf.writestr(f"archive/data/{k}", v)
    return buf.getvalue()


def seeds(workdir: Path):
    """Real checkpoints: shims.save output, and a pickle holding numpy arrays and complex."""
    obj = collections.OrderedDict(w=np.arange(6, dtype=np.float32).reshape(2, 3), b=np.int64([1, -2]),
                                  nested={"l": [np.ones(2, np.float16), 3, "s"], "t": (None, 1.5)})
    p = workdir / "seed_saved.pth"
    shims.save(obj, p)
    zf = zipfile.ZipFile(p)
    pkl = zf.read("archive/data.pkl")
    storages = {n.rsplit("/", 1)[1]: zf.read(n) for n in zf.namelist() if "/data/" in n}
    np_pkl = pickle.dumps({"a": np.arange(4, dtype=np.float64), "s": np.float32(2), "c": 1 + 2j},
                          protocol=2)
    return [(p.read_bytes(), pkl, storages), (rezip(np_pkl, {}), np_pkl, {})]


def snapshot(workdir: Path, real):
    out = []
    for i, (data, _, _) in enumerate(real):
        p = workdir / f"victim{i}.pth"
        p.write_bytes(data)
        out.append(repr(shims.load(p, to="numpy")) + repr(shims.load(p)["w"].numpy() if i == 0 else ""))
    return out


def warm_up() -> None:
    """What the stdlib imports on demand for legitimate input: zip members compressed with
    bzip2/lzma, and the codecs pickle's text opcodes use."""
    import bz2  # noqa: F401
    import lzma  # noqa: F401
    for codec in ("raw-unicode-escape", "latin1", "ascii", "utf-8"):
        b"a".decode(codec)


def main() -> None:
    global armed
    warm_up()
    seed, cases, workdir = int(sys.argv[1]), int(sys.argv[2]), Path(sys.argv[3])
    rng = random.Random(seed)
    real = seeds(workdir)
    before = snapshot(workdir, real)
    sys.addaudithook(hook)
    counts = collections.Counter()
    unclear = []
    start = time.perf_counter()
    armed = True
    for n in range(cases):
        kind = n % 4
        if kind == 0:
            data = rezip(random_opcodes(rng), {"0": rng.randbytes(16)})
        elif kind == 1:
            raw, pkl, storages = rng.choice(real)
            data = rezip(mutate(rng, pkl), storages)
        elif kind == 2:
            data = mutate(rng, rng.choice(real)[0])
        else:  # legacy format: header pickles, then a random or mutated main pickle
            head = pickle.dumps(0x1950a86a20f9469cfc6c, protocol=2) + pickle.dumps(1001, protocol=2) \
                + pickle.dumps({"little_endian": True}, protocol=2)
            body = random_opcodes(rng) if rng.random() < 0.5 else mutate(rng, rng.choice(real)[1])
            data = head + body + pickle.dumps(["0"], protocol=2) + struct.pack("<q", 4) + rng.randbytes(16)
        path = workdir / f"case{n % 8}.pth"
        path.write_bytes(data)
        try:
            shims.load(path, to="numpy" if n % 5 else "jittor", weights_only=n % 7 != 0)
            counts["loaded"] += 1
        except CheckpointError as e:
            counts[type(e).__name__] += 1
            if not str(e).startswith(f"{path}: "):
                unclear.append(f"case {n}: message without the path: {e!s:.200}")
        except BaseException as e:  # the test fails on any of these
            unclear.append(f"case {n}: {type(e).__name__}: {e!s:.200}")
    armed = False
    elapsed = time.perf_counter() - start
    print(json.dumps({"cases": cases, "counts": counts, "unclear": unclear[:20], "events": events[:20],
                      "poisoned": snapshot(workdir, real) != before, "seconds": round(elapsed, 2)}))


if __name__ == "__main__":
    main()
