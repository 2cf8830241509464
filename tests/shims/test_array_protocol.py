"""numpy converting a Var with a dtype (``shims.array_protocol``).

Jittor's ``Var.__array__`` took no argument, so numpy's conversions that pass the target dtype
failed with "Wrong inputs arguments ... help(jt.numpy)". Found by the corpus (torchdiffeq's
``_UncheckedAssign``: ``scratch.data[index] = value``, where Jittor's ``.data`` is a numpy view of
the Var and ``value`` a Var). Torch tensors take the dtype; the values are the same.
"""
import numpy as np

import shims  # noqa: F401  (installs the protocol)
import jittor as jt


def test_asarray_with_dtype_converts_the_values():
    v = jt.array(np.array([1.5, -2.0, 3.25], np.float32))
    out = np.asarray(v, dtype=np.float64)
    assert out.dtype == np.float64
    np.testing.assert_array_equal(out, [1.5, -2.0, 3.25])
    assert np.array(jt.array(np.array([1, 2], np.int32)), dtype=np.float32).tolist() == [1.0, 2.0]


def test_a_var_written_into_a_numpy_view_of_another():
    scratch = jt.zeros(5)
    scratch.data[1:3] = jt.array(np.array([4.0, 5.0], np.float32))  # .data: a numpy view of scratch
    scratch.data[4] = jt.array(np.array([6.0], np.float32))[0]
    np.testing.assert_array_equal(scratch.numpy(), [0.0, 4.0, 5.0, 0.0, 6.0])


def test_plain_asarray_keeps_the_var_dtype():
    assert np.asarray(jt.array(np.array([1, 2], np.int32))).dtype == np.int32
