"""The judges: sets of arrays compared against torch's (:func:`compare_sets`), the port's float32
error against torch's own float32 rounding (:func:`within_torch_rounding`, :data:`ROUNDING_FACTOR`),
and the result rows they make (:func:`make_row`, :func:`require`).  Runs in ``.venv``.
"""
from pathlib import Path
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np


from porter.prove import accuracy
from porter.prove.common import Comparison, compare
from porter.prove.results import RESULTS, Row, record
from porter.prove.divergence import Divergence
from porter.prove.reference import to_numpy


Arrays = Dict[str, np.ndarray]
Forward = Callable[[Any, Mapping[str, Any]], Any]


def worst(comps: Sequence[Comparison]) -> Tuple[float, float]:
    """The largest absolute and relative errors of a list of comparisons."""
    if not comps:
        return 0.0, 0.0
    return max(c.max_abs_err for c in comps), max(c.max_rel_err for c in comps)


def compare_sets(got: Mapping[str, Any], ref: Mapping[str, np.ndarray], rtol: float, atol: float,
                 what: str) -> List[Comparison]:
    """Compare two name->array maps; a name on only one side is a failed comparison."""
    comps = []
    for name, r in ref.items():
        if name not in got:
            comps.append(Comparison(f"{what}/{name}", False, float("inf"), float("inf"), (),
                                    tuple(r.shape), "missing in port"))
        else:
            comps.append(compare(f"{what}/{name}", to_numpy(got[name]), r, rtol, atol))
    for name in got:
        if name not in ref:
            comps.append(Comparison(f"{what}/{name}", False, float("inf"), float("inf"),
                                    tuple(np.shape(to_numpy(got[name]))), (), "not in torch"))
    return comps


def float64_note(what: str, comps32: Sequence[Comparison], comps64: Sequence[Comparison], extra: str = "") -> str:
    """The note of a row that float32 failed and float64 passed: both figures, and why."""
    abs32, rel32 = worst(comps32)
    abs64, rel64 = worst(comps64)
    middle = f"; {extra}" if extra else ""
    return (f"float32 {what} differ (max abs err {abs32:.3g}, rel {rel32:.3g}){middle}; in float64 the port "
            f"matches torch (max abs err {abs64:.3g}, rel {rel64:.3g}): float32 rounding, not the port")


#: A float32 gradient element this fraction of the largest gradient or smaller is zero up to
#: rounding: float32 sums carry ~1.2e-7 relative error per term's scale, so ~8 ulp of the
#: largest gradient is what a structurally zero gradient (StyleGAN2-ADA's R1 on biases whose
#: channel the penalty does not see) comes out as, or exactly 0 on one side and not the other.
FLOAT32_ZERO = 1e-6

#: How far the port's float32 result may sit from torch's float64 one, in units of torch's own
#: float32 error on the same array (:mod:`.accuracy`, :func:`within_torch_rounding`).
ROUNDING_FACTOR = accuracy.ROUNDING_FACTOR


def within_torch_rounding(got32: Mapping[str, Any], ref32: Mapping[str, np.ndarray], ref64: Mapping[str, np.ndarray],
                          failed: Sequence[str], rtol: float, atol: float,
                          own_errors: Optional[Mapping[str, float]] = None) -> Tuple[List[Comparison], float]:
    """For each array named in ``failed`` (it differed from torch's float32 result): the port's
    float32 error against torch's float64 result must be at most :data:`ROUNDING_FACTOR` times
    torch's own float32 error against it, plus the row's tolerance. So a float32 difference
    passes only where float32 itself cannot do better, judged on the same inputs. Torch's own
    error is the larger of ``ref32``'s and ``own_errors[name]`` (its error at starts one rounding
    apart, where the reference has it: see :mod:`.accuracy`). Returns the comparisons and the
    largest ratio of the port's error to torch's own."""
    comps, worst_ratio = [], 0.0
    for name in failed:
        if name not in got32 or name not in ref32 or name not in ref64:
            continue
        truth = np.asarray(ref64[name], np.float64)
        port = compare(name, got32[name], truth, rtol, atol)
        own_err = max(compare(name, ref32[name], truth, rtol, atol).max_abs_err, (own_errors or {}).get(name, 0.0))
        scale = float(np.abs(truth).max()) if truth.size else 0.0
        bound = ROUNDING_FACTOR * own_err + atol + rtol * scale
        ratio = port.max_abs_err / own_err if own_err > 0 else float("inf")
        worst_ratio = max(worst_ratio, ratio)
        comps.append(Comparison(f"{name} (float32 vs torch's float64)", port.max_abs_err <= bound,
                                port.max_abs_err, port.max_rel_err, port.got_shape, port.ref_shape,
                                f"{ratio:.3g}x torch's own float32 error {own_err:.3g}"))
    return comps, worst_ratio


def make_row(suite: str, case: str, comps: Sequence[Comparison], divergence: Optional[Divergence] = None,
             note: str = "", results: Path = RESULTS) -> Row:
    """A result row for a list of comparisons (failed if any failed); recorded in ``results``
    and returned."""
    bad = [c for c in comps if not c.ok]
    abs_err, rel_err = worst(comps)
    if bad:
        bad.sort(key=lambda c: -c.max_rel_err)
        detail = f"{len(bad)}/{len(comps)} differ; worst: " + "; ".join(c.describe() for c in bad[:3])
        if divergence is not None:
            detail += ". " + divergence.describe()
    else:
        detail = f"{len(comps)} arrays match"
    if note:
        detail = f"{detail} [{note}]"
    return record(Row(suite, case, "failed" if bad else "passed", abs_err, rel_err,
                      divergence.call if (bad and divergence) else None, detail), results)


def require(row: Row) -> None:
    """Fail the calling test with the row's detail unless it passed."""
    if not row.ok:
        raise AssertionError(f"[{row.suite}/{row.case}] {row.detail}")
