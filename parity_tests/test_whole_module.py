"""Whole models through ``torch.save(model)`` / ``torch.load(path, weights_only=False)`` in a
converted project: the same script, run by torch and converted unmodified under Jittor, saves
its model, loads it back only with the explicit trust flag (the default refuses, in torch 2.6+
as in ``shims.load``) and gets the same outputs."""
import subprocess
import sys
import textwrap

import numpy as np

from porter import convert_path
from porter.prove.torchside import torch_python

MODEL = textwrap.dedent("""
    import torch
    import torch.nn as nn


    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(nn.Linear(3, 4), nn.Tanh())
            self.head = nn.Linear(4, 2)
            self.norm = nn.BatchNorm1d(4)

        def forward(self, x):
            return self.head(self.norm(self.body(x)))
""")

TRAIN = textwrap.dedent("""
    import sys
    import numpy as np
    import torch
    from model import Net

    out_dir = sys.argv[1]
    model = Net()
    rng = np.random.default_rng(0)
    state = {k: torch.tensor(rng.standard_normal(tuple(v.shape)).astype(np.float32))
             for k, v in model.state_dict().items() if v.dtype == torch.float32}
    model.load_state_dict(state, strict=False)
    x = torch.tensor(rng.standard_normal((5, 3)).astype(np.float32))
    model.train()
    model(x)  # one training-mode pass: BatchNorm's running statistics move
    model.eval()
    want = model(x)
    path = out_dir + "/model.pt"
    torch.save(model, path)
    try:
        torch.load(path)
        refused = False
    except Exception:
        refused = True
    loaded = torch.load(path, weights_only=False)
    got = loaded(x)
    np.save(out_dir + "/out.npy", np.stack([want.detach().numpy(), got.detach().numpy()]))
    np.save(out_dir + "/flags.npy", np.array([refused, loaded.training, type(loaded).__name__ == "Net"]))
""")


def _run(python, project, out_dir):
    out_dir.mkdir()
    proc = subprocess.run([str(python), "train.py", str(out_dir)], cwd=project, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return np.load(out_dir / "out.npy"), np.load(out_dir / "flags.npy")


def _both(tmp_path, model, train):
    """(outputs, flags) of the project run by torch, then converted with no marker, under Jittor."""
    src = tmp_path / "proj"
    src.mkdir()
    (src / "model.py").write_text(model)
    (src / "train.py").write_text(train)
    want = _run(torch_python(), src, tmp_path / "torch")
    convert_path(src, tmp_path / "proj_jt")
    for f in (tmp_path / "proj_jt").glob("*.py"):
        assert "jtport:" not in f.read_text(), f"{f.name} has a marker: converted code must run unmodified"
    return want + _run(sys.executable, tmp_path / "proj_jt", tmp_path / "jittor")


def test_whole_model_save_and_trusted_load_match_torch(tmp_path):
    want_out, want_flags, got_out, got_flags = _both(tmp_path, MODEL, TRAIN)
    np.testing.assert_array_equal(got_flags, want_flags)
    assert want_flags.tolist() == [True, False, True]
    # float32 matmuls of <= 4 terms and a batch norm, in a different order
    np.testing.assert_allclose(got_out, want_out, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(got_out[0], got_out[1])


def test_whole_model_of_a_local_class_is_refused_naming_it(tmp_path):
    import jittor as jt
    import pytest

    import shims

    class Local(jt.nn.Module):
        def execute(self, x):
            return x

    with pytest.raises(TypeError, match="Local, defined inside a function"):
        shims.save({"model": Local()}, tmp_path / "m.pt")
    assert not (tmp_path / "m.pt").exists()


ARGS_MODEL = textwrap.dedent("""
    import torch
    import torch.nn as nn


    def noop(*args, **kwargs):
        return None


    class RNNModel(nn.Module):
        def __init__(self, ntoken, ninp, nhid, dropout=0.5, tie_weights=False):
            super().__init__()
            self.encoder = nn.Embedding(ntoken, ninp)
            self.rnns = nn.ModuleList([nn.Linear(ninp, nhid), nn.Linear(nhid, ninp)])
            self.decoder = nn.Linear(ninp, ntoken)
            if tie_weights:
                self.decoder.weight = self.encoder.weight
            self.rnns[0].flatten_parameters = self.widget  # awd-lstm-lm's WeightDrop does this
            self.ninp, self.dropout = ninp, dropout

        def widget(self, *args):
            return noop(*args)

        def forward(self, x):
            h = self.encoder(x)
            for layer in self.rnns:
                h = torch.tanh(layer(h))
            return self.decoder(h)


    class SplitLoss(nn.Module):
        def __init__(self, hidden_size, splits):
            super().__init__()
            self.hidden_size, self.splits = hidden_size, splits

        def forward(self, logits, target):
            return nn.functional.cross_entropy(logits.reshape(-1, logits.size(-1)), target.reshape(-1))
""")

ARGS_TRAIN = textwrap.dedent("""
    import sys
    import numpy as np
    import torch
    from model import RNNModel, SplitLoss

    out_dir = sys.argv[1]
    torch.manual_seed(0)
    model = RNNModel(7, 4, 5, 0.25, tie_weights=True)
    criterion = SplitLoss(4, [3, 7])
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    rng = np.random.default_rng(0)
    model.load_state_dict({k: torch.tensor(rng.standard_normal(tuple(v.shape)).astype(np.float32))
                           for k, v in model.state_dict().items()})
    x = torch.tensor([[1, 2, 3], [4, 5, 6]])
    y = torch.tensor([[2, 3, 4], [5, 6, 0]])
    want = criterion(model(x), y)
    with open(out_dir + "/all.pt", "wb") as f:
        torch.save([model, criterion, optimizer], f)
    with open(out_dir + "/all.pt", "rb") as f:
        model, criterion, optimizer = torch.load(f, weights_only=False)
    got = criterion(model(x), y)
    got.backward()
    optimizer.step()
    after = criterion(model(x), y)
    tied = model.decoder.weight is model.encoder.weight
    np.save(out_dir + "/out.npy", np.array([want.item(), got.item(), after.item()]))
    np.save(out_dir + "/flags.npy", np.array([tied, model.ninp == 4, criterion.splits == [3, 7],
                                              model.rnns[0].flatten_parameters() is None]))
""")


def test_whole_objects_whose_constructors_take_arguments_match_torch(tmp_path):
    """``torch.save([model, criterion, optimizer], f)`` then ``torch.load(f, weights_only=False)``
    (awd-lstm-lm): torch makes each object with ``__new__`` + its ``__dict__``, never calling the
    constructor (which needs arguments); the converted script gets the same objects back, tied
    weights still tied, and trains on from them."""
    want_out, want_flags, got_out, got_flags = _both(tmp_path, ARGS_MODEL, ARGS_TRAIN)
    assert want_flags.tolist() == [True, True, True, True]
    np.testing.assert_array_equal(got_flags, want_flags)
    assert got_out[0] == got_out[1], "the loaded model computes another loss"
    # a 3-layer float32 net of width <= 7 and a cross entropy over 6 targets, summed in another order
    np.testing.assert_allclose(got_out, want_out, rtol=1e-5, atol=1e-6)


TORCH_SAVED_MODEL = textwrap.dedent("""
    import torch
    import torch.nn as nn
    from torch.nn.utils import weight_norm


    class Scaled(nn.Linear):
        def __init__(self, n_in, n_out, scale):
            super().__init__(n_in, n_out, bias=False)
            self.scale = scale

        def forward(self, x):
            return super().forward(x) * self.scale


    class Block(nn.Module):
        def __init__(self, width, act=nn.LeakyReLU):
            super().__init__()
            self.conv = nn.Conv1d(width, width, 3, padding=1, groups=2)
            self.mix = weight_norm(nn.Conv1d(width, width, 1))  # TCN's old hook-based weight_norm
            self.norm = nn.BatchNorm1d(width, momentum=0.3)
            self.act = act(0.2)
            self.register_buffer("offset", torch.zeros(width, 1))
            self.register_buffer("cache", torch.ones(1), persistent=False)

        def forward(self, x):
            return self.act(self.norm(self.mix(self.conv(x)))) + self.offset + self.cache


    class Net(nn.Module):
        def __init__(self, vocab, width, depth):
            super().__init__()
            self.width = width
            self.embed = nn.Embedding(vocab, width, padding_idx=0)
            self.blocks = nn.ModuleList([Block(width) for _ in range(depth)])
            self.heads = nn.ModuleDict({"a": Scaled(width, vocab, 0.5),
                                        "b": nn.Sequential(nn.Dropout(0.1),
                                                           weight_norm(nn.Linear(width, vocab), dim=None))})
            self.rnn = nn.GRU(width, width, num_layers=2, batch_first=True)
            self.out = nn.Linear(width, vocab)
            self.out.weight = self.embed.weight  # tied, as language models do
            self.gain = nn.Parameter(torch.ones(1))

        def forward(self, x):
            h = self.embed(x).transpose(1, 2)
            for b in self.blocks:
                h = b(h)
            h, _ = self.rnn(h.transpose(1, 2))
            return (self.out(h) + self.heads["a"](h) + self.heads["b"](h)) * self.gain
""")

TORCH_SAVE = textwrap.dedent("""
    import sys
    import numpy as np
    import torch
    from model import Net

    out_dir = sys.argv[1]
    model = Net(11, 6, 2)
    rng = np.random.default_rng(0)
    model.load_state_dict({k: torch.tensor(rng.standard_normal(tuple(v.shape)).astype(np.float32))
                           for k, v in model.state_dict().items() if v.dtype == torch.float32}, strict=False)
    model.blocks[1].eval()  # one submodule's own training flag
    torch.save(model, out_dir + "/model.pt")
""")

TORCH_SAVED_LOAD = textwrap.dedent("""
    import sys
    import numpy as np
    import torch

    out_dir, path = sys.argv[1], sys.argv[2]
    model = torch.load(path, weights_only=False)
    x = torch.tensor([[1, 2, 3, 0], [4, 5, 6, 10]])
    flags = [model.training, model.blocks[0].training, model.blocks[1].training,
             model.out.weight is model.embed.weight, model.width == 6, model.heads["a"].scale == 0.5,
             len(list(model.parameters())), len(model.state_dict())]
    model.eval()
    want = model(x)
    np.save(out_dir + "/out.npy", want.detach().numpy())
    np.save(out_dir + "/flags.npy", np.array(flags))
""")


def test_whole_model_saved_by_torch_loads_converted_without_its_constructor(tmp_path):
    """A model ``torch.save``d by the torch code itself (a released whole-model file), whose
    classes take constructor arguments, loads in the converted code as torch loads it: each module
    made from its recorded ``__dict__`` (torch's layers from the attributes naming their
    arguments), the old hook-based ``weight_norm`` applied again (per output channel and over the
    whole tensor), tied weights still one, buffers and training flags as saved, same outputs."""
    src = tmp_path / "proj"
    src.mkdir()
    (src / "model.py").write_text(TORCH_SAVED_MODEL)
    (src / "save.py").write_text(TORCH_SAVE)
    (src / "load.py").write_text(TORCH_SAVED_LOAD)
    (tmp_path / "saved").mkdir()
    proc = subprocess.run([str(torch_python()), "save.py", str(tmp_path / "saved")], cwd=src,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    path = str(tmp_path / "saved" / "model.pt")
    convert_path(src, tmp_path / "proj_jt")
    outs = []
    for python, project, name in ((torch_python(), src, "torch"), (sys.executable, tmp_path / "proj_jt", "jittor")):
        (tmp_path / name).mkdir()
        proc = subprocess.run([str(python), "load.py", str(tmp_path / name), path], cwd=project,
                              capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, f"{name}: {proc.stderr[-3000:]}"
        outs.append((np.load(tmp_path / name / "out.npy"), np.load(tmp_path / name / "flags.npy")))
    (want, want_flags), (got, got_flags) = outs
    assert want_flags.tolist()[:6] == [True, True, False, True, True, True]
    np.testing.assert_array_equal(got_flags, want_flags)
    # embeddings, a grouped conv, weight-normed layers, batch norm, a 2-layer GRU and three heads in
    # float32, width <= 11
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
