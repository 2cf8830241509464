"""``torch.utils.tensorboard.SummaryWriter`` in converted code: tensorboardX's event files, fed
from Jittor Vars.  Needs the ``tensorboard`` extra (tensorboardX); skipped where it is absent."""
import struct
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from porter import convert_source

tbx = pytest.importorskip("tensorboardX")

SCRIPT = textwrap.dedent("""
    import sys
    import torch
    from torch.utils.tensorboard import SummaryWriter

    writer = SummaryWriter(log_dir=sys.argv[1])
    w = torch.arange(6.0).reshape(2, 3)
    for step in range(3):
        loss = (w * (step + 1)).mean()
        writer.add_scalar("train/loss", loss, step)
        writer.add_scalars("parts", {"a": loss * 2, "b": 1.5}, step)
    writer.add_histogram("weights", w, 0)
    writer.add_image("img", torch.ones(3, 4, 5) * 0.5, 0)
    writer.close()
""")


def _events(folder):
    """(sub-folder, Event) for every record of the event files under ``folder`` (TFRecord framing)."""
    from tensorboardX.proto import event_pb2

    out = []
    for f in sorted(folder.rglob("events.out.tfevents.*")):
        where = str(f.parent.relative_to(folder))
        data = f.read_bytes()
        pos = 0
        while pos < len(data):
            (n,) = struct.unpack("<Q", data[pos:pos + 8])
            ev = event_pb2.Event()
            ev.ParseFromString(data[pos + 12:pos + 12 + n])
            out.append((where, ev))
            pos += 12 + n + 4
    return out


def test_converted_summary_writer_writes_torch_events(tmp_path):
    res = convert_source(SCRIPT, "train.py")
    assert "from shims.tensorboard import SummaryWriter" in res.code and "jtport:" not in res.code, res.code
    script = tmp_path / "train.py"
    script.write_text(res.code)
    logs = tmp_path / "runs"
    subprocess.run([sys.executable, str(script), str(logs)], check=True, capture_output=True, text=True, timeout=600)
    scalars = {}
    kinds = set()
    for where, ev in _events(logs):
        for v in ev.summary.value:
            kinds.add(v.WhichOneof("value"))
            if v.WhichOneof("value") == "simple_value":
                scalars[(where, v.tag, ev.step)] = v.simple_value
    w = np.arange(6.0).reshape(2, 3)
    for step in range(3):
        loss = (w * (step + 1)).mean()
        assert scalars[(".", "train/loss", step)] == pytest.approx(loss, rel=1e-6)
        # add_scalars: one sub-folder per key, the main tag inside (torch's layout)
        assert scalars[("parts_a", "parts", step)] == pytest.approx(2 * loss, rel=1e-6)
        assert scalars[("parts_b", "parts", step)] == 1.5
    assert {"histo", "image"} <= kinds


def test_add_graph_is_refused_with_the_reason(tmp_path):
    import shims

    with shims.tensorboard.SummaryWriter(str(tmp_path)) as w:
        with pytest.raises(NotImplementedError, match="cannot be traced"):
            w.add_graph(object())
        assert w.log_dir == str(tmp_path) == w.get_logdir()
