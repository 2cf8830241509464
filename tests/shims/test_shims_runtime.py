"""Runtime queries of converted code: ``torch.__version__``, ``torch.iinfo``/``finfo`` errors,
``torch.accelerator`` with and without CUDA, the sparse fallback's errors."""
import re
from pathlib import Path

import jittor as jt
import numpy as np
import pytest

import shims
from shims import accelerator, runtime, sparse

ROOT = Path(__file__).resolve().parents[2]


def test_torch_version_is_the_proven_torch_with_jittor_as_local_part():
    pin = re.search(r"^torch==([\w.]+)$", (ROOT / "requirements-torch.txt").read_text(), re.M).group(1)
    assert runtime.TORCH_API_VERSION == pin, "shims.runtime.TORCH_API_VERSION must follow requirements-torch.txt"
    assert runtime.torch_version == f"{pin}+jittor{jt.__version__}"
    # the idioms research code uses to read it
    major, minor = (int(p) for p in runtime.torch_version.split(".")[:2])
    assert (major, minor) == tuple(int(p) for p in pin.split(".")[:2])
    assert runtime.torch_version.split("+")[0] == pin


def test_iinfo_and_finfo_refuse_the_other_kind():
    assert runtime.iinfo(jt.int8).min == -128 and runtime.iinfo(jt.uint8).max == 255
    assert runtime.iinfo(jt.ones(2, dtype="int32").dtype).bits == 32
    with pytest.raises(TypeError, match="not an integer dtype"):
        runtime.iinfo(jt.float32)
    with pytest.raises(TypeError, match="not a floating dtype"):
        runtime.finfo(jt.int32)


@pytest.mark.parametrize("has_cuda", [False, True])
def test_accelerator_follows_jittor_cuda(monkeypatch, has_cuda):
    monkeypatch.setattr(jt, "has_cuda", has_cuda)
    assert accelerator.is_available() is has_cuda
    assert accelerator.device_count() == int(has_cuda)
    assert accelerator.current_device_index() == (0 if has_cuda else -1)
    acc = accelerator.current_accelerator()
    assert (acc == runtime.Device("cuda")) if has_cuda else acc is None


def test_accelerator_synchronize_runs_queued_work():
    x = jt.ones(3) * 2
    accelerator.synchronize()
    np.testing.assert_array_equal(x.numpy(), [2, 2, 2])


def test_sparse_fallback_errors_name_the_problem():
    with pytest.raises(ValueError, match="indices must be 2-D"):
        sparse.sparse_coo_tensor(jt.array([0, 1]), jt.ones(2), (2,))
    with pytest.raises(NotImplementedError, match="reduce='amax'"):
        sparse.mm(jt.ones((2, 2)), jt.ones((2, 2)), reduce="amax")


def test_sparse_empty_and_requires_grad():
    s = sparse.sparse_coo_tensor(np.zeros((2, 0), np.int64), np.zeros(0, np.float32), (2, 3))
    assert s.shape == [2, 3] and s.is_sparse and float(s.abs().sum().item()) == 0.0
    v = jt.array([1.0, 2.0])
    s = sparse.sparse_coo_tensor(jt.array([[0, 0], [1, 1]]), v, (2, 2), requires_grad=True)
    np.testing.assert_array_equal(s.numpy(), [[0, 3], [0, 0]])
    assert s.requires_grad and not shims.sparse.to_dense(s).is_sparse


def test_summary_writer_without_tensorboardx_says_how_to_install(monkeypatch, tmp_path):
    """Without tensorboardX the writer writes scalars itself (shims.tensorboard_events); a method
    it does not write raises ImportError naming the extra to install."""
    import sys

    monkeypatch.setitem(sys.modules, "tensorboardX", None)  # an import of it raises ImportError
    with shims.tensorboard.SummaryWriter(str(tmp_path)) as w:
        w.add_scalar("loss", jt.array([0.5]), 1)
        with pytest.raises(ImportError, match=r"add_histogram needs tensorboardX.*jtport\[tensorboard\]"):
            w.add_histogram("h", jt.zeros(3), 1)
    assert [f.name.startswith("events.out.tfevents.") for f in tmp_path.iterdir()] == [True]
