"""The always-on float32 accuracy judge: the port's error against torch's float64 result, in
units of torch's own float32 error, for every array that has a float64 reference.

A row's rtol/atol says how far the port may sit from torch's float32 result; it cannot say
whether the port is as accurate as torch.  A port whose float32 gradient sums 2^20 terms one
after another is 30x further from the exact result than torch, yet well inside a tolerance
wide enough for the rest of the network.  Where the reference holds torch's float64 arrays,
each array the row compares is judged here too, whether rtol/atol passed or not, with no
tolerance added to the bound: the port's float32 error may be at most
``ROUNDING_FACTOR`` times torch's own float32 error (both against torch's float64 result),
or a few float32 roundings of the array's scale where torch's error is smaller still.
Arrays of one value (a loss) are left to the row's own comparison: see :func:`noisier_than_torch`.

Torch's own error on the reference's start is one draw.  Where float32 rounding decides a sign
(an L1 of two near-equal images, a ReLU input within rounding of zero), the draw can be lucky:
the torch side of ``jtport parity`` therefore also saves torch's largest float32 gradient error
at starts one rounding apart (``grad32err/``, ``torch_dump.float32_error_spread``), and where
that is given (``own_errors``) torch's own error is the larger of the two.
"""
from __future__ import annotations

import dataclasses
from typing import Any, Iterable, List, Mapping, Optional, Tuple

import numpy as np

from porter.prove.common import Comparison, compare

#: The port's float32 error may be this many times torch's own (both against float64): two
#: float32 implementations summing in different orders have errors of the same size but
#: independent signs and places, and the larger maximum over an array is within a few times
#: the other (docs/parity.md); a port error, or a sequential sum of many terms, is not bounded.
ROUNDING_FACTOR = 8.0

#: The error below which no ratio is taken, in float32 ulps of the array's largest value: one
#: rounding of the result is what float32 costs even where torch's sum happens to be exact.
ULP_FLOOR = 1.0

_ULP32 = 2.0 ** -23


def rounding_ratio(got32: Any, ref32: Any, ref64: Any, own_error: float = 0.0
                   ) -> Tuple[Comparison, Comparison, float]:
    """(port vs float64, torch's float32 vs float64, the bound on the port's max abs error).
    ``own_error``: torch's float32 error measured elsewhere (at starts one rounding apart);
    torch's own error is the larger of it and ``ref32``'s."""
    truth = np.asarray(ref64, np.float64)
    port = compare("port", got32, truth, 0.0, 0.0)
    own = compare("torch", ref32, truth, 0.0, 0.0)
    if own_error > own.max_abs_err:
        own = dataclasses.replace(own, max_abs_err=float(own_error))
    scale = float(np.abs(truth[np.isfinite(truth)]).max()) if truth.size and np.isfinite(truth).any() else 0.0
    bound = ROUNDING_FACTOR * max(own.max_abs_err, ULP_FLOOR * _ULP32 * scale)
    return port, own, bound


def noisier_than_torch(got32: Mapping[str, Any], ref32: Mapping[str, np.ndarray], ref64: Mapping[str, np.ndarray],
                       names: Iterable[str], own_errors: Optional[Mapping[str, float]] = None
                       ) -> Tuple[List[Comparison], Optional[float]]:
    """The arrays among ``names`` (present in all three mappings) whose port float32 error
    exceeds the bound (see the module docstring), as failing comparisons, and the worst ratio
    of the port's error to torch's own over all of ``names`` (None when no array was judged:
    no float64 reference, or only single values).  ``own_errors``: torch's float32 error per
    name at starts one rounding apart, where the reference has it."""
    failing, worst = [], None
    for name in names:
        if name not in got32 or name not in ref32 or name not in ref64:
            continue
        if np.size(ref64[name]) <= 1:
            # one value's error against one draw of torch's own rounding is no distribution to
            # compare (HiSD's and MCCNet's losses: torch's draw 1.5 ulp, the port's 8-30): a single
            # value keeps the rtol/atol comparison and its float64 fallback
            continue
        port, own, bound = rounding_ratio(got32[name], ref32[name], ref64[name], (own_errors or {}).get(name, 0.0))
        if not np.isfinite(port.max_abs_err) or not np.isfinite(own.max_abs_err):
            continue  # shapes or non-finite values: the rtol/atol comparison reports those
        ratio = port.max_abs_err / own.max_abs_err if own.max_abs_err > 0 else (
            0.0 if port.max_abs_err == 0 else float("inf"))
        worst = max(worst or 0.0, ratio if np.isfinite(ratio) else 0.0)
        if port.max_abs_err > bound:
            failing.append(Comparison(f"{name} (float32 accuracy vs torch's float64)", False, port.max_abs_err,
                                      port.max_rel_err, port.got_shape, port.ref_shape,
                                      f"{ratio:.3g}x torch's own float32 error {own.max_abs_err:.3g} "
                                      f"(allowed {ROUNDING_FACTOR:g}x)"))
    return failing, worst
