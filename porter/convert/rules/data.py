"""Data loading: ``torch.utils.data.DataLoader(...)`` -> ``shims.data.DataLoader(...)``.

``shims.data.DataLoader`` keeps torch's whole signature over Jittor (``batch_size``,
``shuffle``, ``sampler``, ``batch_sampler``, ``num_workers``, ``collate_fn``, ``pin_memory``,
``drop_last``, ``worker_init_fn``, ...), so every argument is kept as written: a ``shim`` table
row is enough, and this rule only acts where the table has none (or a ``rewritten`` one).
Datasets and samplers are table rows (``shims.data.*``).  Jittor's own ``Dataset.set_attrs`` loader is not
used: it treats ``len()`` as the number of batches and rejects positional ``batch_size`` and
``pin_memory``.  ``DistributedSampler`` is a table row (``shims.data.DistributedSampler``:
torch's shards over the processes ``mpirun`` started).
"""
from __future__ import annotations

import libcst as cst

from .base import Rule

CODE = "JT106"
_LOADERS = ("torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader")


class DataLoaderRule(Rule):
    """Route torch's DataLoader through ``shims.data.DataLoader``."""

    name = "data"
    identifiers = frozenset()  # torch uses only

    @classmethod
    def applies(cls, ctx) -> bool:
        return any(q in _LOADERS for q in ctx.names.uses.values())

    def _convert(self, original: cst.BaseExpression, updated: cst.BaseExpression) -> cst.BaseExpression:
        q = self.ctx.qualname(original)
        if q in _LOADERS:
            entry = self.ctx.table.get(q)
            if entry is not None and entry.status in ("direct", "shim"):
                return updated  # a table row says it (and retargets ``from ... import DataLoader``)
            self.ctx.handled(original)
            return self.ctx.spell("shims.data.DataLoader")
        return updated

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.BaseExpression:
        return self._convert(original, updated) if original in self.ctx.names.uses else updated

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
        return self._convert(original, updated) if original in self.ctx.names.uses else updated
