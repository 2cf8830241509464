"""Seeds: ``torch.manual_seed(s)`` -> ``shims.manual_seed(s)``, ``torch.cuda.manual_seed(_all)(s)``
-> ``jt.set_global_seed(s)``.

``shims.manual_seed`` seeds torch's own CPU stream (:mod:`shims.random_torch`, which the
samplers, ``DataLoader(shuffle=True)`` and torchvision's random transforms draw from, so their
orders and parameters are torch's) and, with ``jt.set_global_seed``, Jittor, numpy and
``random`` (importing Jittor reseeds numpy and ``random`` from the clock, so code that relied on
a numpy seed set before importing torch keeps a seeded numpy).  Where the same block seeds
numpy or ``random`` itself *before* the torch seed, ``shims.manual_seed(s, numpy=False)``
(``jt.set_seed``: Jittor only) is used instead so the user's numpy/random seed is not replaced.
A CUDA seed call next to a ``torch.manual_seed`` of the same block is removed (Jittor has one
generator for both devices); alone, it becomes ``jt.set_global_seed`` (torch's CUDA seed does
not touch its CPU stream either).
"""
from __future__ import annotations

import libcst as cst

from .base import Rule
from .common import BlockRule, code_of, stmt_call

_SEED = ("torch.manual_seed", "torch.random.manual_seed")
_CUDA_SEED = ("torch.cuda.manual_seed", "torch.cuda.manual_seed_all")
_OTHER_SEEDS = ("np.random.seed(", "numpy.random.seed(", "random.seed(")


class SeedRule(BlockRule, Rule):
    """Map torch's seed calls to Jittor's."""

    name = "seeds"
    identifiers = frozenset()  # torch uses only

    @classmethod
    def applies(cls, ctx) -> bool:
        return any(q in _SEED + _CUDA_SEED for q in ctx.names.uses.values())

    def __init__(self, ctx):
        super().__init__(ctx)
        self.targets = {}                     # seed Call -> (target, numpy seeded by the user)

    def plan(self, body) -> None:
        other_seeded = False
        has_torch_seed = any(self.ctx.qualname(c.func) in _SEED
                             for c in (stmt_call(s) for s in body) if c is not None)
        for stmt in body:
            call = stmt_call(stmt)
            if call is None:
                continue
            q = self.ctx.qualname(call.func)
            if code_of(call.func).startswith(tuple(s[:-1] for s in _OTHER_SEEDS)) and q is None:
                other_seeded = True
            elif q in _CUDA_SEED and has_torch_seed:
                self.remove(stmt)
                self.ctx.handled(stmt)
                self.ctx.note(f"{q} removed: Jittor's seed covers every device")
            elif q in _SEED:
                self.targets[call] = ("shims.manual_seed", other_seeded)
            elif q in _CUDA_SEED:
                self.targets[call] = ("jittor.set_global_seed", False)

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        planned = self.targets.get(original)
        if planned is None:
            return updated
        target, keep_numpy = planned
        self.ctx.handled(original.func)
        updated = updated.with_changes(func=self.ctx.spell(target))
        if keep_numpy:
            args = list(updated.args)
            if args:
                args[-1] = args[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
            args.append(cst.Arg(cst.Name("False"), keyword=cst.Name("numpy"),
                                equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace(""))))
            updated = updated.with_changes(args=args)
        return updated
