"""Fused bias + activation + gain + clamp: upstream ``torch_utils/ops/bias_act.py``'s reference
implementation (``_bias_act_ref``)."""
import numpy as np
import torch

from .misc import EasyDict

activation_funcs = {
    'linear':   EasyDict(func=lambda x, **_:        x,                                        def_alpha=0,   def_gain=1,          ref='',  has_2nd_grad=False),
    'relu':     EasyDict(func=lambda x, **_:        torch.nn.functional.relu(x),              def_alpha=0,   def_gain=np.sqrt(2), ref='y', has_2nd_grad=False),
    'lrelu':    EasyDict(func=lambda x, alpha, **_: torch.nn.functional.leaky_relu(x, alpha), def_alpha=0.2, def_gain=np.sqrt(2), ref='y', has_2nd_grad=False),
    'tanh':     EasyDict(func=lambda x, **_:        torch.tanh(x),                            def_alpha=0,   def_gain=1,          ref='y', has_2nd_grad=True),
    'sigmoid':  EasyDict(func=lambda x, **_:        torch.sigmoid(x),                         def_alpha=0,   def_gain=1,          ref='y', has_2nd_grad=True),
    'softplus': EasyDict(func=lambda x, **_:        torch.nn.functional.softplus(x),          def_alpha=0,   def_gain=1,          ref='y', has_2nd_grad=True),
}


def bias_act(x, b=None, dim=1, act='linear', alpha=None, gain=None, clamp=None, impl='ref'):
    r"""Fused bias and activation function: ``clamp(act(x + b) * gain)``.

    Args:
        x:      Input activation tensor. Can be of any shape.
        b:      Bias vector, or `None` to disable. Must be a 1D tensor of the same type
                as `x`. The shape must be known, and it must match the dimension of `x`
                corresponding to `dim`.
        dim:    The dimension in `x` corresponding to the elements of `b`.
        act:    Name of the activation function to evaluate, or `"linear"` to disable.
        alpha:  Shape parameter for the activation function, or `None` to use the default.
        gain:   Scaling factor for the output tensor, or `None` to use default.
        clamp:  Clamp the output values to `[-clamp, +clamp]`, or `None` to disable.
        impl:   Only `'ref'` here (upstream's CUDA plugin is not ported).
    """
    assert isinstance(x, torch.Tensor)
    assert impl == 'ref'
    return _bias_act_ref(x=x, b=b, dim=dim, act=act, alpha=alpha, gain=gain, clamp=clamp)


def _bias_act_ref(x, b=None, dim=1, act='linear', alpha=None, gain=None, clamp=None):
    """Slow reference implementation of `bias_act()` using standard TensorFlow ops."""
    assert isinstance(x, torch.Tensor)
    assert clamp is None or clamp >= 0
    spec = activation_funcs[act]
    alpha = float(alpha if alpha is not None else spec.def_alpha)
    gain = float(gain if gain is not None else spec.def_gain)
    clamp = float(clamp if clamp is not None else -1)

    # Add bias.
    if b is not None:
        assert isinstance(b, torch.Tensor) and b.ndim == 1
        assert 0 <= dim < x.ndim
        assert b.shape[0] == x.shape[dim]
        x = x + b.reshape([-1 if i == dim else 1 for i in range(x.ndim)])

    # Evaluate activation function.
    alpha = float(alpha)
    x = spec.func(x, alpha=alpha)

    # Scale by gain.
    gain = float(gain)
    if gain != 1:
        x = x * gain

    # Clamp.
    if clamp >= 0:
        x = x.clamp(-clamp, clamp)
    return x
