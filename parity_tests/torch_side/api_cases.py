"""Torch side of the per-API parity harness: run every case once, in one process.

Run by ``porter.prove.torchside.run_torch`` under ``.venv-torch`` as
``api_cases.py --out DIR``, on the CPU; ``--device cuda`` runs the cases there instead (TF32 off:
IEEE float32, as on the CPU) and ``--cases FILE`` only the case ids that file lists, one a line
(``parity_tests/api/device_run.py`` uses both).  For each case module (area) it writes ``DIR/<area>.npz`` with
``<case id>::in::<name>`` (inputs), ``::sd::<module>.<key>`` (the state_dict of each module
the setup built), ``::out::<key>`` (flattened results), ``::R::<key>`` (the projection of
each differentiable output) and ``::grad::<name>`` (gradient of ``sum(out * R)``), plus
``DIR/<area>.json`` with each result's torch shape/dtype/kind and any error the snippet raised.
"""
from __future__ import annotations

import argparse
import json
import sys
import traceback
from pathlib import Path

import numpy as np
import torch
import torch.nn as nn

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from parity_tests.api.case import all_cases, area_of, make_inputs, projection, read_case_ids  # noqa: E402


def _flatten(key, value, out):
    """Results as a flat list of (key, object): tuples/lists/named tuples are expanded."""
    if isinstance(value, torch.Tensor):
        out.append((key, value))
    elif isinstance(value, torch.Size):
        out.append((key, tuple(int(v) for v in value)))
    elif isinstance(value, (tuple, list)):
        for i, v in enumerate(value):
            _flatten(f"{key}.{i}", v, out)
    else:
        out.append((key, value))


def _describe(value):
    if isinstance(value, torch.Tensor):
        return {"kind": "tensor", "shape": list(value.shape), "dtype": str(value.dtype).replace("torch.", "")}
    if isinstance(value, (bool, int, float)):
        return {"kind": "py", "shape": [], "dtype": type(value).__name__}
    if isinstance(value, tuple):
        return {"kind": "py", "shape": [len(value)], "dtype": "tuple"}
    if value is None:
        return {"kind": "none", "shape": [], "dtype": "None"}
    if isinstance(value, torch.dtype):
        return {"kind": "dtype", "shape": [], "dtype": str(value).replace("torch.", "")}
    return {"kind": "other", "shape": [], "dtype": type(value).__name__}


# complexity: one case's run and recording (inputs, call, outputs, gradients) in the order runner._compare reads them
def run_case(case, arrays, meta, device="cpu"):  # noqa: C901
    """Run one case on ``device``; record arrays (under ``case.id::...``) and its meta entry."""
    torch.manual_seed(0)
    cid = case.id
    inputs = make_inputs(case)
    ns = {}
    leaves = {}
    for name, a in inputs.items():
        t = torch.from_numpy(a.copy()).to(device)
        if case.grad and t.is_floating_point() and name not in case.const:
            t.requires_grad_(True)
            leaves[name] = t
        ns[name] = t
        arrays[f"{cid}::in::{name}"] = a
    entry = {"outputs": [], "grads": [], "modules": [], "error": None}
    meta[cid] = entry
    try:
        if case.setup:
            exec(compile(case.source("setup"), f"<{cid} setup>", "exec"), ns)
        for mname, mod in list(ns.items()):
            if isinstance(mod, nn.Module) and not mname.startswith("_"):
                entry["modules"].append(mname)
                for k, v in mod.state_dict().items():
                    # a copy: .numpy() shares the tensor's memory, and a case that trains updates it in place
                    arrays[f"{cid}::sd::{mname}.{k}"] = v.detach().cpu().numpy().copy()
                for k, p in mod.named_parameters():
                    if case.grad and p.requires_grad:
                        leaves[f"{mname}.{k}"] = p
        exec(compile(case.source("src"), f"<{cid}>", "exec"), ns)
        flat = []
        for name in case.outputs:
            if name not in ns:
                raise NameError(f"the snippet did not assign its output {name!r}")
            _flatten(name, ns[name], flat)
        loss = None
        for key, v in flat:
            d = _describe(v)
            d["key"] = key
            entry["outputs"].append(d)
            if isinstance(v, torch.Tensor):
                arrays[f"{cid}::out::{key}"] = v.detach().cpu().numpy()
                if v.requires_grad and v.is_floating_point() and case.grad:
                    r = projection(case, key, tuple(v.shape))
                    arrays[f"{cid}::R::{key}"] = r
                    term = (v.double() * torch.from_numpy(r).to(v.device)).sum()
                    loss = term if loss is None else loss + term
            elif d["kind"] == "py":
                arrays[f"{cid}::out::{key}"] = np.asarray(v)
        if loss is not None and leaves:
            names = list(leaves)
            grads = torch.autograd.grad(loss, [leaves[n] for n in names], allow_unused=True)
            for n, g in zip(names, grads):
                if g is None or g._is_zerotensor():  # unused input / torch's ZeroTensor
                    g = torch.zeros_like(leaves[n])
                arrays[f"{cid}::grad::{n}"] = g.detach().cpu().numpy()
                entry["grads"].append(n)
        if case.ref64:
            outs64, grads64 = float64_run(case, inputs, arrays, device)
            arrays.update((f"{cid}::out64::{k}", v) for k, v in outs64.items())
            arrays.update((f"{cid}::grad64::{n}", g) for n, g in grads64.items())
    except Exception:  # recorded: the Jittor side reports the case as failing with it
        entry["error"] = traceback.format_exc(limit=3)


def float64_run(case, inputs, arrays, device="cpu"):
    """The float outputs and gradients of a ``ref64`` case computed in float64: float inputs and
    the modules the setup builds (with the float32 run's weights) cast to float64, the same
    projections R.  Returns ``({output key: array}, {leaf name: gradient})``."""
    cid = case.id
    torch.manual_seed(0)
    ns, leaves = {}, {}
    for name, a in inputs.items():
        t = torch.from_numpy(a.copy()).to(device)
        if t.is_floating_point():
            t = t.double()
            if name not in case.const:
                t.requires_grad_(True)
                leaves[name] = t
        ns[name] = t
    if case.setup:
        exec(compile(case.source("setup"), f"<{cid} setup, float64>", "exec"), ns)
    for mname, mod in list(ns.items()):
        if isinstance(mod, nn.Module) and not mname.startswith("_"):
            mod.double()
            sd = {k[len(f"{cid}::sd::{mname}."):]: torch.from_numpy(v).to(device) for k, v in arrays.items()
                  if k.startswith(f"{cid}::sd::{mname}.")}
            mod.load_state_dict({k: v.double() if v.is_floating_point() else v for k, v in sd.items()})
            leaves.update((f"{mname}.{k}", p) for k, p in mod.named_parameters() if p.requires_grad)
    exec(compile(case.source("src"), f"<{cid}, float64>", "exec"), ns)
    flat = []
    for name in case.outputs:
        _flatten(name, ns[name], flat)
    outs = {key: v.detach().cpu().numpy() for key, v in flat if isinstance(v, torch.Tensor) and v.is_floating_point()}
    outs.update((key, np.asarray(v, np.float64)) for key, v in flat if isinstance(v, float))  # .item() results
    terms = [(v * torch.from_numpy(arrays[f"{cid}::R::{key}"]).to(v.device)).sum() for key, v in flat
             if f"{cid}::R::{key}" in arrays]
    if not terms or not leaves:
        return outs, {}
    names = list(leaves)
    grads = torch.autograd.grad(sum(terms), [leaves[n] for n in names], allow_unused=True)
    return outs, {n: (torch.zeros_like(leaves[n]) if g is None else g).detach().cpu().numpy()
                  for n, g in zip(names, grads)}


def main():
    """Run every case and write one ``.npz`` and one ``.json`` per area into ``--out``."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--device", default="cpu", help="where torch runs the cases (cpu, cuda)")
    ap.add_argument("--cases", help="a file of case ids, one a line: run only those")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(1)
    if args.device != "cpu":
        # IEEE float32 on the GPU too: torch's cuDNN convolutions default to TF32 (10-bit mantissa)
        torch.backends.cudnn.allow_tf32 = False
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.set_default_device(args.device)  # the modules a case's setup builds
    wanted = set(read_case_ids(args.cases)) if args.cases else None
    by_area = {}
    for case in all_cases():
        if wanted is None or case.id in wanted:
            by_area.setdefault(area_of(case), []).append(case)
    for area, cases in by_area.items():
        arrays, meta = {}, {}
        for case in cases:
            run_case(case, arrays, meta, args.device)
        np.savez(out / f"{area}.npz", **arrays)
        (out / f"{area}.json").write_text(json.dumps(meta, indent=1, sort_keys=True))
    errors = [cid for area in by_area for cid in json.loads((out / f"{area}.json").read_text())
              if json.loads((out / f"{area}.json").read_text())[cid]["error"]]
    print(f"{sum(len(c) for c in by_area.values())} cases, {len(errors)} raised on the torch side")
    for cid in errors:
        print("  torch side raised:", cid)


if __name__ == "__main__":
    main()
