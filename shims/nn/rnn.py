"""Recurrent layers with torch's parameter names, layout, argument order and return values.

``torch.nn.RNN``/``LSTM``/``GRU`` and their cells.  Jittor 1.3.11 has classes of these names,
but its ``LSTM(batch_first=True)`` returns sequence-first output (silently), and its argument
handling differs; these are written from torch's equations instead:

* parameters ``weight_ih_l{k}[_reverse]`` (``(G*hidden, input)``), ``weight_hh_l{k}``,
  ``bias_ih_l{k}``, ``bias_hh_l{k}`` and, with ``proj_size``, ``weight_hr_l{k}``, in torch's
  ``state_dict`` order, so a torch checkpoint loads by key; gates stacked as torch stacks them
  (LSTM ``i, f, g, o``; GRU ``r, z, n``); every weight drawn from ``U(-1/sqrt(hidden),
  1/sqrt(hidden))`` as torch does;
* ``batch_first`` for input and output (never for the hidden state, as in torch),
  ``bidirectional``, ``num_layers``, ``dropout`` between layers (training only), unbatched
  inputs, initial states (``None`` = zeros), ``proj_size`` (LSTM);
* ``flatten_parameters()`` is accepted (cuDNN weight packing; nothing to do here);
* a :class:`shims.nn.PackedSequence` input (``pack_padded_sequence``) runs each sequence to its
  own length: states stop changing past a sequence's end, outputs there are zero, ``h_n`` is
  each sequence's state at its last element.

Each time step is two matmuls (the input projection of all steps is one matmul up front).
"""
from __future__ import annotations

import math
from typing import List, NamedTuple, Optional, Sequence, Tuple

import numpy as np

import jittor as jt

from .module import Module

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell",
           "PackedSequence", "pack_padded_sequence", "pad_packed_sequence", "pad_sequence",
           "pack_sequence", "unpad_sequence", "unpack_sequence"]

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


def _uniform(shape, k: float) -> jt.Var:
    return jt.init.uniform(tuple(shape), "float32", -k, k)


def _swap01(x: jt.Var) -> jt.Var:
    return x.permute(1, 0, *range(2, x.ndim))


def _linear(x: jt.Var, w: jt.Var, b: Optional[jt.Var]) -> jt.Var:
    y = jt.matmul(x, w.transpose(1, 0))
    return y if b is None else y + b


# -- packed sequences ------------------------------------------------------------------------

class PackedSequence(NamedTuple):
    """``torch.nn.utils.rnn.PackedSequence``: ``data`` holds the steps of all sequences, time
    major, each step's batch entries in decreasing-length order (torch's layout);
    ``batch_sizes`` the number of sequences alive at each step; ``sorted_indices`` /
    ``unsorted_indices`` the permutation from the caller's batch order and back (None when the
    batch was given sorted)."""

    data: jt.Var
    batch_sizes: jt.Var
    sorted_indices: Optional[jt.Var] = None
    unsorted_indices: Optional[jt.Var] = None


def _lengths_list(lengths) -> List[int]:
    if isinstance(lengths, jt.Var):
        return [int(v) for v in lengths.numpy().reshape(-1)]
    return [int(v) for v in np.asarray(lengths).reshape(-1)]


def pack_padded_sequence(input: jt.Var, lengths, batch_first: bool = False,
                         enforce_sorted: bool = True) -> PackedSequence:
    """``torch.nn.utils.rnn.pack_padded_sequence``."""
    lens = _lengths_list(lengths)
    if enforce_sorted:
        if any(a < b for a, b in zip(lens, lens[1:])):
            raise RuntimeError("`lengths` array must be sorted in decreasing order when "
                               "`enforce_sorted` is True. You can pass `enforce_sorted=False` "
                               "to pack_padded_sequence and/or pack_sequence to sidestep this "
                               "requirement if you do not need ONNX exportability.")
        order = list(range(len(lens)))
        sorted_idx = None
    else:
        order = sorted(range(len(lens)), key=lambda i: -lens[i])  # stable, as torch.sort(descending)
        sorted_idx = order
    if min(lens) <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element "
                           "in 'lengths' that is <= 0")
    x = _swap01(input) if batch_first else input  # (T, B, *)
    slens = [lens[i] for i in order]
    steps, sizes = [], []
    for t in range(slens[0]):
        alive = sum(1 for n in slens if n > t)
        sizes.append(alive)
        steps.append(x[t][jt.array(np.array(order[:alive], np.int32))])
    data = jt.concat(steps, 0)
    batch_sizes = jt.array(np.array(sizes, np.int64))
    if sorted_idx is None:
        return PackedSequence(data, batch_sizes, None, None)
    unsorted = np.empty(len(order), np.int64)
    unsorted[np.array(order)] = np.arange(len(order))
    return PackedSequence(data, batch_sizes, jt.array(np.array(order, np.int64)), jt.array(unsorted))


def pad_packed_sequence(sequence: PackedSequence, batch_first: bool = False, padding_value: float = 0.0,
                        total_length: Optional[int] = None) -> Tuple[jt.Var, jt.Var]:
    """``torch.nn.utils.rnn.pad_packed_sequence``: (padded, lengths) in the caller's batch order."""
    sizes = _lengths_list(sequence.batch_sizes)
    B, T = sizes[0], len(sizes)
    if total_length is not None:
        if total_length < T:
            raise ValueError(f"Expected total_length to be at least the length of the longest "
                             f"sequence in input, but got total_length={total_length} and max "
                             f"sequence length being {T}")
        T_out = total_length
    else:
        T_out = T
    feat = tuple(sequence.data.shape[1:])
    rows, offset = [], 0
    for t in range(T_out):
        n = sizes[t] if t < T else 0
        step = sequence.data[offset:offset + n] if n else None
        offset += n
        if n < B:
            pad = jt.full((B - n,) + feat, padding_value, dtype=sequence.data.dtype)
            step = pad if step is None else jt.concat([step, pad], 0)
        rows.append(step)
    out = jt.stack(rows, 0)  # (T, B, *) in sorted order
    lengths = np.array([sum(1 for s in sizes if s > b) for b in range(B)], np.int64)
    if sequence.unsorted_indices is not None:
        idx = sequence.unsorted_indices
        out = out[:, idx]
        lengths = lengths[idx.numpy()]
    if batch_first:
        out = _swap01(out)
    return out, jt.array(lengths)


def pad_sequence(sequences: Sequence[jt.Var], batch_first: bool = False, padding_value: float = 0.0,
                 padding_side: str = "right") -> jt.Var:
    """``torch.nn.utils.rnn.pad_sequence``: a list of (L_i, *) tensors -> (L, B, *) or (B, L, *)."""
    if padding_side not in ("left", "right"):
        raise ValueError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    seqs = list(sequences)
    L = max(int(s.shape[0]) for s in seqs)
    out = []
    for s in seqs:
        n = int(s.shape[0])
        if n < L:
            pad = jt.full((L - n,) + tuple(s.shape[1:]), padding_value, dtype=s.dtype)
            s = jt.concat([s, pad] if padding_side == "right" else [pad, s], 0)
        out.append(s)
    return jt.stack(out, 0 if batch_first else 1)


def pack_sequence(sequences: Sequence[jt.Var], enforce_sorted: bool = True) -> PackedSequence:
    """``torch.nn.utils.rnn.pack_sequence``."""
    lengths = [int(s.shape[0]) for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpad_sequence(padded_sequences: jt.Var, lengths, batch_first: bool = False) -> List[jt.Var]:
    """``torch.nn.utils.rnn.unpad_sequence``."""
    x = padded_sequences if batch_first else _swap01(padded_sequences)
    return [x[i, :n] for i, n in enumerate(_lengths_list(lengths))]


def unpack_sequence(packed_sequences: PackedSequence) -> List[jt.Var]:
    """``torch.nn.utils.rnn.unpack_sequence``."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)


# -- cell equations --------------------------------------------------------------------------

def _lstm_step(xp, h, c, w_hh, b_hh, w_hr):
    gates = xp + _linear(h, w_hh, b_hh)
    H = int(c.shape[-1])
    i = gates[..., :H].sigmoid()
    f = gates[..., H:2 * H].sigmoid()
    g = gates[..., 2 * H:3 * H].tanh()
    o = gates[..., 3 * H:].sigmoid()
    c = f * c + i * g
    h = o * c.tanh()
    if w_hr is not None:
        h = jt.matmul(h, w_hr.transpose(1, 0))
    return h, c


def _gru_step(xp, h, w_hh, b_hh):
    hp = _linear(h, w_hh, b_hh)
    H = int(h.shape[-1])
    r = (xp[..., :H] + hp[..., :H]).sigmoid()
    z = (xp[..., H:2 * H] + hp[..., H:2 * H]).sigmoid()
    n = (xp[..., 2 * H:] + r * hp[..., 2 * H:]).tanh()
    return (1 - z) * n + z * h


def _rnn_step(xp, h, w_hh, b_hh, relu: bool):
    pre = xp + _linear(h, w_hh, b_hh)
    return jt.maximum(pre, jt.zeros_like(pre)) if relu else pre.tanh()


# -- multi-layer recurrent modules -----------------------------------------------------------

class RNNBase(Module):
    """``torch.nn.RNNBase``: the parameters and the layer/direction loop of RNN, LSTM and GRU."""

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1,
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0,
                 bidirectional: bool = False, proj_size: int = 0, device=None, dtype=None):
        super().__init__()
        if mode not in _GATES:
            raise ValueError(f"Unrecognized RNN mode: {mode}")
        if not isinstance(dropout, (int, float)) or not 0 <= dropout <= 1 or isinstance(dropout, bool):
            raise ValueError("dropout should be a number in range [0, 1] representing the probability "
                             "of an element being zeroed")
        if not isinstance(hidden_size, int) or hidden_size <= 0:
            raise ValueError("hidden_size must be a positive integer")
        if not isinstance(num_layers, int) or num_layers <= 0:
            raise ValueError("num_layers must be a positive integer")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if proj_size and mode != "LSTM":
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        self.mode = mode
        self.input_size, self.hidden_size, self.num_layers = input_size, hidden_size, num_layers
        self.bias, self.batch_first, self.dropout = bias, batch_first, float(dropout)
        self.bidirectional, self.proj_size = bidirectional, proj_size
        gates = _GATES[mode] * hidden_size
        real_hidden = proj_size if proj_size > 0 else hidden_size
        dirs = 2 if bidirectional else 1
        k = 1.0 / math.sqrt(hidden_size)
        self._flat_weights_names: List[str] = []
        self._all_weights: List[List[str]] = []
        for layer in range(num_layers):
            for d in range(dirs):
                in_size = input_size if layer == 0 else real_hidden * dirs
                sfx = f"_l{layer}" + ("_reverse" if d == 1 else "")
                names = [f"weight_ih{sfx}", f"weight_hh{sfx}"]
                setattr(self, names[0], _uniform((gates, in_size), k))
                setattr(self, names[1], _uniform((gates, real_hidden), k))
                if bias:
                    names += [f"bias_ih{sfx}", f"bias_hh{sfx}"]
                    setattr(self, names[2], _uniform((gates,), k))
                    setattr(self, names[3], _uniform((gates,), k))
                if proj_size > 0:
                    names.append(f"weight_hr{sfx}")
                    setattr(self, names[-1], _uniform((proj_size, hidden_size), k))
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)

    # -- torch's bookkeeping API ----------------------------------------------------------
    def flatten_parameters(self) -> None:
        """cuDNN packs the weights into one buffer; Jittor has nothing to pack (a no-op)."""

    @property
    def all_weights(self) -> List[List[jt.Var]]:
        """The parameters per layer and direction, in torch's order."""
        return [[getattr(self, n) for n in names] for names in self._all_weights]

    @property
    def _flat_weights(self) -> List[jt.Var]:
        return [getattr(self, n) for n in self._flat_weights_names]

    def reset_parameters(self) -> None:
        """torch's ``reset_parameters``: every weight from ``U(-1/sqrt(hidden), 1/sqrt(hidden))``."""
        k = 1.0 / math.sqrt(self.hidden_size)
        for n in self._flat_weights_names:
            w = getattr(self, n)
            w.assign(_uniform(tuple(w.shape), k))

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if not self.bias:
            s += ", bias=False"
        if self.batch_first:
            s += ", batch_first=True"
        if self.dropout:
            s += f", dropout={self.dropout}"
        if self.bidirectional:
            s += ", bidirectional=True"
        return s

    # -- forward --------------------------------------------------------------------------
    def _weights(self, layer: int, d: int):
        sfx = f"_l{layer}" + ("_reverse" if d == 1 else "")
        get = self.__dict__.get
        return (get(f"weight_ih{sfx}"), get(f"weight_hh{sfx}"), get(f"bias_ih{sfx}"),
                get(f"bias_hh{sfx}"), get(f"weight_hr{sfx}"))

    def _step(self, xp, state, w_hh, b_hh, w_hr):
        if self.mode == "LSTM":
            return _lstm_step(xp, state[0], state[1], w_hh, b_hh, w_hr)
        if self.mode == "GRU":
            return _gru_step(xp, state, w_hh, b_hh)
        return _rnn_step(xp, state, w_hh, b_hh, self.mode == "RNN_RELU")

    def _run_direction(self, x, state, layer: int, d: int, mask):
        """One layer, one direction over ``x`` (T, B, F): (outputs (T, B, H), final state)."""
        w_ih, w_hh, b_ih, b_hh, w_hr = self._weights(layer, d)
        T = int(x.shape[0])
        xp = _linear(x, w_ih, b_ih)  # every step's input projection in one matmul
        outs = [None] * T
        for t in (range(T - 1, -1, -1) if d == 1 else range(T)):
            new = self._step(xp[t], state, w_hh, b_hh, w_hr)
            if mask is not None:  # packed input: sequences that ended keep their state
                m = mask[t]
                if self.mode == "LSTM":
                    new = (jt.ternary(m, new[0], state[0]), jt.ternary(m, new[1], state[1]))
                else:
                    new = jt.ternary(m, new, state)
                h_out = new[0] if self.mode == "LSTM" else new
                outs[t] = jt.ternary(m, h_out, jt.zeros_like(h_out))
            else:
                outs[t] = new[0] if self.mode == "LSTM" else new
            state = new
        return jt.stack(outs, 0), state

    def _check_input(self, x: jt.Var, batched: bool) -> None:
        want = 3 if batched else 2
        if x.ndim != want:
            raise ValueError(f"{type(self).__name__}: Expected input to be 2D or 3D, got {x.ndim}D instead")
        if int(x.shape[-1]) != self.input_size:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, "
                               f"got {int(x.shape[-1])}")

    def execute(self, input, hx=None):
        packed = isinstance(input, PackedSequence)
        mask = None
        if packed:
            padded, lengths = pad_packed_sequence(input)  # (T, B, F), caller's order
            x = padded
            lens = lengths.numpy()
            T = int(x.shape[0])
            mask = jt.array((np.arange(T)[:, None] < lens[None, :])[:, :, None])  # (T, B, 1)
            batched = True
        else:
            batched = input.ndim == 3
            self._check_input(input, batched)
            x = input if batched else input.unsqueeze(1)
            if batched and self.batch_first:
                x = x.permute(1, 0, 2)
        B = int(x.shape[1])
        dirs = 2 if self.bidirectional else 1
        real_hidden = self.proj_size if self.proj_size > 0 else self.hidden_size
        h0, c0 = self._initial_state(hx, B, dirs, real_hidden, x.dtype, batched)
        hs, cs = [], []
        layer_in = x
        for layer in range(self.num_layers):
            outs = []
            for d in range(dirs):
                i = layer * dirs + d
                state = (h0[i], c0[i]) if self.mode == "LSTM" else h0[i]
                out, state = self._run_direction(layer_in, state, layer, d, mask)
                outs.append(out)
                if self.mode == "LSTM":
                    hs.append(state[0])
                    cs.append(state[1])
                else:
                    hs.append(state)
            layer_in = outs[0] if dirs == 1 else jt.concat(outs, -1)
            if self.dropout and self.is_training() and layer < self.num_layers - 1:
                keep = (jt.rand(tuple(layer_in.shape)) >= self.dropout).cast(layer_in.dtype)
                layer_in = layer_in * keep / (1.0 - self.dropout) if self.dropout < 1 else layer_in * 0
        output = layer_in
        h_n = jt.stack(hs, 0)
        c_n = jt.stack(cs, 0) if self.mode == "LSTM" else None
        if packed:
            output = self._repack(output, input)
            if input.unsorted_indices is not None:
                pass  # states are already in the caller's order (computed on the padded batch)
        elif not batched:
            output = output.squeeze(1)
            h_n = h_n.squeeze(1)
            c_n = c_n.squeeze(1) if c_n is not None else None
        elif self.batch_first:
            output = output.permute(1, 0, 2)
        return output, ((h_n, c_n) if self.mode == "LSTM" else h_n)

    @staticmethod
    def _repack(output: jt.Var, like: PackedSequence) -> PackedSequence:
        """The padded output (T, B, H), caller's order, as a PackedSequence laid out like ``like``."""
        sizes = _lengths_list(like.batch_sizes)
        order = (like.sorted_indices.numpy().tolist() if like.sorted_indices is not None
                 else list(range(sizes[0])))
        steps = [output[t][jt.array(np.array(order[:n], np.int32))] for t, n in enumerate(sizes)]
        return PackedSequence(jt.concat(steps, 0), like.batch_sizes, like.sorted_indices, like.unsorted_indices)

    def _initial_state(self, hx, B, dirs, real_hidden, dtype, batched):
        n = self.num_layers * dirs
        if hx is None:
            h0 = jt.zeros((n, B, real_hidden), dtype=dtype)
            c0 = jt.zeros((n, B, self.hidden_size), dtype=dtype) if self.mode == "LSTM" else None
            return h0, c0
        if self.mode == "LSTM":
            if not isinstance(hx, (tuple, list)) or len(hx) != 2:
                raise TypeError("LSTM: hx must be a tuple (h_0, c_0)")
            h0, c0 = hx
        else:
            h0, c0 = hx, None
        if not batched:
            if h0.ndim != 2:
                raise RuntimeError(f"For unbatched 2-D input, hx should also be 2-D but got {h0.ndim}-D tensor")
            h0 = h0.unsqueeze(1)
            c0 = c0.unsqueeze(1) if c0 is not None else None
        elif h0.ndim != 3:
            raise RuntimeError(f"For batched 3-D input, hx should also be 3-D but got {h0.ndim}-D tensor")
        want_h = (n, B, real_hidden)
        if tuple(h0.shape) != want_h:
            raise RuntimeError(f"Expected hidden size {want_h}, got {tuple(h0.shape)}")
        if c0 is not None and tuple(c0.shape) != (n, B, self.hidden_size):
            raise RuntimeError(f"Expected hidden size {(n, B, self.hidden_size)}, got {tuple(c0.shape)}")
        return h0, c0


class RNN(RNNBase):
    """``torch.nn.RNN(input_size, hidden_size, num_layers=1, nonlinearity='tanh', bias=True,
    batch_first=False, dropout=0.0, bidirectional=False)``: returns ``(output, h_n)``."""

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            nonlinearity = args[3]
            args = args[:3] + args[4:]
            kwargs.pop("nonlinearity", None)
        else:
            nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'.")
        self.nonlinearity = nonlinearity
        super().__init__("RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU", *args, **kwargs)


class LSTM(RNNBase):
    """``torch.nn.LSTM(input_size, hidden_size, num_layers=1, bias=True, batch_first=False,
    dropout=0.0, bidirectional=False, proj_size=0)``: returns ``(output, (h_n, c_n))``."""

    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)


class GRU(RNNBase):
    """``torch.nn.GRU(input_size, hidden_size, num_layers=1, bias=True, batch_first=False,
    dropout=0.0, bidirectional=False)``: returns ``(output, h_n)``."""

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)


# -- cells -----------------------------------------------------------------------------------

class RNNCellBase(Module):
    """``torch.nn.RNNCellBase``: ``weight_ih`` (G*hidden, input), ``weight_hh``, ``bias_ih``,
    ``bias_hh``, all from ``U(-1/sqrt(hidden), 1/sqrt(hidden))``."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool, num_chunks: int,
                 device=None, dtype=None):
        super().__init__()
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        k = 1.0 / math.sqrt(hidden_size)
        self.weight_ih = _uniform((num_chunks * hidden_size, input_size), k)
        self.weight_hh = _uniform((num_chunks * hidden_size, hidden_size), k)
        if bias:
            self.bias_ih = _uniform((num_chunks * hidden_size,), k)
            self.bias_hh = _uniform((num_chunks * hidden_size,), k)
        else:
            self.bias_ih = None
            self.bias_hh = None

    def reset_parameters(self) -> None:
        """torch's ``reset_parameters``."""
        k = 1.0 / math.sqrt(self.hidden_size)
        for w in self.parameters():
            w.assign(_uniform(tuple(w.shape), k))

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if not self.bias:
            s += ", bias=False"
        return s

    def _prepare(self, input: jt.Var, hx, n_states: int):
        if input.ndim not in (1, 2):
            raise ValueError(f"{type(self).__name__}: Expected input to be 1D or 2D, got {input.ndim}D instead")
        batched = input.ndim == 2
        x = input if batched else input.unsqueeze(0)
        B = int(x.shape[0])
        if hx is None:
            states = [jt.zeros((B, self.hidden_size), dtype=x.dtype) for _ in range(n_states)]
        else:
            states = list(hx) if n_states == 2 else [hx]
            if not batched:
                states = [s.unsqueeze(0) for s in states]
        return x, states, batched


class RNNCell(RNNCellBase):
    """``torch.nn.RNNCell(input_size, hidden_size, bias=True, nonlinearity='tanh')``."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, nonlinearity: str = "tanh",
                 device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 1)
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity: {nonlinearity}")
        self.nonlinearity = nonlinearity

    def execute(self, input, hx=None):
        x, (h,), batched = self._prepare(input, hx, 1)
        h = _rnn_step(_linear(x, self.weight_ih, self.bias_ih), h, self.weight_hh, self.bias_hh,
                      self.nonlinearity == "relu")
        return h if batched else h.squeeze(0)


class LSTMCell(RNNCellBase):
    """``torch.nn.LSTMCell(input_size, hidden_size, bias=True)``: returns ``(h_1, c_1)``."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 4)

    def execute(self, input, hx=None):
        x, (h, c), batched = self._prepare(input, hx, 2)
        h, c = _lstm_step(_linear(x, self.weight_ih, self.bias_ih), h, c, self.weight_hh, self.bias_hh, None)
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    """``torch.nn.GRUCell(input_size, hidden_size, bias=True)``."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 3)

    def execute(self, input, hx=None):
        x, (h,), batched = self._prepare(input, hx, 1)
        h = _gru_step(_linear(x, self.weight_ih, self.bias_ih), h, self.weight_hh, self.bias_hh)
        return h if batched else h.squeeze(0)
