"""Tiny synthetic data in the layouts the corpus's projects read (never downloaded).

A recipe is a list of steps from the manifest, each a table with a ``kind`` and its arguments,
run in a project's run folder (paths are relative to it). Every generator is seeded, so the torch
run and the converted run read the same bytes. Kinds:

- ``images``: random images (``dir``, ``n``, ``size`` [w, h], ``mode``, ``ext``, ``names``: a
  format with ``{i}``), e.g. one ImageFolder class folder per step.
- ``mnist``: MNIST/FashionMNIST raw idx files (``dir``, ``n``, ``n_test``): what torchvision's
  dataset finds already there and so never downloads.
- ``text``: a text file of ``lines`` lines of ``words`` random words (or letters, ``chars``),
  then ``extra`` (characters a script's own prompt needs in the vocabulary).
- ``cora``: a Cora-like citation graph (``dir``, ``nodes``, ``features``, ``classes``, ``edges``).
- ``tokens``: a uint16 token file (``path``, ``n``, ``vocab``) as np.memmap reads it.
- ``file``: a file with the given ``text``.
- ``python``: ``code`` run by torch's interpreter in the original project (a ``torch.save``d
  checkpoint of the project's own network, a dataset index in its format).

The bench makes the data once, in a copy of the original project, and copies the files the recipe
added or changed into the torch run and into the converted run.
"""
from __future__ import annotations

import struct
import subprocess
from pathlib import Path

import numpy as np

WORDS = ("the a of to and in is it that was for on are as with his they at be this from have or "  # noqa: SIM905 (a word list reads better as one string)
         "by one had not but what all were when we there can an your which their said if do will "
         "each about how up out them then she many some so these would other into has more her two "
         "like him see time could no make than first been its who now people my made over did down").split()


def _images(run: Path, step: dict, rng) -> None:
    from PIL import Image
    folder = run / step["dir"]
    folder.mkdir(parents=True, exist_ok=True)
    w, h = step.get("size", [32, 32])
    mode = step.get("mode", "RGB")
    channels = {"RGB": 3, "L": 1, "RGBA": 4}[mode]
    fmt = step.get("names", "img_{i:05d}")
    for i in range(step.get("n", 8)):
        arr = rng.integers(0, 256, size=(h, w, channels), dtype=np.uint8)
        if mode == "L":
            arr = arr[..., 0]
        Image.fromarray(arr, mode).save(folder / (fmt.format(i=i, i1=i + 1) + "." + step.get("ext", "png")))


def _idx(path: Path, arr: np.ndarray) -> None:
    magic = {1: 0x0801, 3: 0x0803}[arr.ndim]
    with open(path, "wb") as fh:
        fh.write(struct.pack(">I", magic))
        for d in arr.shape:
            fh.write(struct.pack(">I", d))
        fh.write(arr.astype(np.uint8).tobytes())


def _mnist(run: Path, step: dict, rng) -> None:
    folder = run / step["dir"]
    folder.mkdir(parents=True, exist_ok=True)
    size = step.get("size", 28)
    for prefix, n in (("train", step.get("n", 64)), ("t10k", step.get("n_test", 32))):
        _idx(folder / f"{prefix}-images-idx3-ubyte", rng.integers(0, 256, size=(n, size, size)))
        _idx(folder / f"{prefix}-labels-idx1-ubyte", rng.integers(0, 10, size=(n,)))


def _text(run: Path, step: dict, rng) -> None:
    path = run / step["path"]
    path.parent.mkdir(parents=True, exist_ok=True)
    out = []
    for _ in range(step.get("lines", 200)):
        if step.get("chars"):
            out.append("".join(rng.choice(list("abcdefghijklmnopqrstuvwxyz"), size=rng.integers(3, 9))))
        else:
            out.append(" ".join(rng.choice(WORDS, size=step.get("words", 8))))
    path.write_text("\n".join(out) + "\n" + step.get("extra", ""))


def _cora(run: Path, step: dict, rng) -> None:
    folder = run / step["dir"]
    folder.mkdir(parents=True, exist_ok=True)
    n, f, c = step.get("nodes", 1600), step.get("features", 32), step.get("classes", 7)
    ids = rng.choice(np.arange(10, 10 * n + 10), size=n, replace=False)
    with open(folder / "cora.content", "w") as fh:
        for i in range(n):
            feats = "\t".join(str(v) for v in rng.integers(0, 2, size=f))
            fh.write(f"{ids[i]}\t{feats}\tlabel_{rng.integers(0, c)}\n")
    with open(folder / "cora.cites", "w") as fh:
        for _ in range(step.get("edges", 4000)):
            a, b = rng.choice(ids, size=2, replace=False)
            fh.write(f"{a}\t{b}\n")


def _tokens(run: Path, step: dict, rng) -> None:
    path = run / step["path"]
    path.parent.mkdir(parents=True, exist_ok=True)
    rng.integers(0, step.get("vocab", 64), size=step.get("n", 4096)).astype(np.uint16).tofile(path)


def _file(run: Path, step: dict, rng) -> None:
    path = run / step["path"]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(step["text"])


GENERATORS = {"images": _images, "mnist": _mnist, "text": _text, "cora": _cora, "tokens": _tokens,
              "file": _file}


def make_data(run: Path, recipe: list, python: str, env: dict) -> None:
    """Run every step of ``recipe`` in ``run``; ``python`` steps run under ``python`` with ``env``."""
    for k, step in enumerate(recipe):
        rng = np.random.default_rng(1234 + k)
        if step["kind"] == "python":
            proc = subprocess.run([python, "-c", step["code"]], cwd=run, env=env, text=True,
                                  capture_output=True, timeout=300)
            if proc.returncode:
                raise RuntimeError(f"data step {k} failed: {proc.stderr.strip()[-800:]}")
        else:
            GENERATORS[step["kind"]](run, step, rng)


def new_files(tree: Path, original: Path) -> list:
    """Paths (relative) of files in ``tree`` that ``original`` lacks or holds with other bytes."""
    out = []
    for path in tree.rglob("*"):
        if not path.is_file():
            continue
        rel = path.relative_to(tree)
        ref = original / rel
        if not ref.is_file() or ref.stat().st_size != path.stat().st_size or ref.read_bytes() != path.read_bytes():
            out.append(rel)
    return out
