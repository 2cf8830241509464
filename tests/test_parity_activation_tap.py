"""``ActivationTap`` records each submodule output as it was when the call returned, as the torch
side (``torch_dump.ActivationRecorder``) copies it.  StyleGAN2-ADA's resnet discriminator blocks
run ``y = self.skip(x, ...); x = self.conv1(self.conv0(x)); y.add_(x)``: converted, ``add_``
assigns the new value to the same Var, and a tap that read the Var afterwards reported the
skip output as diverging (2.18 abs) on a model whose outputs matched."""
import numpy as np

import shims
import jittor as jt
from jittor import nn
from porter.prove.common import ROOT_NAME
from porter.prove.divergence import ActivationTap


class SkipBlock(shims.nn.Module):
    """``y = skip(x); y.add_(conv(x))``, as StyleGAN2-ADA's ``DiscriminatorBlock`` (resnet)."""

    def __init__(self):
        super().__init__()
        self.skip = nn.Linear(3, 3, bias=False)
        self.conv = nn.Linear(3, 3)

    def forward(self, x):
        y = self.skip(x)
        y.add_(self.conv(x))
        return y


def test_outputs_are_recorded_before_a_later_in_place_op():
    block = SkipBlock()
    x = jt.array(np.arange(6, dtype=np.float32).reshape(2, 3))
    skip_alone = block.skip(x).numpy()
    with ActivationTap(block) as tap:
        out = block(x)
    acts, order = tap.arrays()
    assert order == ["skip@0", "conv@0", f"{ROOT_NAME}@0"], order
    np.testing.assert_array_equal(acts["skip@0"], skip_alone)
    np.testing.assert_allclose(acts[order[-1]], out.numpy())
    assert not np.allclose(acts["skip@0"], out.numpy())
    # the recorded Var itself is what later ops changed: gradients are taken with respect to it
    np.testing.assert_allclose(tap.records[0][1].numpy(), out.numpy())
