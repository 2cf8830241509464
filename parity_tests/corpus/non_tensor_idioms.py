"""torch code whose receivers are often NOT tensors: numpy arrays, pandas frames, lists, strings
and a user's class, called with methods that have torch's names (sum, mean, var, view, clip, transpose, ...).

``parity_tests/test_non_tensor_receivers.py`` runs :func:`results` under torch and, converted
unmodified, under Jittor: every value must come out the same.  Receivers the converter can type
statically (bound from numpy, literals, builtins) must be left alone; parameters it cannot type
are rewritten to ``shims`` calls that, given a non-tensor at run time, call its own method.
"""
import numpy as np
import pandas as pd
import torch


class Meter:
    """A user's class with torch-named methods."""

    def __init__(self):
        self.vals = []
        self.data = [0.5]  # a .data attribute that is no tensor's

    def add(self, v):
        self.vals.append(v)
        return self

    def mean(self):
        return sum(self.vals) / len(self.vals)

    def size(self):
        return len(self.vals)

    def type(self):
        return "meter"

    def to(self, unit):
        return f"{self.mean()} {unit}"

    def item(self):
        return self.vals[0]

    def sum(self, start=0):
        return start + sum(self.vals)

    def expand(self, n):
        return self.vals * n

    def float(self):
        return [float(v) for v in self.vals]

    def int(self):
        return [int(v) for v in self.vals]

    def numpy(self):
        return np.asarray(self.vals)


def typed_locals():
    """Receivers bound in the same scope from numpy, literals and builtins."""
    a = np.arange(12.0).reshape(3, 4)
    b = [3, 1, 2, 3]
    return {
        "sum": a.sum(axis=1), "mean": a.mean(axis=0), "max": a.max(axis=1), "min": a.min(),
        "std": a.std(axis=1), "var": a.var(axis=0, ddof=1), "view": a.view(np.int64)[0, :2],
        "reshape": a.reshape(4, 3), "clip": a.clip(2, 7), "repeat": a.repeat(2, axis=0),
        "transpose": a.transpose(1, 0), "T": a.T, "all": (a > 1).all(axis=1), "any": (a > 10).any(),
        "copy": a.copy(), "flatten": a.flatten(), "prod": a.prod(axis=1), "argmax": a.argmax(axis=1),
        "squeeze": a[:1].squeeze(0), "item": a[1, 1].item(), "index": b.index(1), "count": b.count(3),
        "split": "a,b".split(","),  # noqa: SIM905 (the str.split idiom is what the corpus case tests)
        **pandas_typed(),
    }


def pandas_typed():
    """A DataFrame bound in the same scope (metrics tables, dataset indexes)."""
    df = pd.DataFrame({"a": [1.0, 4.0, 2.0], "b": [3.0, 0.5, 6.0]})
    return {
        "df_sum": np.asarray(df.sum(axis=1)), "df_mean": np.asarray(df.mean()), "df_max": np.asarray(df.max()),
        "df_std": float(df["a"].std()), "df_clip": df.clip(1, 5).to_numpy(), "df_T": df.T.to_numpy(),
        "df_size": int(df.size), "df_copy": df.copy().to_numpy(), "df_round": (df / 3).round(2).to_numpy(),
    }


def pandas_untyped(d):
    """A DataFrame passed in as a parameter: the converter cannot type it."""
    return {
        "pd_sum": np.asarray(d.sum(axis=0)), "pd_mean": np.asarray(d.mean(axis=1)), "pd_std": np.asarray(d.std()),
        "pd_max": np.asarray(d.max()), "pd_min": np.asarray(d.min(axis=1)), "pd_all": np.asarray((d > 0).all()),
        "pd_clip": d.clip(1, 3).to_numpy(), "pd_round": (d / 3).round(1).to_numpy(),
        "pd_cumsum": d.cumsum().to_numpy(), "pd_abs": (d - 2).abs().to_numpy(),
    }


def untyped(a, b, m):
    """Receivers the converter cannot type (parameters): numpy, a list, a user's class."""
    return {
        "p_sum": a.sum(axis=1), "p_mean": a.mean(axis=0), "p_max": a.max(axis=1), "p_min": a.min(),
        "p_std": a.std(axis=1), "p_var": a.var(axis=0, ddof=1), "p_clip": a.clip(2, 7),
        "p_transpose": a.transpose(1, 0), "p_repeat": a.repeat(2, axis=0), "p_all": (a > 1).all(),
        "p_any": (a > 10).any(axis=0), "p_prod": a.prod(), "p_argmax": a.argmax(), "p_copy": a.copy(),
        "p_reshape": a.reshape(2, 6), "p_flatten": a.flatten(), "p_squeeze": a[:1].squeeze(0),
        "p_cumsum": a.cumsum(axis=1), "p_round": (a / 3).round(2), "p_index": b.index(2),
        "m_mean": m.mean(), "m_size": m.size(), "m_type": m.type(), "m_to": m.to("s"),
        "m_item": m.item(), "m_sum": m.sum(10), "m_expand": m.expand(2), "m_float": m.float(),
        "m_int": m.int(), "m_numpy": m.numpy(), "m_data": m.data, "p_T": a.T,
        "p_data": np.frombuffer(a.data, dtype=a.dtype)[:3],
        "p_float": a.astype(np.float32).sum(), "p_numpy_int": int(a[0, 1]),
    }


def results():
    """Every value, as plain numpy arrays / Python values."""
    out = typed_locals()
    out.update(untyped(np.arange(12.0).reshape(3, 4), [5, 2, 9], Meter().add(1.0).add(3.0)))
    out.update(pandas_untyped(pd.DataFrame({"x": [1.0, 2.0, 5.0], "y": [4.0, 0.0, 3.0]})))
    x = torch.ones(2, 3)  # a real tensor among them: converted
    out["tensor_sum"] = x.sum(1).numpy()
    return out
