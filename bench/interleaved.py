"""Timing a change against its baseline, interleaved in one run (shared by the ``bench_*`` scripts
that compare shims' accurate sums with Jittor's float32 ones)."""
from __future__ import annotations

import argparse
import functools
import statistics
from typing import Callable, ContextManager, Iterable, Sequence, Tuple

import numpy as np


def interleaved_medians(once: Callable[[], float], baseline: Callable[[], ContextManager],
                        repeat: int) -> Tuple[float, float]:
    """Median milliseconds of ``once()`` as it is and inside ``baseline()``, each compiled first,
    then alternated ``repeat`` times so that machine load falls on both alike."""
    once()  # compile
    with baseline():
        once()
    changed, plain = [], []
    for _ in range(repeat):
        changed.append(once())
        with baseline():
            plain.append(once())
    return statistics.median(changed) * 1e3, statistics.median(plain) * 1e3


def compare_table(cases: Iterable[Tuple[str, Sequence[int], Callable]], baseline: Callable[[], ContextManager],
                  columns: Tuple[str, str], argv=None) -> int:
    """Parse ``--repeat``; for each ``(name, input shape, once(x) -> seconds)`` time ``once`` on a
    seeded float32 input both ways (:func:`interleaved_medians`) and print a row: the two
    medians in milliseconds and their ratio, changed/baseline."""
    import jittor as jt

    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=10)
    args = ap.parse_args(argv)
    print(f"{'case':<34} {columns[0]:>11} {columns[1]:>11} {'ratio':>6}")
    for name, shape, once in cases:
        x = jt.array(np.random.default_rng(0).standard_normal(shape).astype(np.float32)).stop_grad()
        w, p = interleaved_medians(functools.partial(once, x), baseline, args.repeat)
        print(f"{name:<34} {w:>11.2f} {p:>11.2f} {w / p:>6.2f}")
    return 0
