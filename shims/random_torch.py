"""torch's CPU random stream, replayed without torch.

:class:`Generator` holds the state torch's ``torch.Generator()`` (CPU) holds: a 32-bit Mersenne
Twister seeded as ``manual_seed`` seeds it (the low 32 bits of the seed, Knuth's
initialisation; an unseeded generator starts from torch's default seed 67280421310721).  The
draws below consume it as torch's CPU kernels do, so the same seed gives the same numbers:

* :func:`random_int64` — ``torch.empty((), dtype=torch.int64).random_()`` (how ``RandomSampler``
  and ``DataLoader`` draw their seeds): one 64-bit draw modulo 2**63;
* :func:`rand` / :func:`uniform` — ``torch.rand`` / ``torch.empty(n).uniform_(a, b)``: 24 bits
  of one 32-bit draw scaled to [0, 1) in float32 (53 bits of a 64-bit draw for float64), then
  ``x * (b - a) + a`` in the same precision;
* :func:`randint` — ``torch.randint(low, high, size)``: ``draw % (high - low) + low``, the draw
  64-bit when the range reaches 2**28 (torch's public wheels; measured on 2.15);
* :func:`randperm` — ``torch.randperm(n)``: for each ``i`` swap ``r[i]`` with
  ``r[i + draw % (n - i)]``;
* :func:`normal` — ``torch.empty(shape).normal_()`` in float32: the draws torch makes (16 or
  more values: one float32 uniform each, 16 more when the size is not a multiple of 16, paired
  by Box-Muller within blocks of 16; fewer: two float64 uniforms per pair, the second value
  cached in the generator).  Below 16 values the numbers are torch's exactly; from 16 on they
  agree to float32 rounding (torch's vectorised log/sin/cos round differently per CPU).

:data:`default_generator` stands for torch's global generator; :func:`manual_seed` seeds it
(``shims.manual_seed``, what converted ``torch.manual_seed`` calls, seeds it too).  The shims
that replay torch's random choices draw from it: the samplers and ``DataLoader(shuffle=True)``
(:mod:`shims.data`) and torchvision's random transforms (:mod:`shims.vision.transforms`).

Caveat: the global stream matches torch's only while the port consumes it as torch does.
Jittor's own random ops and weight initialisers do not draw from it, so after
``torch.manual_seed(s); model = Net(); loader = DataLoader(ds, shuffle=True)`` torch's loader
starts where ``Net()``'s initialisation left the stream and the port's starts at the seed.
Scripts that need torch's orders and augmentations seed right before iterating the loader
(after building the model) or give the loader its own ``torch.Generator``.
"""
from __future__ import annotations

import math
import os
from typing import List, Optional, Sequence, Union

import jittor as jt
import numpy as np

__all__ = ["Generator", "default_generator", "manual_seed", "initial_seed", "random_int64", "rand",
           "uniform", "randint", "randperm", "normal", "DEFAULT_SEED"]

#: the seed of torch's default CPU generator before any ``manual_seed``
DEFAULT_SEED = 67280421310721

_N = 624
_U64 = (1 << 64) - 1


def _mt_key(seed32: int) -> np.ndarray:
    """The 624 state words of a Mersenne Twister seeded with the 32-bit ``seed32``."""
    key = [seed32]
    for j in range(1, _N):
        prev = key[-1]
        key.append((1812433253 * (prev ^ (prev >> 30)) + j) & 0xFFFFFFFF)
    return np.array(key, dtype=np.uint32)


def _as_seed(seed) -> int:
    """torch's reading of a seed: an integer in [-2**63, 2**64), negatives two's complement."""
    seed = int(seed)
    if not -(1 << 63) <= seed <= _U64:
        raise RuntimeError(f"Overflow when unpacking long long: seed {seed} is outside [-2**63, 2**64)")
    return seed & _U64


class Generator:
    """``torch.Generator()`` on the CPU: torch's Mersenne Twister state and seed.

    ``manual_seed`` (returns the generator, as torch's does), ``initial_seed``, ``seed`` (a fresh
    nondeterministic seed), ``get_state``/``set_state`` (a ``uint8`` array in this class's own
    layout, not torch's), and the raw draws ``random`` (32 bits) and ``random64``."""

    def __init__(self, device="cpu"):
        if str(device) not in ("cpu", "cuda", "cuda:0"):
            raise ValueError(f"Generator: device {device!r} is not supported (CPU stream only)")
        self.device = "cpu"
        self._bits = np.random.MT19937(0)
        self.manual_seed(DEFAULT_SEED)

    def manual_seed(self, seed) -> "Generator":
        """Reset the stream to ``seed`` (torch keeps the full 64-bit seed, the twister its low 32)."""
        self._seed = _as_seed(seed)
        self._normal_cache = None  # torch keeps the second Box-Muller value of a float64 pair
        self._bits.state = {"bit_generator": "MT19937",
                            "state": {"key": _mt_key(self._seed & 0xFFFFFFFF), "pos": _N}}
        return self

    def initial_seed(self) -> int:
        """The seed last given to :meth:`manual_seed` (or the default)."""
        return self._seed

    def seed(self) -> int:
        """Seed from the operating system's entropy, as torch's ``Generator.seed()``; the seed."""
        s = int.from_bytes(os.urandom(8), "little")
        self.manual_seed(s)
        return s

    def get_state(self) -> np.ndarray:
        """The stream's position: 624 state words, the index into them and the seed, as bytes."""
        st = self._bits.state["state"]
        cache = np.array([0.0 if self._normal_cache is None else self._normal_cache]).view(np.uint32)
        head = np.array([st["pos"], self._seed & 0xFFFFFFFF, self._seed >> 32,
                         self._normal_cache is not None, *cache], dtype=np.uint32)
        return np.concatenate([np.asarray(st["key"], np.uint32), head]).view(np.uint8).copy()

    def set_state(self, state) -> "Generator":
        """Restore a :meth:`get_state` result."""
        words = np.asarray(state, dtype=np.uint8).view(np.uint32)
        if words.size != _N + 6:
            raise RuntimeError("Generator.set_state: not a state from shims' Generator.get_state")
        self._bits.state = {"bit_generator": "MT19937",
                            "state": {"key": words[:_N].copy(), "pos": int(words[_N])}}
        self._seed = int(words[_N + 1]) | (int(words[_N + 2]) << 32)
        self._normal_cache = float(words[_N + 4:].copy().view(np.float64)[0]) if words[_N + 3] else None
        return self

    def raw32(self, n: int) -> np.ndarray:
        """The next ``n`` 32-bit outputs of the twister (``uint64`` array)."""
        return self._bits.random_raw(n) if n else np.zeros(0, np.uint64)

    def raw64(self, n: int) -> np.ndarray:
        """The next ``n`` 64-bit draws, each two 32-bit outputs, high word first (``uint64``)."""
        r = self.raw32(2 * n)
        return (r[0::2] << np.uint64(32)) | r[1::2]

    def random(self) -> int:
        """One 32-bit draw (torch's ``CPUGeneratorImpl::random``)."""
        return int(self.raw32(1)[0])

    def random64(self) -> int:
        """One 64-bit draw (torch's ``CPUGeneratorImpl::random64``)."""
        return int(self.raw64(1)[0])


#: torch's global CPU generator (what ``torch.manual_seed`` seeds); unseeded, it starts from a
#: nondeterministic seed, as torch's does in a fresh process
default_generator = Generator()
default_generator.seed()


def _gen(generator: Optional[Generator]) -> Generator:
    if generator is None:
        return default_generator
    if not isinstance(generator, Generator):
        raise TypeError(f"expected a shims Generator (torch.Generator), got {type(generator).__name__}")
    return generator


def _count(size) -> int:
    if isinstance(size, (int, np.integer)):
        return int(size)
    return int(np.prod(size, dtype=np.int64)) if len(size) else 1


def manual_seed(seed, numpy: bool = True) -> Generator:
    """``torch.manual_seed(seed)`` for converted code: seeds :data:`default_generator` and Jittor
    (with ``numpy=True`` also numpy's and ``random``'s global streams, ``jt.set_global_seed``;
    ``numpy=False`` leaves them as the program seeded them, ``jt.set_seed``), those with the
    seed's low 32 bits (numpy refuses more; torch accepts any 64-bit seed).  Returns
    :data:`default_generator`, as torch returns its generator."""
    seed = _as_seed(seed)
    # numpy takes 32-bit seeds only; the low 32 bits are also what torch's twister keeps
    (jt.set_global_seed if numpy else jt.set_seed)(seed & 0xFFFFFFFF)
    return default_generator.manual_seed(seed)


def initial_seed() -> int:
    """``torch.initial_seed()``: the seed of :data:`default_generator`."""
    return default_generator.initial_seed()


def random_int64(generator: Optional[Generator] = None) -> int:
    """``torch.empty((), dtype=torch.int64).random_(generator=generator).item()``."""
    return int(_gen(generator).raw64(1)[0] % np.uint64(1 << 63))


def rand(size: Union[int, Sequence[int]] = 1, generator: Optional[Generator] = None,
         dtype=np.float32) -> np.ndarray:
    """``torch.rand(size, generator=generator, dtype=dtype)`` (float32 or float64) as numpy."""
    return uniform(size, 0.0, 1.0, generator, dtype)


def uniform(size: Union[int, Sequence[int]], low: float, high: float,
            generator: Optional[Generator] = None, dtype=np.float32) -> np.ndarray:
    """``torch.empty(size, dtype=dtype).uniform_(low, high, generator=generator)`` as numpy.

    ``low``/``high`` are rounded to ``dtype`` first, as torch's kernel does."""
    dtype = np.dtype(dtype)
    n, shape = _count(size), ((size,) if isinstance(size, (int, np.integer)) else tuple(size))
    g = _gen(generator)
    if dtype == np.float32:
        x = (g.raw32(n) & np.uint64((1 << 24) - 1)).astype(np.float32) * np.float32(2.0 ** -24)
    elif dtype == np.float64:
        x = (g.raw64(n) & np.uint64((1 << 53) - 1)).astype(np.float64) * (2.0 ** -53)
    else:
        raise TypeError(f"uniform: dtype {dtype} is not float32 or float64")
    lo, hi = dtype.type(low), dtype.type(high)
    return _fma(x, hi - lo, lo).reshape(shape)


def _two_sum(a: np.ndarray, b):
    """``a + b`` rounded, and its rounding error (Knuth's TwoSum)."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _two_prod(a: np.ndarray, b):
    """``a * b`` rounded, and its rounding error (Dekker's product, float64)."""
    p = a * b
    split = 134217729.0  # 2**27 + 1
    ah = a * split
    ah = ah - (ah - a)
    bh = b * split
    bh = bh - (bh - b)
    al, bl = a - ah, b - bh
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def _fma(x: np.ndarray, d, lo) -> np.ndarray:
    """``x * d + lo`` rounded once, as torch's compiled kernel computes it (a fused multiply-add)."""
    if x.dtype == np.float32:
        # the float32 product is exact in float64; the sum's one float64 rounding could make a
        # tie of float32 that is not one: its error term breaks such ties
        s, err = _two_sum(x.astype(np.float64) * np.float64(d), np.float64(lo))
        r = s.astype(np.float32)
        gap = s - r.astype(np.float64)
        ulp = np.spacing(np.abs(r)).astype(np.float64)
        tie = (np.abs(gap) * 2 == ulp) & (err != 0)
        if tie.any():
            up = np.nextafter(r, np.float32(np.inf)).astype(np.float32)
            down = np.nextafter(r, np.float32(-np.inf)).astype(np.float32)
            toward = np.where((gap + err) > 0, up, down)
            r = np.where(tie & ((gap + err) * gap > 0), toward, r)
        return r
    p, pe = _two_prod(x, np.float64(d))
    s, se = _two_sum(p, np.float64(lo))
    return s + (pe + se)


def randint(low: int, high: int, size: Union[int, Sequence[int]] = 1,
            generator: Optional[Generator] = None) -> np.ndarray:
    """``torch.randint(low, high, size, generator=generator)`` (int64) as numpy."""
    span = int(high) - int(low)
    if span <= 0:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    n, shape = _count(size), ((size,) if isinstance(size, (int, np.integer)) else tuple(size))
    g = _gen(generator)
    draws = g.raw64(n) if span >= 1 << 28 else g.raw32(n)
    return ((draws % np.uint64(span)).astype(np.int64) + np.int64(low)).reshape(shape)


def randperm(n: int, generator: Optional[Generator] = None) -> List[int]:
    """``torch.randperm(n, generator=generator).tolist()``."""
    n = int(n)
    if n < 0:
        raise RuntimeError(f"randperm: n must be non-negative, got {n}")
    g = _gen(generator)
    count = max(n - 1, 0)
    draws = g.raw32(count) if n < (2 ** 32 - 1) // 20 else g.raw64(count)
    spans = np.arange(n, 1, -1, dtype=np.uint64)
    targets = (np.arange(count, dtype=np.uint64) + draws % spans).tolist()
    r = list(range(n))
    for i, z in enumerate(targets):
        r[i], r[z] = r[z], r[i]
    return r


def multinomial_with_replacement(weights, num_samples: int, generator: Optional[Generator] = None) -> np.ndarray:
    """``torch.multinomial(weights, num_samples, replacement=True, generator=generator)`` of a 1-D
    float64 ``weights`` with ``num_samples`` > 1 (int64), as torch's CPU kernel draws it: each
    sample one 53-bit uniform, placed in the normalised running sum by a left binary search
    (``torch.utils.data.WeightedRandomSampler``'s draw)."""
    cum = np.cumsum(np.asarray(weights, np.float64).reshape(-1))
    cum = cum / cum[-1]
    u = (_gen(generator).raw64(int(num_samples)) & np.uint64((1 << 53) - 1)).astype(np.float64) * (2.0 ** -53)
    return np.searchsorted(cum, u, side="left").astype(np.int64)


def normal(size: Union[int, Sequence[int]], generator: Optional[Generator] = None) -> np.ndarray:
    """``torch.empty(size).normal_(generator=generator)`` (float32, mean 0, std 1) as numpy."""
    n, shape = _count(size), ((size,) if isinstance(size, (int, np.integer)) else tuple(size))
    g = _gen(generator)
    if n < 16:
        out = np.empty(n, np.float64)
        for k in range(n):
            if g._normal_cache is not None:
                out[k], g._normal_cache = g._normal_cache, None
                continue
            u1, u2 = (g.raw64(2) & np.uint64((1 << 53) - 1)).astype(np.float64) * (2.0 ** -53)
            radius = math.sqrt(-2.0 * math.log1p(-u2))
            theta = 2.0 * math.pi * u1
            g._normal_cache = radius * math.sin(theta)
            out[k] = radius * math.cos(theta)
        return out.astype(np.float32).reshape(shape)
    whole = n - n % 16
    out = _box_muller16(rand(n, g)[:whole])
    if n % 16:  # torch draws 16 more uniforms and overwrites the last 16 values with them
        out = np.concatenate([out[:n - 16], _box_muller16(rand(16, g))])
    return out.reshape(shape)


def _box_muller16(values: np.ndarray) -> np.ndarray:
    """torch's pass over blocks of 16 uniforms: value j and j + 8 of a block become a pair."""
    blocks = values.reshape(-1, 16).astype(np.float64)
    radius = np.sqrt(-2.0 * np.log(1.0 - blocks[:, :8]))
    theta = (2.0 * math.pi * blocks[:, 8:]).astype(np.float32).astype(np.float64)
    return np.concatenate([radius * np.cos(theta), radius * np.sin(theta)], axis=1).astype(np.float32).reshape(-1)
