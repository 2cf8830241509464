"""A method row the converter rewrote on a receiver that is no tensor (a numpy array, a pandas
frame, a user's class it could not type) must still call that receiver's own method of the torch
name: ``m.type()`` -> ``shims.tensor_type(m)`` -> ``m.type()``."""
import importlib

import pytest

import shims  # noqa: F401  (first: Jittor's settings)
from porter.mapping import load_table

ROWS = [e for e in load_table() if e.api.startswith("torch.Tensor.") and e.status == "shim"
        and e.kind == "method" and e.receiver == "arg0"]


def _resolve(target):
    mod, _, name = target.rpartition(".")
    return getattr(importlib.import_module(mod), name)


def _foreign(method):
    """An object of a class the converter cannot type, with the torch-named method."""
    return type("Foreign", (), {method: lambda self, *a, **k: ("own", method, a, k)})()


@pytest.mark.parametrize("row", ROWS, ids=[e.api for e in ROWS])
def test_foreign_receiver_gets_its_own_method(row):
    fn = _resolve(row.target)
    method = row.api.rsplit(".", 1)[1]
    assert fn(_foreign(method), 1, k=2) == ("own", method, (1,), {"k": 2})


def test_every_renamed_ops_shim_is_covered():
    """Every row whose shim is named otherwise than the torch method reaches the fallback."""
    renamed = [e for e in ROWS if e.target.rsplit(".", 1)[1] != e.api.rsplit(".", 1)[1]]
    assert {e.api for e in renamed} >= {"torch.Tensor.type", "torch.Tensor.where"}
