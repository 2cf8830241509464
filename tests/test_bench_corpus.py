"""The corpus bench's own pieces: the manifest's pins and recipes, the synthetic data, the log reader."""
from __future__ import annotations

import re
import struct
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench" / "corpus"))

import manifest  # noqa: E402
import outcome  # noqa: E402
import synth  # noqa: E402


def test_manifest_pins_forty_public_projects_by_commit():
    projects = manifest.load_projects()
    repos = {p["repo"] for p in projects}
    assert len(repos) >= 40
    for p in projects:
        assert re.fullmatch(r"[0-9a-f]{40}", p["commit"]), p["name"]
        assert re.fullmatch(r"[\w.-]+/[\w.-]+", p["repo"]), p["name"]
        assert 2015 <= p["year"] <= 2026, p["name"]
        assert p["entry"]["args"], p["name"]
        for step in p.get("data", []):
            assert step["kind"] in set(synth.GENERATORS) | {"python"}, (p["name"], step)
        if "loss_regex" in p:
            assert re.compile(p["loss_regex"]).groups >= 1, p["name"]


def test_manifest_spans_the_eras_and_domains_the_issue_names():
    projects = manifest.load_projects()
    years = {p["year"] for p in projects}
    assert min(years) <= 2017 and max(years) >= 2024
    domains = {p["domain"] for p in projects}
    for need in ("GAN", "NLP", "graph", "NeRF", "super-resolution", "segmentation", "classification", "RL"):
        assert need in domains, need


# eriklindernoren/PyTorch-GAN's implementations/ folders at the pinned commit (issue 32's collection)
PYTORCH_GAN = ("aae", "acgan", "began", "bgan", "bicyclegan", "ccgan", "cgan", "cluster_gan", "cogan",
               "context_encoder", "cyclegan", "dcgan", "discogan", "dragan", "dualgan", "ebgan", "esrgan",
               "gan", "infogan", "lsgan", "munit", "pix2pix", "pixelda", "relativistic_gan", "sgan",
               "softmax_gan", "srgan", "stargan", "unit", "wgan", "wgan_div", "wgan_gp")


def test_pytorch_gan_block_has_every_implementation_each_converted_alone_at_the_manifest_end():
    projects = manifest.load_projects()
    gan = [i for i, p in enumerate(projects) if p["repo"] == "eriklindernoren/PyTorch-GAN"]
    assert gan == list(range(len(projects) - len(gan), len(projects)))  # one block, last
    folders = sorted(projects[i]["project_root"] for i in gan)
    assert folders == sorted(f"implementations/{n}" for n in PYTORCH_GAN)
    for i in gan:
        p = projects[i]
        assert p["entry"]["cwd"] == p["project_root"], p["name"]
        assert p["entry"]["args"][1:3] == ["--n_epochs", "1"], p["name"]
        assert any(step["dir"].startswith("../../data/") for step in p["data"] if "dir" in step), p["name"]


def test_unknown_project_name_is_refused():
    with pytest.raises(ValueError):
        manifest.load_projects(["no-such-project"])


def _read_idx(path: Path) -> np.ndarray:
    raw = path.read_bytes()
    magic = struct.unpack(">I", raw[:4])[0]
    ndim = magic & 0xFF
    dims = struct.unpack(">" + "I" * ndim, raw[4:4 + 4 * ndim])
    return np.frombuffer(raw[4 + 4 * ndim:], dtype=np.uint8).reshape(dims)


def test_mnist_files_are_valid_idx_with_the_requested_sizes(tmp_path):
    synth.make_data(tmp_path, [{"kind": "mnist", "dir": "raw", "n": 5, "n_test": 3}], sys.executable, {})
    images = _read_idx(tmp_path / "raw" / "train-images-idx3-ubyte")
    labels = _read_idx(tmp_path / "raw" / "t10k-labels-idx1-ubyte")
    assert images.shape == (5, 28, 28) and labels.shape == (3,) and labels.max() < 10


def test_generators_are_seeded_so_both_runs_read_the_same_bytes(tmp_path):
    recipe = [{"kind": "images", "dir": "img/c0", "n": 2, "size": [8, 6]},
              {"kind": "text", "path": "t.txt", "lines": 4, "extra": "O God!"},
              {"kind": "cora", "dir": "cora", "nodes": 20, "features": 5, "edges": 30},
              {"kind": "tokens", "path": "train.bin", "n": 50, "vocab": 7}]
    a, b = tmp_path / "a", tmp_path / "b"
    for d in (a, b):
        d.mkdir()
        synth.make_data(d, recipe, sys.executable, {})
    assert synth.new_files(a, b) == []
    rows = (a / "cora" / "cora.content").read_text().splitlines()
    assert len(rows) == 20 and len(rows[0].split("\t")) == 1 + 5 + 1
    assert (a / "t.txt").read_text().endswith("O God!")
    assert np.fromfile(a / "train.bin", dtype=np.uint16).max() < 7
    from PIL import Image
    assert Image.open(a / "img" / "c0" / "img_00000.png").size == (8, 6)


def test_new_files_lists_added_and_changed_files_only(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    for d in (a, b):
        (d / "x").mkdir(parents=True)
        (d / "same.py").write_text("1")
    (a / "x" / "data.npy").write_bytes(b"new")
    (a / "same.py").write_text("2")
    assert sorted(map(str, synth.new_files(a, b))) == ["same.py", "x/data.npy"]


def test_python_step_failure_is_reported(tmp_path):
    with pytest.raises(RuntimeError, match="data step 0"):
        synth.make_data(tmp_path, [{"kind": "python", "code": "raise SystemExit(3)"}], sys.executable, {})


@pytest.mark.parametrize("line, value", [
    ("iter 5: loss 4.1744, time 13.56ms", 4.1744),
    ("Epoch [1/5], Loss: 0.0446", 0.0446),
    ("Iter 0005 | Total Loss 0.123456", 0.123456),
    ("D/loss_real: -0.52, G/loss_fake: 1.5e-3", 1.5e-3),
    ("step 3 | loss nan", float("nan")),
])
def test_last_loss_reads_common_print_forms(line, value):
    got = outcome.last_loss("noise\n" + line + "\n")
    assert got == pytest.approx(value, nan_ok=True)


def test_last_loss_pattern_is_per_line():
    assert outcome.last_loss("0 12.5\n1 3.25\n", r"^\d+\s+([-\d.eE+]+)") == 3.25
    assert outcome.is_finite(float("inf")) is False and outcome.is_finite(None) is None


_TB = '''Traceback (most recent call last):
  File "/w/build/corpus/p/jittor/train.py", line 12, in <module>
    main()
  File "/w/shims/nn/layers.py", line 40, in forward
    return f(x)
  File "/venv/lib/python3.11/site-packages/jittor/nn.py", line 9, in f
    raise RuntimeError("Wrong inputs")
RuntimeError: Wrong inputs
'''


def test_first_error_names_the_frames_in_project_shims_and_jittor():
    err = outcome.first_error("log\n" + _TB, "/w/build/corpus/p/jittor")
    assert err["exception"] == "RuntimeError: Wrong inputs"
    assert err["where"] == {"project": "train.py:12", "shims": "shims/nn/layers.py:40",
                            "jittor": "jittor/nn.py:9"}
    assert err["innermost"] == "jittor"
    assert outcome.classify(err, True) == "Jittor limitation"
    assert outcome.classify(err, False) == "torch fails"


def test_classify_separates_unported_names_from_shim_errors():
    unported = {"exception": "shims.UnportedError: calling torch.autograd.Variable", "innermost": "shims"}
    assert outcome.classify(unported, True) == "unmapped API"
    shim = {"exception": "TypeError: bad", "innermost": "shims"}
    assert outcome.classify(shim, True) == "shim"
    mine = {"exception": "NameError: name 'x' is not defined", "innermost": "project"}
    assert outcome.classify(mine, True) == "wrong rewrite"
    assert outcome.classify(None, True, "...\nTIMEOUT after 60 s\n") == "timeout"


def _bench():
    sys.path.insert(0, str(ROOT / "bench"))
    import bench_corpus
    return bench_corpus


def test_a_run_is_stopped_once_it_printed_enough_losses(tmp_path):
    bench = _bench()
    script = "import time\nfor i in range(3):\n    print('step', i, 'loss', 1.5 - i)\ntime.sleep(60)\n"
    enough = bench._enough({"name": "x"}, 3)
    rc, seconds, text = bench.run_child([sys.executable, "-u", "-c", script], tmp_path, {"PATH": "/usr/bin"},
                                        50, tmp_path / "x.log", enough)
    assert rc is None and seconds < 30 and "STOPPED" in text
    res = bench.side_result(rc, seconds, text, {}, tmp_path)
    assert res["runs"] and res["loss"] == -0.5 and res["finite"]


def test_a_traceback_is_a_failure_even_after_losses(tmp_path):
    bench = _bench()
    script = "print('loss 1.0')\nraise KeyError('O')\n"
    rc, seconds, text = bench.run_child([sys.executable, "-c", script], tmp_path, {"PATH": "/usr/bin"},
                                        50, tmp_path / "x.log", bench._enough({}, 1))
    res = bench.side_result(rc, seconds, text, {}, tmp_path)
    assert rc == 1 and not res["runs"] and res["error"]["exception"] == "KeyError: 'O'"


def test_a_silent_run_past_its_limit_does_not_count(tmp_path):
    bench = _bench()
    rc, seconds, text = bench.run_child([sys.executable, "-c", "import time; time.sleep(60)"], tmp_path,
                                        {"PATH": "/usr/bin"}, 3, tmp_path / "x.log")
    res = bench.side_result(rc, seconds, text, {}, tmp_path)
    assert rc is None and "TIMEOUT" in text and not res["runs"]


def test_jittor_asking_for_a_rerun_is_not_a_run(tmp_path):
    bench = _bench()
    text = "[e 1128 03:25:50 compiler.py:886] " + bench.JITTOR_RESTART + "\n"
    assert not bench.side_result(0, 1.0, text, {}, tmp_path)["runs"]
