"""Torch side of the checkpoint parity tests: write .pth files, and read back shims.save output.

``--out DIR``: writes zip and legacy checkpoints covering every dtype, offset/strided views,
shared storages and nested containers, plus ``expected.npz`` with each tensor's values.
Also ``numpy.pth`` (numpy arrays and scalars, complex, a 0-d tensor inside a torch pickle) and
``model.pth``: a whole ``ckpt_tiny_net.TinyNet`` saved with ``torch.save(model)``, with its input
and output in ``model_io.npz``.
``--read FILE``: additionally loads FILE with ``torch.load(weights_only=True)`` and writes what it
found to ``DIR/readback.npz`` (keys flattened with '/').
"""
import argparse
import collections
import os
import sys

import numpy as np
import torch


def flat(obj, prefix=""):
    """Flatten nested containers of tensors into {'a/b/0': ndarray}."""
    out = {}
    if isinstance(obj, torch.Tensor):
        t = obj.detach()
        out[prefix] = (t.float() if t.dtype == torch.bfloat16 else t).numpy()
        out[prefix + "#dtype"] = np.array(str(t.dtype))
    elif isinstance(obj, dict):
        for k, v in obj.items():
            out.update(flat(v, f"{prefix}/{k}" if prefix else str(k)))
    elif isinstance(obj, (list, tuple)):
        for i, v in enumerate(obj):
            out.update(flat(v, f"{prefix}/{i}" if prefix else str(i)))
    else:
        out[prefix] = np.array("<None>" if obj is None else obj)
    return out


def sample():
    g = torch.Generator().manual_seed(0)
    base = torch.randn(4, 5, generator=g)
    shared = torch.arange(12, dtype=torch.float32)
    conv = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.BatchNorm2d(4))
    conv[1].running_mean.normal_(generator=g)
    return collections.OrderedDict([
        ("f32", torch.randn(3, 4, generator=g)),
        ("f64", torch.randn(2, 3, generator=g, dtype=torch.float64)),
        ("f16", torch.randn(5, generator=g).half()),
        ("bf16", torch.randn(2, 3, generator=g).bfloat16()),
        ("i64", torch.tensor([2 ** 40, -3, 7], dtype=torch.int64)),
        ("i32", torch.tensor([1, -2], dtype=torch.int32)),
        ("i16", torch.tensor([300, -4], dtype=torch.int16)),
        ("i8", torch.tensor([-5, 6], dtype=torch.int8)),
        ("u8", torch.tensor([0, 255], dtype=torch.uint8)),
        ("bool", torch.tensor([True, False, True])),
        ("scalar", torch.tensor(3.5)),
        ("empty", torch.zeros(0, 3)),
        ("offset_view", base[:, 1:3]),
        ("transpose", base.t()),
        ("row_slice", base[2:]),
        ("step_view", base[::2, ::2]),
        ("shared_a", shared[:6]),
        ("shared_b", shared[4:].view(2, 4)),
        ("param", torch.nn.Parameter(torch.randn(2, 2, generator=g))),
        ("nested", {"list": [torch.ones(2), 3, "text", 1.5], "tuple": (torch.zeros(1), None),
                    "model": conv.state_dict()}),
    ])


def extras(out):
    """numpy.pth and the whole-model file (see the module docstring)."""
    torch.save({"arr": np.arange(6, dtype=np.float64).reshape(2, 3), "i32": np.int32([7, -8]),
                "np_scalar": np.float32(2.5), "complex": 1.5 - 2j, "zero_d": torch.tensor(4.25)},
               os.path.join(out, "numpy.pth"))
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from ckpt_tiny_net import TinyNet
    torch.manual_seed(0)
    model = TinyNet()
    model.body[1].running_mean.normal_()
    model.body[1].running_var.uniform_(0.5, 2)
    model.scale.fill_(1.5)
    model.eval()
    x = torch.randn(5, 3)
    with torch.no_grad():
        y = model(x)
    torch.save(model, os.path.join(out, "model.pth"))
    np.savez(os.path.join(out, "model_io.npz"), x=x.numpy(), y=y.numpy())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--read")
    ap.add_argument("--hash")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    obj = sample()
    torch.save(obj, os.path.join(args.out, "zip.pth"))
    torch.save(obj, os.path.join(args.out, "legacy.pth"), _use_new_zipfile_serialization=False)
    np.savez(os.path.join(args.out, "expected.npz"), **flat(obj))
    extras(args.out)
    if args.read:
        back = torch.load(args.read, weights_only=True)
        np.savez(os.path.join(args.out, "readback.npz"), **flat(back))


if __name__ == "__main__":
    main()
