"""Public ``shims`` names without a torch case of their own, checked against numpy references."""
import numpy as np

import shims  # (Jittor's settings, before Jittor is imported)
import jittor as jt
from jittor import nn as jnn
from shims import nn
from shims.data import DataLoader, Subset, TensorDataset

RNG = np.random.default_rng(5)


def test_remove_weight_norm_folds_back_a_plain_weight():
    conv = nn.weight_norm(jnn.Conv2d(2, 3, 3))
    g, v = conv.weight_g.numpy(), conv.weight_v.numpy()
    x = jt.array(RNG.standard_normal((1, 2, 5, 5)).astype(np.float32))
    before = conv(x).numpy()
    nn.remove_weight_norm(conv)
    assert list(conv.state_dict()) == ["bias", "weight"]
    want = v * g / np.sqrt((v.astype(np.float64) ** 2).sum(axis=(1, 2, 3), keepdims=True))
    np.testing.assert_allclose(conv.weight.numpy(), want, rtol=1e-6)
    np.testing.assert_allclose(conv(x).numpy(), before, rtol=1e-5, atol=1e-6)


def test_weight_norm_weight_is_readable_between_calls():
    """torch leaves ``conv.weight`` (g * v / |v|) on the module after ``weight_norm``; TCN calls
    ``conv.weight.normal_(0, 0.01)`` on it in ``init_weights`` (no effect on g and v)."""
    conv = nn.weight_norm(jnn.Conv1d(2, 3, 2))
    v, g = conv.weight_v.numpy(), conv.weight_g.numpy()
    want = v * g / np.sqrt((v.astype(np.float64) ** 2).sum(axis=(1, 2), keepdims=True))
    np.testing.assert_allclose(conv.weight.numpy(), want, rtol=1e-6)
    conv.weight.normal_(0, 0.01)
    np.testing.assert_array_equal(conv.weight_v.numpy(), v)
    x = jt.array(RNG.standard_normal((1, 2, 6)).astype(np.float32))
    assert conv(x).shape == [1, 3, 5] and "weight" not in conv.state_dict()
    assert type(conv).__name__ == "Conv1d" and isinstance(conv, jnn.Conv1d)
    nn.remove_weight_norm(conv)
    assert type(conv) is jnn.Conv1d and sorted(conv.state_dict()) == ["bias", "weight"]


def test_replication_pad_matches_numpy_edge_pad():
    x = RNG.standard_normal((1, 2, 4, 5)).astype(np.float32)
    got = nn.ReplicationPad2d((1, 2, 0, 3))(jt.array(x)).numpy()
    np.testing.assert_array_equal(got, np.pad(x, ((0, 0), (0, 0), (0, 3), (1, 2)), mode="edge"))


def test_batchnorm1d_and_functional_norms_match_numpy():
    x = RNG.standard_normal((6, 3, 4)).astype(np.float32)
    bn = nn.BatchNorm1d(3)
    y = bn(jt.array(x)).numpy()
    mean = x.mean(axis=(0, 2), keepdims=True, dtype=np.float64)
    var = x.var(axis=(0, 2), keepdims=True, dtype=np.float64)
    np.testing.assert_allclose(y, (x - mean) / np.sqrt(var + 1e-5), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(bn.running_var.numpy(), 0.9 + 0.1 * var.reshape(-1) * 24 / 23, rtol=1e-6)
    inorm = nn.InstanceNorm1d(3)(jt.array(x)).numpy()
    m, v = x.mean(axis=2, keepdims=True, dtype=np.float64), x.var(axis=2, keepdims=True, dtype=np.float64)
    np.testing.assert_allclose(inorm, (x - m) / np.sqrt(v + 1e-5), rtol=1e-5, atol=1e-5)


def test_tensor_dataset_and_subset_through_the_loader():
    a = np.arange(12, dtype=np.float32).reshape(6, 2)
    b = np.arange(6)
    ds = Subset(TensorDataset(a, b), [5, 0, 3])
    batches = list(DataLoader(ds, batch_size=2))
    np.testing.assert_array_equal(batches[0][0].numpy(), a[[5, 0]])
    np.testing.assert_array_equal(batches[1][1].numpy(), [3])


def test_embedding_layer_settings_reach_the_functional_form():
    """awd-lstm-lm: ``F.embedding(words, w, embed.padding_idx, embed.max_norm, embed.norm_type,
    embed.scale_grad_by_freq, embed.sparse)`` on Jittor's Embedding (torch's attribute defaults)."""
    embed = jnn.Embedding(6, 3)
    words = jt.array(np.array([[0, 5], [2, 2]], dtype=np.int32))
    out = nn.embedding(words, embed.weight, embed.padding_idx, embed.max_norm, embed.norm_type,
                       embed.scale_grad_by_freq, embed.sparse)
    np.testing.assert_array_equal(out.numpy(), embed.weight.numpy()[words.numpy()])
    try:
        nn.embedding(words, embed.weight, max_norm=1.0)
    except shims.UnportedError as e:
        assert "max_norm" in str(e)
    else:
        raise AssertionError("max_norm= must raise")
