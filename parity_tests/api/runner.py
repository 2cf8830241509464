"""Jittor side of the per-API parity harness: convert a case, run it, compare with torch.

Each case's snippet is converted with the real converter (:func:`porter.convert_source`, the
same code path as ``jtport convert``), executed under Jittor with the inputs (and module
weights) the torch side used, and compared with the torch results:

* value: ``|jt - torch| <= atol + rtol * |torch|`` elementwise (NaNs must match), with the
  case's tolerances (defaults rtol 1e-5, atol 1e-6 for float32);
* shape: equal, except that a 0-d torch result may be shape (1,) in Jittor, which has no
  0-d Vars (reported in the detail as ``0-d as (1,)``);
* dtype: equal, except Jittor's documented 64->32 policy (``auto_convert_64_to_32``: torch
  int64 may be int32, float64 may be float32; reported in the detail);
* gradient (differentiable rows): of ``sum(out * R)`` (R a fixed random tensor per output)
  w.r.t. every float input and module parameter, ``jt.grad`` against ``torch.autograd``.
  Tolerances are 10x the forward ones: each gradient element sums up to ~10 rounded
  float32 products of the forward's partial derivatives with R.

Cases run with ``jt.flags.no_fuse=1``: one compiled kernel per op (keyed by op and dtype),
shared by all cases, instead of one fused kernel per case graph; this keeps the cold compile
of ~900 cases to a few hundred kernels.  Fusion does not change what an op computes.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import numpy as np

from porter.prove.torchside import TorchSide

from .case import ACCURACY_FACTOR, Case, all_cases, area_of

ROOT = Path(__file__).resolve().parents[2]
CASES_DIR = ROOT / "parity_tests" / "api"
GRAD_FACTOR = 10.0

_EQUIV_DTYPES = {"int64": ("int64", "int32"), "float64": ("float64", "float32")}


@dataclass
class CaseResult:
    """What one case showed: forward/gradient ``True``/``False``/``None`` (not checked)."""

    case: str
    api: str
    forward: Optional[bool] = None
    gradient: Optional[bool] = None
    max_abs_err: Optional[float] = None
    max_rel_err: Optional[float] = None
    notes: List[str] = field(default_factory=list)
    problems: List[str] = field(default_factory=list)
    converted: str = ""
    rejected: bool = False  # an expect_unsupported case: not a forward result of the row

    @property
    def ok(self) -> bool:
        """Forward passed and the gradient (when checked) passed."""
        return bool(self.forward) and self.gradient is not False

    @property
    def detail(self) -> str:
        """Problems first, then notes, one line."""
        return "; ".join(self.problems + self.notes)


# the cases and their data model decide the torch results (not this runner)
TORCH_SIDE = TorchSide(ROOT / "parity_tests" / "torch_side" / "api_cases.py", "api_cases",
                       (CASES_DIR / "cases", CASES_DIR / "case.py"))


def torch_results_dir() -> Path:
    """Run (or reuse, cached) the torch side for every case; returns its output folder."""
    return TORCH_SIDE.run()


class TorchData:
    """The torch side's arrays and meta data of every area, read once (a later torch-side
    rerun by another session cannot pull files from under a running one)."""

    def __init__(self, folder: Path):
        self.folder = folder
        self._areas: Dict[str, Tuple[dict, dict]] = {}
        for meta_path in sorted(folder.glob("*.json")):
            area = meta_path.stem
            with np.load(folder / f"{area}.npz") as z:
                arrays = {k: z[k] for k in z.files}
            self._areas[area] = (arrays, json.loads(meta_path.read_text()))

    def area(self, area: str) -> Tuple[dict, dict]:
        """(arrays by key, meta by case id) of an area."""
        if area not in self._areas:
            raise KeyError(f"no torch results for area {area!r} in {self.folder}")
        return self._areas[area]


def _flatten(key, value, out):
    import jittor as jt

    if isinstance(value, jt.Var):
        out.append((key, value))
    elif type(value).__name__ == "NanoVector":
        out.append((key, tuple(int(v) for v in value)))
    elif isinstance(value, (tuple, list)):
        for i, v in enumerate(value):
            _flatten(f"{key}.{i}", v, out)
    else:
        out.append((key, value))


def _errors(got: np.ndarray, want: np.ndarray) -> Tuple[float, float]:
    if got.size == 0:
        return 0.0, 0.0
    g = got.astype(np.float64)
    w = want.astype(np.float64)
    finite = np.isfinite(w) & np.isfinite(g)
    if not finite.any():
        return 0.0, 0.0
    d = np.abs(g - w)[finite]
    rel = d / np.maximum(np.abs(w[finite]), 1e-30)
    return float(d.max()), float(rel.max())


def normwise_error(got: np.ndarray, ref: np.ndarray) -> float:
    """``max|got - ref| / max|ref|`` (0 for an all-zero reference matched exactly)."""
    g, r = got.astype(np.float64).reshape(-1), ref.astype(np.float64).reshape(-1)
    scale = float(np.abs(r).max()) if r.size else 0.0
    d = float(np.abs(g - r).max()) if r.size else 0.0
    return d / scale if scale > 0 else d


def close(got: np.ndarray, want: np.ndarray, rtol: float, atol: float) -> Optional[str]:
    """None when ``got`` matches ``want`` within tolerance (NaN/inf positions equal), else why."""
    g = got.astype(np.float64)
    w = want.astype(np.float64)
    if (np.isnan(g).any() or np.isnan(w).any()) and not np.array_equal(np.isnan(g), np.isnan(w)):
        return "NaN positions differ"
    inf_w, inf_g = np.isinf(w), np.isinf(g)
    if not np.array_equal(inf_w, inf_g) or not np.array_equal(w[inf_w], g[inf_g]):
        return "inf positions differ"
    ok = np.isfinite(w)
    bad = np.abs(g[ok] - w[ok]) > atol + rtol * np.abs(w[ok])
    if bad.any():
        a, r = _errors(g, w)
        return (f"{int(bad.sum())}/{bad.size} elements off (max abs {a:.3g}, max rel {r:.3g}; "
                f"rtol {rtol:g} atol {atol:g})")
    return None


class CaseRunner:
    """Converts and runs cases against one torch-side result folder."""

    def __init__(self, folder: Optional[Path] = None):
        import porter
        from porter.mapping import default_table

        self.porter = porter
        self.table = default_table()
        self.data = TorchData(folder or torch_results_dir())
        self._converted: Dict[str, object] = {}
        # planned warm-up batches not yet compiled, and the batch of each planned case
        self._batches: List[Tuple[List[Case], int]] = []
        self._batch_of: Dict[str, int] = {}

    def _convert_source(self, source: str, path: str):
        """The converter's output for ``source`` (memoised: the warm-up and the run convert
        the same snippets)."""
        out = self._converted.get(source)
        if out is None:
            out = self._converted[source] = self.porter.convert_source(source, path=path)
        return out

    def convert(self, case: Case, part: str, res: CaseResult) -> Optional[str]:
        """The converted source of a case part, or None (with the problem recorded)."""
        out = self._convert_source(case.source(part), f"<{case.id} {part}>")
        rep = out.report
        if rep.error:
            res.problems.append(f"conversion error: {rep.error}")
            return None
        for f in rep.unsupported:
            res.problems.append(f"converter: {f.code} {f.api}: {f.reason}")
        res.converted += out.code
        return out.code

    def run(self, case: Case, fuse: bool = False) -> CaseResult:
        """Run one case end to end; never raises for a failing port (the result says why).

        Unfused by default (one kernel per op, shared by every case).  ``fuse=True`` lets
        Jittor fuse, which is where it hands convolutions and matmuls to oneDNN
        (``use_mkl=1``): only a fused reindex-multiply-reduce is relayed.  ``ref64`` cases
        always run fused: their accuracy is that of the kernels a user's model runs."""
        import jittor as jt

        self._warm_batch_of(case)
        res = CaseResult(case.id, case.api)
        # a ref64 case judges the accuracy of the kernels users run: fused (oneDNN/MKL relays)
        fuse = fuse or case.ref64
        try:
            with jt.flag_scope(no_fuse=0 if fuse else 1):
                self._run(case, res)
        except Exception as e:  # the converted code failed: that is the finding
            msg = f"{type(e).__name__}: {str(e).strip().splitlines()[0] if str(e).strip() else ''}"
            res.problems.append(f"Jittor run raised {msg[:400]}")
            if res.forward is None:
                res.forward = False
            elif res.gradient is None:  # raised after the forward compared: no gradient result
                res.gradient = False
        return res

    def _run(self, case: Case, res: CaseResult) -> None:
        if case.expect_unsupported:
            self._expect_unsupported(case, res)
            return
        executed = self._execute(case, res)
        if executed is None:
            return
        entry, arrays, got, leaves = executed
        want = {o["key"]: o for o in entry["outputs"]}
        if [k for k, _ in got] != list(want):
            res.forward = False
            res.problems.append(f"result structure differs: Jittor {[k for k, _ in got]} vs torch {list(want)}")
            return
        res.forward = all(self._compare(case, key, v, want[key], arrays, res) for key, v in got)
        self._gradient(case, entry, got, arrays, leaves, res)

    def _execute(self, case: Case, res: CaseResult):
        """Run the converted case under Jittor (lazily: nothing is fetched).  Returns
        ``(torch entry, torch arrays, [(output key, value)], gradient leaves)``, or None when
        the case is already decided (``res`` says why)."""
        import jittor as jt

        arrays, meta = self.data.area(area_of(case))
        entry = meta.get(case.id)
        if entry is None:
            raise RuntimeError(f"no torch results for {case.id}: torch side out of date")
        if entry["error"]:
            res.forward = False
            res.problems.append("torch side raised: " + entry["error"].strip().splitlines()[-1])
            return None
        prefix = f"{case.id}::"
        ns: Dict[str, object] = {}
        leaves: Dict[str, object] = {}
        for name in case.inputs:
            v = jt.array(arrays[f"{prefix}in::{name}"])
            ns[name] = v
            if v.dtype in (jt.float32, jt.float64, jt.float16) and name not in case.const:
                leaves[name] = v
        if case.setup:
            code = self.convert(case, "setup", res)
            if code is None:
                res.forward = False
                return None
            exec(compile(code, f"<{case.id} setup, converted>", "exec"), ns)
            self._load_modules(case, entry, arrays, ns, leaves, res)
        code = self.convert(case, "src", res)
        if code is None:
            res.forward = False
            return None
        exec(compile(code, f"<{case.id}, converted>", "exec"), ns)
        got: List[Tuple[str, object]] = []
        for name in case.outputs:
            if name not in ns:
                raise NameError(f"converted snippet did not assign {name!r}")
            _flatten(name, ns[name], got)
        return entry, arrays, got, leaves

    def plan_warm(self, cases: List[Case], batch: int = 48) -> None:
        """Plan the compilation of the kernels ``cases`` need, ``batch`` cases per sync.

        Jittor compiles the kernels one sync needs in parallel; run one case at a time, a
        cold cache compiles them one by one.  A batch is compiled when the first of its cases
        runs (:meth:`run`): each test then carries one batch's compilation, never the whole
        warm-up (on a cold cache, all of it outlasts one test's time limit)."""
        todo = [c for c in cases if not c.expect_unsupported]
        # ref64 cases run fused (see run): their own batches, fused
        plain = [c for c in todo if not c.ref64]
        wide = [c for c in todo if c.ref64]
        self._batches = [(plain[s:s + batch], 1) for s in range(0, len(plain), batch)] + \
            [(wide[s:s + batch], 0) for s in range(0, len(wide), batch)]
        self._batch_of = {c.id: k for k, (group, _) in enumerate(self._batches) for c in group}

    def warm(self, cases: List[Case], batch: int = 48) -> None:
        """Compile the kernels ``cases`` need now, ``batch`` cases per sync (see :meth:`plan_warm`)."""
        self.plan_warm(cases, batch)
        for k in range(len(self._batches)):
            self._warm_batch(k)

    def _warm_batch_of(self, case: Case) -> None:
        k = self._batch_of.get(case.id)
        if k is not None:
            self._warm_batch(k)

    def _warm_batch(self, k: int) -> None:
        """Execute batch ``k``'s cases (forward and gradient graphs) and sync them together,
        discarding every result: the cases' own runs then find their kernels compiled.  A
        case that fails here fails again, with its reason, in its own run."""
        import jittor as jt

        group, no_fuse = self._batches[k]
        if not group:
            return
        self._batches[k] = ([], no_fuse)
        pending = []
        for case in group:
            res = CaseResult(case.id, case.api)
            try:
                with jt.flag_scope(no_fuse=no_fuse):
                    executed = self._execute(case, res)
                    if executed is None:
                        continue
                    entry, arrays, got, leaves = executed
                    pending += [v for _, v in got if isinstance(v, jt.Var)]
                    grads = self._grad_vars(case, entry, got, arrays, leaves, res)
                    pending += list(grads[1]) if grads else []
            except Exception:  # noqa: BLE001 - reported by the case's own run
                continue
        try:
            with jt.flag_scope(no_fuse=no_fuse):
                jt.sync(pending)
        except Exception:  # noqa: BLE001 - one failing case spoils only the warm-up
            pass
        jt.clean_graph()

    def _expect_unsupported(self, case: Case, res: CaseResult) -> None:
        """A rejected call form: passes when the converter reports the API, unconverted."""
        parts = ["setup", "src"] if case.setup else ["src"]
        found = []
        for part in parts:
            out = self._convert_source(case.source(part), f"<{case.id} {part}>")
            found += [f for f in out.report.unsupported if f.api == case.api]
        res.rejected = True
        res.forward = bool(found)
        if found:
            res.notes.append(f"rejected as intended: {found[0].code} {found[0].reason}")
        else:
            res.problems.append(f"expected the converter to report {case.api} as unsupported ({case.why})")

    def _load_modules(self, case, entry, arrays, ns, leaves, res) -> None:
        import jittor as jt

        for mname in entry["modules"]:
            mod = ns.get(mname)
            if not isinstance(mod, jt.nn.Module):
                raise TypeError(f"setup built {mname!r} as {type(mod).__name__}, not a Jittor module")
            sd = mod.state_dict()
            pfx = f"{case.id}::sd::{mname}."
            for key in [k for k in arrays if k.startswith(pfx)]:
                k = key[len(pfx):]
                if k.endswith("num_batches_tracked") and k not in sd:
                    continue
                if k not in sd:
                    raise KeyError(f"torch state_dict key {mname}.{k} has no Jittor counterpart "
                                   f"(Jittor keys: {sorted(sd)[:8]})")
                value = arrays[key]
                if value.shape == () and tuple(sd[k].shape) == (1,):  # Jittor has no 0-d Vars
                    value = value.reshape(1)
                if tuple(sd[k].shape) != value.shape:
                    raise ValueError(f"{mname}.{k}: Jittor shape {tuple(sd[k].shape)} vs torch {arrays[key].shape}")
                sd[k].assign(jt.array(value).cast(sd[k].dtype))
            params = dict(mod.named_parameters())
            for gname in entry["grads"]:
                if gname.startswith(mname + "."):
                    k = gname[len(mname) + 1:]
                    if k in params:
                        leaves[gname] = params[k]
                    elif k in sd:
                        leaves[gname] = sd[k]

    # complexity: one branch per recorded output kind (none/dtype/other, arrays, tensors), each its own check
    def _compare(self, case: Case, key: str, value, want: dict, arrays: dict, res: CaseResult) -> bool:  # noqa: C901
        import jittor as jt

        akey = f"{case.id}::out::{key}"
        if want["kind"] in ("none", "dtype", "other"):
            ok = (value is None) if want["kind"] == "none" else True
            if not ok:
                res.problems.append(f"{key}: torch gave None, Jittor {type(value).__name__}")
            return ok
        if isinstance(value, jt.Var):
            got = value.numpy()
            gdtype = str(value.dtype)
        else:
            got = np.asarray(value)
            gdtype = None
        expected = arrays[akey]
        tshape = tuple(want["shape"])
        gshape = tuple(got.shape)
        if want["kind"] == "py" and isinstance(value, jt.Var) and got.size == 1:
            gshape = tshape = ()
            got = got.reshape(())
            res.notes.append(f"{key}: torch Python scalar, Jittor 1-element Var")
        if gshape != tshape:
            if tshape == () and gshape == (1,):
                res.notes.append(f"{key}: 0-d as (1,)")
                got = got.reshape(())
            else:
                res.problems.append(f"{key}: shape {gshape} vs torch {tshape}")
                return False
        if want["kind"] == "tensor" and gdtype is not None and gdtype != want["dtype"]:
            if gdtype in _EQUIV_DTYPES.get(want["dtype"], ()):
                res.notes.append(f"{key}: {want['dtype']} as {gdtype} (Jittor 64->32 policy)")
            else:
                res.problems.append(f"{key}: dtype {gdtype} vs torch {want['dtype']}")
                return False
        if want["kind"] == "tensor" and gdtype is None:
            res.problems.append(f"{key}: torch gave a tensor, Jittor a {type(value).__name__}")
            return False
        if case.compare == "shape":
            return True
        if case.compare == "stats":
            g, w = got.astype(np.float64), expected.astype(np.float64)
            dm, ds = abs(g.mean() - w.mean()), abs(g.std() - w.std())
            res.max_abs_err = max(res.max_abs_err or 0.0, dm, ds)
            if dm > case.atol or ds > case.atol:
                res.problems.append(f"{key}: moments differ (mean {g.mean():.4g} vs {w.mean():.4g}, "
                                    f"std {g.std():.4g} vs {w.std():.4g}; atol {case.atol:g})")
                return False
            return True
        if expected.dtype == np.bool_ or got.dtype == np.bool_:
            if not np.array_equal(got.astype(bool), expected.astype(bool)):
                res.problems.append(f"{key}: {int((got.astype(bool) != expected.astype(bool)).sum())} booleans differ")
                return False
            return True
        a, r = _errors(got, expected)
        res.max_abs_err = max(res.max_abs_err or 0.0, a)
        res.max_rel_err = max(res.max_rel_err or 0.0, r)
        why = close(got, expected, case.rtol, case.atol)
        ref = arrays.get(f"{case.id}::out64::{key}")
        if case.ref64 and ref is not None:
            if why:
                # off torch's float32 result by more than rtol/atol: the port is still right when
                # it is as close to the float64 result as torch's own float32 result is
                res.notes.append(f"{key}: {why}; judged against torch's float64 result")
            return self._accurate(key, got, expected, ref, res)
        if why:
            res.problems.append(f"{key}: {why}")
            return False
        return True

    def _grad_vars(self, case, entry, got, arrays, leaves, res):
        """``(leaf names, lazy gradients)`` of ``sum(out * R)`` for a differentiable case, or
        None (not checked, or failed: ``res`` says why)."""
        import jittor as jt

        row = self.table.get(case.api)
        if not (case.grad and row is not None and row.differentiable and entry["grads"]):
            return None
        outs = dict(got)
        loss = None
        for key in [o["key"] for o in entry["outputs"]]:
            rkey = f"{case.id}::R::{key}"
            if rkey not in arrays:
                continue
            v = outs[key]
            if not isinstance(v, jt.Var):
                res.gradient = False
                res.problems.append(f"gradient: {key} is not a Jittor Var")
                return None
            r = arrays[rkey]
            if r.size != int(np.prod(v.shape)):
                res.gradient = False
                res.problems.append(f"gradient: {key} has {tuple(v.shape)}, projection {r.shape}")
                return None
            term = (v.float32() * jt.array(r.astype(np.float32).reshape(tuple(v.shape)))).sum()
            loss = term if loss is None else loss + term
        names = [n for n in entry["grads"] if n in leaves]
        missing = [n for n in entry["grads"] if n not in leaves]
        if missing:
            res.gradient = False
            res.problems.append(f"gradient: no Jittor counterpart for {missing}")
            return None
        if loss is None:
            res.gradient = False
            res.problems.append("gradient: no differentiable output")
            return None
        return names, jt.grad(loss, [leaves[n] for n in names])

    def _gradient(self, case, entry, got, arrays, leaves, res) -> None:
        grads = self._grad_vars(case, entry, got, arrays, leaves, res)
        if grads is None:
            return
        ok = True
        for n, g in zip(*grads):
            want = arrays[f"{case.id}::grad::{n}"]
            gv = g.numpy()
            if gv.size == want.size:
                gv = gv.reshape(want.shape)
            if gv.shape != want.shape:
                res.problems.append(f"grad {n}: shape {gv.shape} vs torch {want.shape}")
                ok = False
                continue
            why = close(gv, want, case.rtol * GRAD_FACTOR, case.atol * GRAD_FACTOR)
            if why:
                res.problems.append(f"grad {n}: {why}")
                ok = False
            ref = arrays.get(f"{case.id}::grad64::{n}")
            if case.ref64 and ref is not None:
                ok = self._accurate(f"grad {n}", gv, want, ref, res) and ok
        res.gradient = ok

    @staticmethod
    def _accurate(name: str, got: np.ndarray, torch32: np.ndarray, ref: np.ndarray, res: CaseResult) -> bool:
        """A ``ref64`` result's judge: the port's float32 error (normwise, against torch's
        float64 result) within ``ACCURACY_FACTOR`` x torch's own float32 error."""
        ours, theirs = normwise_error(got, ref), normwise_error(torch32, ref)
        # one float32 ulp of the result's scale: a float32 result is judged no finer (torch's own
        # error on one summed scalar is a single draw, below half an ulp when it is lucky)
        bound = ACCURACY_FACTOR * max(theirs, 2.0 ** -23)
        res.notes.append(f"{name}: float32 error {ours:.3g} vs torch's {theirs:.3g} (float64 reference)")
        if ours > bound:
            res.problems.append(f"{name}: float32 error {ours:.3g} is {ours / max(theirs, 1e-300):.3g}x "
                                f"torch's own {theirs:.3g} (allowed {ACCURACY_FACTOR:g}x)")
            return False
        return True


class ResultStore:
    """Case outcomes across sessions: ``build/parity/api_case_results.json``, keyed by case id,
    each with a hash of the case definition (a changed case's old outcome is ignored)."""

    def __init__(self, path: Path = ROOT / "build" / "parity" / "api_case_results.json"):
        self.path = path

    @staticmethod
    def digest(case: Case) -> str:
        """Hash of everything that defines a case."""
        import hashlib

        return hashlib.sha256(repr(case).encode()).hexdigest()[:16]

    def _read(self) -> dict:
        return json.loads(self.path.read_text()) if self.path.exists() else {}

    def put(self, case: Case, res: CaseResult) -> None:
        """Store one outcome (the file is locked: several sessions may write)."""
        import fcntl

        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path.with_suffix(".lock"), "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            data = self._read()
            data[case.id] = {"digest": self.digest(case), "api": res.api, "forward": res.forward,
                             "gradient": res.gradient, "notes": res.notes, "problems": res.problems,
                             "rejected": res.rejected}
            tmp = self.path.with_suffix(".tmp")
            tmp.write_text(json.dumps(data, indent=1, sort_keys=True))
            tmp.replace(self.path)

    def load(self, cases: List[Case]) -> Dict[str, CaseResult]:
        """Stored outcomes of the given cases whose definition is unchanged."""
        data = self._read()
        out = {}
        for c in cases:
            d = data.get(c.id)
            if d and d["digest"] == self.digest(c):
                out[c.id] = CaseResult(c.id, d["api"], d["forward"], d["gradient"], notes=d["notes"],
                                       problems=d["problems"], rejected=d["rejected"])
        return out


@lru_cache(maxsize=1)
def cases_by_id() -> Dict[str, Case]:
    """Every case, by id."""
    return {c.id: c for c in all_cases()}


def row_outcomes(results: List[CaseResult], table) -> Dict[str, dict]:
    """Per table row: forward/gradient ``pass``/``fail``/``n/a`` from its cases' results.

    A row passes only when every one of its cases passes; gradient is ``n/a`` for rows not
    marked differentiable or whose cases check no gradient."""
    by_api: Dict[str, List[CaseResult]] = {}
    for r in results:
        by_api.setdefault(r.api, []).append(r)
    out = {}
    for api, rs in sorted(by_api.items()):
        entry = table.get(api)
        checked = [r for r in rs if not r.rejected]
        fwd = ("pass" if all(r.forward for r in checked) else "fail") if checked else "n/a"
        grads = [r.gradient for r in rs if r.gradient is not None]
        if entry is None or not entry.differentiable or not grads:  # noqa: SIM108 (nested conditional reads worse)
            grad = "n/a"
        else:
            grad = "pass" if all(grads) else "fail"
        failed = [r.case for r in rs if not r.ok]  # a rejected form not reported counts too
        # notes without the output name ("out: 0-d as (1,)" -> "0-d as (1,)"), deduplicated
        notes = sorted({n.split(": ", 1)[-1] for r in rs for n in r.notes})
        out[api] = {"forward": fwd, "gradient": grad, "cases": len(rs), "failed_cases": failed, "notes": notes}
    return out


def isfinite_or_none(x: Optional[float]) -> Optional[float]:
    """JSON-safe float."""
    return None if x is None or (isinstance(x, float) and not math.isfinite(x)) else x
