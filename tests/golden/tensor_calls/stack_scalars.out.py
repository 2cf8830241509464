import shims
import jittor as jt


def moments(x: shims.Tensor, parts):
    m = jt.concat([shims.sum(jt.ones_like(x)), shims.sum(x), shims.sum(shims.square(x))])
    n = jt.concat((shims.mean(x), shims.max(x)), dim=-1)
    rows = jt.stack([shims.sum(x, 1), shims.mean(x, 1)])
    listed = jt.stack(parts)
    return m, n, rows, listed
