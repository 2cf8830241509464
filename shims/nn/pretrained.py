"""Class methods of torch layers reached through the class: ``nn.Embedding.from_pretrained``
(Jittor's ``Embedding`` has none)."""
from __future__ import annotations

import jittor as jt

__all__ = ["embedding_from_pretrained"]


def embedding_from_pretrained(embeddings, freeze: bool = True, padding_idx=None, max_norm=None, norm_type: float = 2.0,
                              scale_grad_by_freq: bool = False, sparse: bool = False):
    """``torch.nn.Embedding.from_pretrained``: an Embedding whose weight is a copy of
    ``embeddings`` (rows x dim), frozen (no gradient, not trained) unless ``freeze=False``."""
    if max_norm is not None or scale_grad_by_freq or sparse:
        raise NotImplementedError("Embedding.from_pretrained: max_norm, scale_grad_by_freq and sparse have no "
                                  "Jittor form")
    if embeddings.ndim != 2:
        raise ValueError("Embeddings parameter is expected to be 2-dimensional")
    rows, dim = (int(s) for s in embeddings.shape)
    layer = jt.nn.Embedding(rows, dim, padding_idx)
    layer.weight = embeddings.clone()
    layer.weight.requires_grad = not freeze
    if freeze:
        layer.weight.stop_grad()
    return layer
