"""``shims.views``: what a recorded view keeps, and the writes that must not go through (the
matrix of view ops × in-place ops against torch is ``parity_tests/api/cases/views.py``)."""
import numpy as np
import pytest

import shims
import jittor as jt
from shims import views


def test_detach_of_a_graph_node_keeps_no_base():
    """``loss.detach()`` inside a graph records nothing: keeping ``loss`` would keep its graph
    alive (``losses.append(loss.detach())`` every step); a leaf's detach is recorded."""
    w = jt.ones(3).start_grad()
    loss = (w * 2).sum()
    assert views.base_of(loss.detach()) is None
    assert views.base_of(w.detach()) is w
    assert views.base_of(views.detach_view(loss)) is loss


def test_write_through_keeps_requires_grad_under_no_grad():
    w = jt.ones(2, 3).start_grad()
    with shims.no_grad():
        w.view(-1)[:2].multiply_(5.0)
        w[1].assign(jt.zeros(3))
    np.testing.assert_array_equal(w.numpy(), [[5, 5, 1], [0, 0, 0]])
    assert not (w * 2).is_stop_grad()


def test_fancy_index_and_mask_are_copies():
    x = jt.ones(3, 4)
    x[jt.array([0, 2])].multiply_(0.0)
    x[x > 0].assign(jt.zeros(12))
    np.testing.assert_array_equal(x.numpy(), np.ones((3, 4)))


def test_write_into_a_broadcasting_expand_raises_as_torch():
    x = jt.ones(3, 1)
    with pytest.raises(RuntimeError, match="single memory location"):
        x.expand(3, 4).multiply_(2.0)
    x.expand(3, 1).multiply_(2.0)  # no element shared: a view like any other
    np.testing.assert_array_equal(x.numpy(), np.full((3, 1), 2.0))


def test_reshape_of_a_transposed_view_is_a_copy():
    """torch's reshape copies a non-contiguous tensor: no write goes back through it."""
    x = jt.ones(2, 3)
    x.transpose(0, 1).reshape(-1).multiply_(0.0)
    x[:, 1:].reshape(-1).multiply_(0.0)
    x.view(-1).reshape(3, 2).multiply_(4.0)  # contiguous: a view
    np.testing.assert_array_equal(x.numpy(), np.full((2, 3), 4.0))
