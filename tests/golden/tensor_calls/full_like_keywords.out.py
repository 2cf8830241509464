import shims
import jittor as jt


def targets(logits, x):
    a = jt.full_like(logits, val=1)
    b = jt.full_like(x=x, val=0.5)
    c = jt.full_like(x, 2.0, dtype=jt.float64)
    return a, b, c
