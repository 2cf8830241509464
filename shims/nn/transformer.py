"""Attention and transformer layers with torch's parameter names, argument order and masks.

``torch.nn.MultiheadAttention`` keeps ``in_proj_weight``/``in_proj_bias`` (or ``q/k/v_proj_weight``
when ``kdim``/``vdim`` differ), ``out_proj``, ``bias_k``/``bias_v``; ``TransformerEncoderLayer``,
``TransformerDecoderLayer``, ``TransformerEncoder``, ``TransformerDecoder`` and ``Transformer``
keep torch's submodule names (``self_attn``, ``multihead_attn``, ``linear1``, ``norm1``,
``layers.0``...), so a torch ``state_dict`` loads by key.  ``jittor.nn.MultiheadAttention``
takes other arguments and names its weights differently, and Jittor has no transformer
layers.

Masks follow torch: an ``attn_mask`` of bools marks positions that may *not* be attended
(``True`` -> ``-inf``), a float mask is added to the scores; ``key_padding_mask`` (N, S) marks
padding; in ``scaled_dot_product_attention`` a boolean mask marks positions that *may* be
attended (torch's convention there).  ``is_causal`` is a hint where torch treats it as one
(the mask must be given) and builds the causal mask where torch does (SDPA).  Fully masked
rows give NaN, as in torch.
"""
from __future__ import annotations

import copy
import math
from typing import Callable, Optional, Union

import numpy as np

import jittor as jt

from ..ops.functional import gelu as _gelu
from .dropouts import Dropout, dropout
from .module import Module, ModuleList
from .norm import LayerNorm

__all__ = ["scaled_dot_product_attention", "multi_head_attention_forward", "MultiheadAttention",
           "TransformerEncoderLayer", "TransformerDecoderLayer", "TransformerEncoder", "TransformerDecoder",
           "Transformer", "generate_square_subsequent_mask"]


def _xavier_uniform(shape, fan_in: int, fan_out: int) -> jt.Var:
    a = math.sqrt(6.0 / (fan_in + fan_out))
    return jt.init.uniform(tuple(shape), "float32", -a, a)


def _linear(x, w, b=None):
    y = jt.matmul(x, w.transpose(1, 0))
    return y if b is None else y + b


def _is_bool(v) -> bool:
    return isinstance(v, jt.Var) and str(v.dtype) == "bool"


def _canonical_mask(mask, dtype) -> Optional[jt.Var]:
    """torch's ``_canonical_mask``: a bool mask becomes 0 / -inf (True = masked out)."""
    if mask is None:
        return None
    if _is_bool(mask):
        return jt.ternary(mask, jt.full(tuple(mask.shape), float("-inf"), dtype=dtype),
                          jt.zeros(tuple(mask.shape), dtype=dtype))
    if str(mask.dtype) not in ("float16", "float32", "float64", "bfloat16"):
        raise AssertionError("only bool and floating types of masks are supported")
    return mask


def _softmax_last(x: jt.Var) -> jt.Var:
    m = x.max(-1, keepdims=True).stop_grad()
    e = (x - m).exp()
    return e / e.sum(-1, keepdims=True)


def generate_square_subsequent_mask(sz: int, device=None, dtype=None) -> jt.Var:
    """``nn.Transformer.generate_square_subsequent_mask``: -inf above the diagonal, 0 elsewhere."""
    m = np.triu(np.full((sz, sz), -np.inf, np.float32), 1)
    return jt.array(m if dtype is None else m.astype(str(dtype)))


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p: float = 0.0,
                                 is_causal: bool = False, scale: Optional[float] = None,
                                 enable_gqa: bool = False) -> jt.Var:
    """``F.scaled_dot_product_attention``: ``softmax(q k^T * scale + bias) v`` over the last two
    dims; a boolean ``attn_mask`` is True where attention is allowed; ``is_causal`` masks the
    upper triangle; ``enable_gqa`` repeats key/value heads for grouped-query attention."""
    L, S = int(query.shape[-2]), int(key.shape[-2])
    scale_factor = 1.0 / math.sqrt(int(query.shape[-1])) if scale is None else scale
    bias = None
    if is_causal:
        if attn_mask is not None:
            raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when "
                               "is_causal=True")
        bias = jt.array(np.triu(np.full((L, S), -np.inf, np.float32), 1)).cast(query.dtype)
    elif attn_mask is not None:
        if _is_bool(attn_mask):
            bias = jt.ternary(attn_mask, jt.zeros(tuple(attn_mask.shape), dtype=query.dtype),
                              jt.full(tuple(attn_mask.shape), float("-inf"), dtype=query.dtype))
        else:
            bias = attn_mask
    if enable_gqa:
        hq, hk = int(query.shape[-3]), int(key.shape[-3])
        if hq != hk:
            rep = hq // hk
            key = key.unsqueeze(-3).repeat(*([1] * (key.ndim - 2)), rep, 1, 1).reshape(
                *key.shape[:-3], hq, S, int(key.shape[-1]))
            value = value.unsqueeze(-3).repeat(*([1] * (value.ndim - 2)), rep, 1, 1).reshape(
                *value.shape[:-3], hq, S, int(value.shape[-1]))
    scores = jt.matmul(query, key.permute(*range(key.ndim - 2), key.ndim - 1, key.ndim - 2)) * scale_factor
    if bias is not None:
        scores = scores + bias
    w = _softmax_last(scores)
    if dropout_p > 0.0:
        w = dropout(w, dropout_p, True)
    return jt.matmul(w, value)


# complexity: follows torch's F.multi_head_attention_forward step by step, with its argument forms and checks
def multi_head_attention_forward(query, key, value, embed_dim_to_check: int, num_heads: int, in_proj_weight,  # noqa: C901
                                 in_proj_bias, bias_k, bias_v, add_zero_attn: bool, dropout_p: float,
                                 out_proj_weight, out_proj_bias, training: bool = True, key_padding_mask=None,
                                 need_weights: bool = True, attn_mask=None, use_separate_proj_weight: bool = False,
                                 q_proj_weight=None, k_proj_weight=None, v_proj_weight=None, static_k=None,
                                 static_v=None, average_attn_weights: bool = True, is_causal: bool = False):
    """``F.multi_head_attention_forward`` (sequence-first ``(L, N, E)`` or unbatched ``(L, E)``
    inputs): returns ``(attn_output, attn_weights or None)``."""
    batched = query.ndim == 3
    if not batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = (int(s) for s in query.shape)
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    key_padding_mask = _canonical_mask(key_padding_mask, query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the Transformer module "
                           "method `generate_square_subsequent_mask` to create this mask.")
    attn_mask = _canonical_mask(attn_mask, query.dtype)
    if not use_separate_proj_weight:
        b = [None] * 3 if in_proj_bias is None else [in_proj_bias[i * embed_dim:(i + 1) * embed_dim] for i in range(3)]
        w = [in_proj_weight[i * embed_dim:(i + 1) * embed_dim] for i in range(3)]
    else:
        b = [None] * 3 if in_proj_bias is None else [in_proj_bias[i * embed_dim:(i + 1) * embed_dim] for i in range(3)]
        w = [q_proj_weight, k_proj_weight, v_proj_weight]
    q = _linear(query, w[0], b[0])
    k = _linear(key, w[1], b[1])
    v = _linear(value, w[2], b[2])
    if attn_mask is not None:
        if attn_mask.ndim == 2:
            if tuple(attn_mask.shape) != (tgt_len, int(key.shape[0])):
                raise RuntimeError(f"The shape of the 2D attn_mask is {tuple(attn_mask.shape)}, but should be "
                                   f"{(tgt_len, int(key.shape[0]))}.")
            attn_mask = attn_mask.unsqueeze(0)
        elif attn_mask.ndim != 3:
            raise RuntimeError(f"attn_mask's dimension {attn_mask.ndim} is not supported")
    if bias_k is not None and bias_v is not None:
        k = jt.concat([k, bias_k.repeat(1, bsz, 1)], 0)
        v = jt.concat([v, bias_v.repeat(1, bsz, 1)], 0)
        if attn_mask is not None:
            attn_mask = jt.concat([attn_mask, jt.zeros(tuple(attn_mask.shape[:-1]) + (1,), dtype=attn_mask.dtype)], -1)
        if key_padding_mask is not None:
            key_padding_mask = jt.concat([key_padding_mask, jt.zeros((bsz, 1), dtype=key_padding_mask.dtype)], -1)
    q = q.reshape(tgt_len, bsz * num_heads, head_dim).permute(1, 0, 2)
    k = (k.reshape(int(k.shape[0]), bsz * num_heads, head_dim).permute(1, 0, 2) if static_k is None else static_k)
    v = (v.reshape(int(v.shape[0]), bsz * num_heads, head_dim).permute(1, 0, 2) if static_v is None else static_v)
    if add_zero_attn:
        k = jt.concat([k, jt.zeros((bsz * num_heads, 1, head_dim), dtype=k.dtype)], 1)
        v = jt.concat([v, jt.zeros((bsz * num_heads, 1, head_dim), dtype=v.dtype)], 1)
        if attn_mask is not None:
            attn_mask = jt.concat([attn_mask, jt.zeros(tuple(attn_mask.shape[:-1]) + (1,), dtype=attn_mask.dtype)], -1)
        if key_padding_mask is not None:
            key_padding_mask = jt.concat([key_padding_mask, jt.zeros((bsz, 1), dtype=key_padding_mask.dtype)], -1)
    src_len = int(k.shape[1])
    if key_padding_mask is not None:
        if tuple(key_padding_mask.shape) != (bsz, src_len):
            raise AssertionError(f"expecting key_padding_mask shape of {(bsz, src_len)}, but got "
                                 f"{tuple(key_padding_mask.shape)}")
        kpm = key_padding_mask.reshape(bsz, 1, 1, src_len).broadcast((bsz, num_heads, 1, src_len))
        kpm = kpm.reshape(bsz * num_heads, 1, src_len)
        attn_mask = kpm if attn_mask is None else attn_mask + kpm
    if not training:
        dropout_p = 0.0
    scores = jt.matmul(q * math.sqrt(1.0 / float(head_dim)), k.permute(0, 2, 1))
    if attn_mask is not None:
        scores = scores + attn_mask
    weights = _softmax_last(scores)
    if dropout_p > 0.0:
        weights = dropout(weights, dropout_p, True)
    out = jt.matmul(weights, v)  # (N*H, L, hd)
    out = out.permute(1, 0, 2).reshape(tgt_len * bsz, embed_dim)
    out = _linear(out, out_proj_weight, out_proj_bias).reshape(tgt_len, bsz, -1)
    if not need_weights:
        return (out if batched else out.squeeze(1)), None
    weights = weights.reshape(bsz, num_heads, tgt_len, src_len)
    if average_attn_weights:
        weights = weights.mean(1)
    if not batched:
        return out.squeeze(1), weights.squeeze(0)
    return out, weights


class _Linear(Module):
    """torch's Linear (``NonDynamicallyQuantizableLinear`` for ``out_proj``): ``weight``/``bias``."""

    def __init__(self, in_features: int, out_features: int, bias: bool = True):
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        k = 1.0 / math.sqrt(in_features)
        self.weight = jt.init.uniform((out_features, in_features), "float32", -k, k)
        self.bias = jt.init.uniform((out_features,), "float32", -k, k) if bias else None

    def execute(self, x):
        return _linear(x, self.weight, self.bias)


class MultiheadAttention(Module):
    """``torch.nn.MultiheadAttention(embed_dim, num_heads, dropout=0.0, bias=True,
    add_bias_kv=False, add_zero_attn=False, kdim=None, vdim=None, batch_first=False)``;
    ``forward(query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
    average_attn_weights=True, is_causal=False)`` -> ``(attn_output, attn_weights)``."""

    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0, bias: bool = True,
                 add_bias_kv: bool = False, add_zero_attn: bool = False, kdim=None, vdim=None,
                 batch_first: bool = False, device=None, dtype=None):
        super().__init__()
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"embed_dim and num_heads must be greater than 0, got embed_dim={embed_dim} and "
                             f"num_heads={num_heads} instead")
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads, self.dropout, self.batch_first = num_heads, dropout, batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")
        E = embed_dim
        if not self._qkv_same_embed_dim:
            self.q_proj_weight = _xavier_uniform((E, E), E, E)
            self.k_proj_weight = _xavier_uniform((E, self.kdim), self.kdim, E)
            self.v_proj_weight = _xavier_uniform((E, self.vdim), self.vdim, E)
            self.in_proj_weight = None
        else:
            self.in_proj_weight = _xavier_uniform((3 * E, E), E, 3 * E)
            self.q_proj_weight = self.k_proj_weight = self.v_proj_weight = None
        self.in_proj_bias = jt.zeros(3 * E) if bias else None
        self.out_proj = _Linear(E, E, bias=bias)
        if bias:
            self.out_proj.bias.assign(jt.zeros(E))
        if add_bias_kv:
            std = math.sqrt(2.0 / (E + E))  # xavier_normal_ of a (1, 1, E) tensor: fan_in = fan_out = E
            self.bias_k = jt.randn((1, 1, E)) * std
            self.bias_v = jt.randn((1, 1, E)) * std
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn

    def execute(self, query, key, value, key_padding_mask=None, need_weights: bool = True, attn_mask=None,
                average_attn_weights: bool = True, is_causal: bool = False):
        batched = query.ndim == 3
        if self.batch_first and batched:
            query, key, value = (t.permute(1, 0, 2) for t in (query, key, value))
        out, weights = multi_head_attention_forward(
            query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight, self.in_proj_bias,
            self.bias_k, self.bias_v, self.add_zero_attn, self.dropout, self.out_proj.weight, self.out_proj.bias,
            training=self.is_training(), key_padding_mask=key_padding_mask, need_weights=need_weights,
            attn_mask=attn_mask, use_separate_proj_weight=not self._qkv_same_embed_dim,
            q_proj_weight=self.q_proj_weight, k_proj_weight=self.k_proj_weight, v_proj_weight=self.v_proj_weight,
            average_attn_weights=average_attn_weights, is_causal=is_causal)
        if self.batch_first and batched:
            out = out.permute(1, 0, 2)
        return out, weights


def _activation(activation: Union[str, Callable]):
    if activation == "relu":
        return lambda x: jt.maximum(x, jt.zeros_like(x))
    if activation == "gelu":
        return _gelu
    if isinstance(activation, str):
        raise RuntimeError(f"activation should be relu/gelu, not {activation}")
    return activation


class TransformerEncoderLayer(Module):
    """``torch.nn.TransformerEncoderLayer(d_model, nhead, dim_feedforward=2048, dropout=0.1,
    activation=relu, layer_norm_eps=1e-5, batch_first=False, norm_first=False, bias=True)``."""

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation: Union[str, Callable] = "relu", layer_norm_eps: float = 1e-5, batch_first: bool = False,
                 norm_first: bool = False, bias: bool = True, device=None, dtype=None):
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first)
        self.linear1 = _Linear(d_model, dim_feedforward, bias=bias)
        self.dropout = Dropout(dropout)
        self.linear2 = _Linear(dim_feedforward, d_model, bias=bias)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.activation_relu_or_gelu = 1 if activation == "relu" else 2 if activation == "gelu" else 0
        self.activation = _activation(activation)

    def execute(self, src, src_mask=None, src_key_padding_mask=None, is_causal: bool = False):
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask, is_causal)
            x = x + self._ff_block(self.norm2(x))
        else:
            x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask, is_causal))
            x = self.norm2(x + self._ff_block(x))
        return x

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal=False):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, need_weights=False,
                           is_causal=is_causal)[0]
        return self.dropout1(x)

    def _ff_block(self, x):
        return self.dropout2(self.linear2(self.dropout(self.activation(self.linear1(x)))))


class TransformerDecoderLayer(Module):
    """``torch.nn.TransformerDecoderLayer(d_model, nhead, dim_feedforward=2048, dropout=0.1,
    activation=relu, layer_norm_eps=1e-5, batch_first=False, norm_first=False, bias=True)``."""

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation: Union[str, Callable] = "relu", layer_norm_eps: float = 1e-5, batch_first: bool = False,
                 norm_first: bool = False, bias: bool = True, device=None, dtype=None):
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first)
        self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first)
        self.linear1 = _Linear(d_model, dim_feedforward, bias=bias)
        self.dropout = Dropout(dropout)
        self.linear2 = _Linear(dim_feedforward, d_model, bias=bias)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias)
        self.norm3 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.dropout3 = Dropout(dropout)
        self.activation = _activation(activation)

    def execute(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal: bool = False, memory_is_causal: bool = False):
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask, tgt_is_causal)
            x = x + self._mha_block(self.norm2(x), memory, memory_mask, memory_key_padding_mask, memory_is_causal)
            x = x + self._ff_block(self.norm3(x))
        else:
            x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask, tgt_is_causal))
            x = self.norm2(x + self._mha_block(x, memory, memory_mask, memory_key_padding_mask, memory_is_causal))
            x = self.norm3(x + self._ff_block(x))
        return x

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal=False):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, is_causal=is_causal,
                           need_weights=False)[0]
        return self.dropout1(x)

    def _mha_block(self, x, mem, attn_mask, key_padding_mask, is_causal=False):
        x = self.multihead_attn(x, mem, mem, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                                is_causal=is_causal, need_weights=False)[0]
        return self.dropout2(x)

    def _ff_block(self, x):
        return self.dropout3(self.linear2(self.dropout(self.activation(self.linear1(x)))))


def _clones(module, n: int) -> ModuleList:
    """``n`` deep copies of ``module`` (torch's ``_get_clones``: equal initial weights)."""
    return ModuleList([copy.deepcopy(module) for _ in range(n)])


class TransformerEncoder(Module):
    """``torch.nn.TransformerEncoder(encoder_layer, num_layers, norm=None, enable_nested_tensor=True,
    mask_check=True)``: ``layers.0``... are deep copies of ``encoder_layer``, as torch's."""

    def __init__(self, encoder_layer, num_layers: int, norm=None, enable_nested_tensor: bool = True,
                 mask_check: bool = True):
        super().__init__()
        self.layers = _clones(encoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm
        self.enable_nested_tensor = enable_nested_tensor
        self.mask_check = mask_check

    def execute(self, src, mask=None, src_key_padding_mask=None, is_causal=None):
        out = src
        for mod in self.layers:
            out = mod(out, src_mask=mask, is_causal=bool(is_causal), src_key_padding_mask=src_key_padding_mask)
        if self.norm is not None:
            out = self.norm(out)
        return out


class TransformerDecoder(Module):
    """``torch.nn.TransformerDecoder(decoder_layer, num_layers, norm=None)``."""

    def __init__(self, decoder_layer, num_layers: int, norm=None):
        super().__init__()
        self.layers = _clones(decoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm

    def execute(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=None, memory_is_causal: bool = False):
        out = tgt
        for mod in self.layers:
            out = mod(out, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                      tgt_key_padding_mask=tgt_key_padding_mask, memory_key_padding_mask=memory_key_padding_mask,
                      tgt_is_causal=bool(tgt_is_causal), memory_is_causal=memory_is_causal)
        if self.norm is not None:
            out = self.norm(out)
        return out


class Transformer(Module):
    """``torch.nn.Transformer(d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6,
    dim_feedforward=2048, dropout=0.1, activation=relu, custom_encoder=None, custom_decoder=None,
    layer_norm_eps=1e-5, batch_first=False, norm_first=False, bias=True)``; every weight matrix
    re-drawn with Xavier-uniform, as torch's ``_reset_parameters``."""

    def __init__(self, d_model: int = 512, nhead: int = 8, num_encoder_layers: int = 6, num_decoder_layers: int = 6,
                 dim_feedforward: int = 2048, dropout: float = 0.1, activation: Union[str, Callable] = "relu",
                 custom_encoder=None, custom_decoder=None, layer_norm_eps: float = 1e-5, batch_first: bool = False,
                 norm_first: bool = False, bias: bool = True, device=None, dtype=None):
        super().__init__()
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            layer = TransformerEncoderLayer(d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
                                            batch_first, norm_first, bias)
            self.encoder = TransformerEncoder(layer, num_encoder_layers, LayerNorm(d_model, eps=layer_norm_eps,
                                                                                   bias=bias))
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            layer = TransformerDecoderLayer(d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
                                            batch_first, norm_first, bias)
            self.decoder = TransformerDecoder(layer, num_decoder_layers, LayerNorm(d_model, eps=layer_norm_eps,
                                                                                   bias=bias))
        self.d_model, self.nhead, self.batch_first = d_model, nhead, batch_first
        for p in self.parameters():
            if p.ndim > 1:
                fan_out, fan_in = int(p.shape[0]), int(np.prod(p.shape[1:]))
                p.assign(_xavier_uniform(tuple(p.shape), fan_in, fan_out * int(np.prod(p.shape[2:]))))

    def execute(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None, src_key_padding_mask=None,
                tgt_key_padding_mask=None, memory_key_padding_mask=None, src_is_causal=None, tgt_is_causal=None,
                memory_is_causal: bool = False):
        batched = src.ndim == 3
        if not self.batch_first and int(src.shape[1]) != int(tgt.shape[1]) and batched:
            raise RuntimeError("the batch number of src and tgt must be equal")
        if self.batch_first and int(src.shape[0]) != int(tgt.shape[0]) and batched:
            raise RuntimeError("the batch number of src and tgt must be equal")
        if int(src.shape[-1]) != self.d_model or int(tgt.shape[-1]) != self.d_model:
            raise RuntimeError("the feature number of src and tgt must be equal to d_model")
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask, is_causal=src_is_causal)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask, tgt_is_causal=tgt_is_causal,
                            memory_is_causal=memory_is_causal)

    generate_square_subsequent_mask = staticmethod(generate_square_subsequent_mask)
