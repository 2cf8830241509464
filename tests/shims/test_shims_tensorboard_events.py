"""tensorboardX's ``SummaryWriter`` in converted code, and the event files jtport writes where
tensorboardX is not installed (``shims.tensorboard_events``).

The files are read back by a reader of this test's own (TFRecord framing, protocol buffer wire
format), the PNG images by Pillow; where tensorboardX is installed its own ``Event`` parser reads
them too, and its summaries are compared byte for byte with ours.
"""
import io
import struct
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from porter import convert_source
from shims import tensorboard_events as te

SCRIPT = textwrap.dedent("""
    import sys
    import torch
    {import_line}

    writer = SummaryWriter(log_dir=sys.argv[1])
    w = torch.arange(6.0).reshape(2, 3)
    for step in range(3):
        loss = (w * (step + 1)).mean()
        writer.add_scalar("train/loss", loss, step)
        writer.add_scalar("loss_sum", loss.sum().cpu().detach().data, step)
        writer.add_scalars("parts", {{"a": loss * 2, "b": 1.5}}, step)
    img = torch.linspace(0, 1, 3 * 4 * 5).reshape(3, 4, 5)
    writer.add_image("img", img, 7)
    writer.add_image("img_np", img[0:1].cpu().detach().numpy(), 8)
    writer.close()
""")

IMPORTS = {"tensorboardX": "from tensorboardX import SummaryWriter",
           "tensorboardX_module": "import tensorboardX as tbx; SummaryWriter = tbx.SummaryWriter",
           "torch": "from torch.utils.tensorboard import SummaryWriter"}

#: run the converted script as __main__ with tensorboardX unimportable (the Jittor venv lacks it)
WITHOUT_TENSORBOARDX = ("import runpy, sys; sys.modules['tensorboardX'] = None; script = sys.argv.pop(1); "
                        "runpy.run_path(script, run_name='__main__')")


def _fields(data: bytes) -> dict:
    """A protocol buffer message as {field number: [raw values]} (varints as ints, fixed as bytes)."""
    out, pos = {}, 0

    def varint():
        nonlocal pos
        shift = value = 0
        while True:
            b = data[pos]
            pos += 1
            value |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                return value
    while pos < len(data):
        key = varint()
        number, wire = key >> 3, key & 7
        if wire == 0:
            value = varint()
        elif wire in (1, 5):
            size = 8 if wire == 1 else 4
            value, pos = data[pos:pos + size], pos + size
        elif wire == 2:
            size = varint()
            value, pos = data[pos:pos + size], pos + size
        else:
            raise AssertionError(f"unexpected wire type {wire}")
        out.setdefault(number, []).append(value)
    return out


def _records(path) -> list:
    """The records of a TFRecord file, every length and data checksum verified."""
    data, pos, out = path.read_bytes(), 0, []
    while pos < len(data):
        header = data[pos:pos + 8]
        (n,) = struct.unpack("<Q", header)
        assert struct.unpack("<I", data[pos + 8:pos + 12])[0] == te._masked(te.crc32c(header))
        body = data[pos + 12:pos + 12 + n]
        assert struct.unpack("<I", data[pos + 12 + n:pos + 16 + n])[0] == te._masked(te.crc32c(body))
        out.append(body)
        pos += 16 + n
    return out


def _read_events(folder) -> dict:
    """{(sub-folder, tag, step): float or (height, width, channels, pixels)} of every event file."""
    from PIL import Image

    found = {}
    files = sorted(folder.rglob("events.out.tfevents.*"))
    assert files
    for f in files:
        where = str(f.parent.relative_to(folder))
        records = _records(f)
        assert _fields(records[0])[3] == [b"brain.Event:2"]
        for rec in records[1:]:
            ev = _fields(rec)
            step = ev.get(2, [0])[0]
            for value in _fields(ev[5][0])[1]:
                v = _fields(value)
                tag = v[1][0].decode()
                if 2 in v:
                    found[(where, tag, step)] = struct.unpack("<f", v[2][0])[0]
                else:
                    image = _fields(v[4][0])
                    pixels = np.asarray(Image.open(io.BytesIO(image[4][0])))
                    found[(where, tag, step)] = (image[1][0], image[2][0], image[3][0], pixels)
    return found


def test_crc32c_known_answers():
    """CRC-32C's check value (RFC 3720, iSCSI) and 32 zero bytes."""
    assert te.crc32c(b"123456789") == 0xE3069283
    assert te.crc32c(bytes(32)) == 0x8A9136AA


@pytest.mark.parametrize("import_as", sorted(IMPORTS))
def test_converted_writer_takes_vars_without_tensorboardx(tmp_path, import_as):
    """tensorboardX's and torch's writer, converted, log Vars and numpy with tensorboardX
    unimportable: the scalars and images are in the event files, torch's layout for add_scalars."""
    res = convert_source(SCRIPT.format(import_line=IMPORTS[import_as]), "train.py")
    assert "import tensorboardX" not in res.code and "jtport:" not in res.code, res.code
    script = tmp_path / "train.py"
    script.write_text(res.code)
    logs = tmp_path / "runs"
    proc = subprocess.run([sys.executable, "-c", WITHOUT_TENSORBOARDX, str(script), str(logs)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    found = _read_events(logs)
    w = np.arange(6.0).reshape(2, 3)
    for step in range(3):
        loss = (w * (step + 1)).mean()
        assert found[(".", "train/loss", step)] == pytest.approx(loss, rel=1e-6)
        assert found[(".", "loss_sum", step)] == pytest.approx(loss, rel=1e-6)
        assert found[("parts_a", "parts", step)] == pytest.approx(2 * loss, rel=1e-6)
        assert found[("parts_b", "parts", step)] == 1.5
    img = np.linspace(0, 1, 60, dtype=np.float32).reshape(3, 4, 5)
    h, wd, c, pixels = found[(".", "img", 7)]
    assert (h, wd, c) == (4, 5, 3)
    np.testing.assert_array_equal(pixels, (img.transpose(1, 2, 0) * 255).astype(np.uint8))
    h, wd, c, pixels = found[(".", "img_np", 8)]
    assert (h, wd, c) == (4, 5, 3)  # one channel shown as gray RGB
    np.testing.assert_array_equal(pixels, np.repeat((img[0][..., None] * 255).astype(np.uint8), 3, 2))


def test_images_of_every_layout(tmp_path):
    """``HW``, ``HWC``, ``CHW`` with 1/3/4 channels, uint8 as it is, and a batch as tensorboardX's grid."""
    rng = np.random.default_rng(0)
    batch = rng.random((3, 3, 2, 4)).astype(np.float32)
    cases = {
        "hw": (rng.random((2, 3)), "HW"),
        "hwc4": (rng.integers(0, 256, (2, 3, 4), dtype=np.uint8), "HWC"),
        "chw": (rng.random((3, 2, 3)) * 1.5 - 0.2, "CHW"),  # out of [0, 1]: clipped
    }
    writer = te.EventWriter(str(tmp_path))
    for i, (tag, (image, fmt)) in enumerate(cases.items()):
        writer.add_image(tag, image, i, dataformats=fmt)
    writer.add_images("batch", batch, 9)
    writer.close()
    found = _read_events(tmp_path)
    u8 = lambda x: (np.asarray(x, np.float32) * 255).clip(0, 255).astype(np.uint8)  # noqa: E731
    np.testing.assert_array_equal(found[(".", "hw", 0)][3], np.repeat(u8(cases["hw"][0])[..., None], 3, 2))
    np.testing.assert_array_equal(found[(".", "hwc4", 1)][3], cases["hwc4"][0])
    np.testing.assert_array_equal(found[(".", "chw", 2)][3], u8(cases["chw"][0].transpose(1, 2, 0)))
    grid = np.concatenate(list(batch), axis=2).transpose(1, 2, 0)  # 3 images in one row
    assert found[(".", "batch", 9)][:3] == (2, 12, 3)
    np.testing.assert_array_equal(found[(".", "batch", 9)][3], u8(grid))


def test_summaries_match_tensorboardx_byte_for_byte(tmp_path):
    """Where tensorboardX is installed: our scalar summaries and events are its bytes, its parser
    reads our files, and our images decode to its pixels."""
    tbx = pytest.importorskip("tensorboardX")
    from tensorboardX import summary as tbx_summary
    from tensorboardX.proto import event_pb2, summary_pb2

    for tag, value in (("loss", 0.25), ("a b/c", np.float32(3.5)), ("/lead", 0.0), ("neg", -1e-30)):
        assert te.scalar_summary(tag, value) == tbx_summary.scalar(tag, value).SerializeToString()
    for step in (None, 0, 5, -3, 2 ** 40):
        summary = tbx_summary.scalar("x", 1.0)
        ev = event_pb2.Event(summary=summary, wall_time=1234.5)
        if step is not None:
            ev.step = step
        assert te.event(1234.5, step, summary=summary.SerializeToString()) == ev.SerializeToString()
    image = np.random.default_rng(1).random((3, 4, 6)).astype(np.float32)
    theirs = tbx_summary.image("img", image).value[0].image
    ours = summary_pb2.Summary.FromString(te.image_summary("img", image)).value[0].image
    from PIL import Image
    assert (ours.height, ours.width, ours.colorspace) == (theirs.height, theirs.width, theirs.colorspace)
    np.testing.assert_array_equal(np.asarray(Image.open(io.BytesIO(ours.encoded_image_string))),
                                  np.asarray(Image.open(io.BytesIO(theirs.encoded_image_string))))
    writer = te.EventWriter(str(tmp_path), purge_step=4)
    writer.add_scalar("s", 2.5, 4, walltime=10.0)
    writer.close()
    (path,) = tmp_path.glob("events.out.tfevents.*")
    events = [event_pb2.Event.FromString(r) for r in _records(path)]
    assert events[0].file_version == "brain.Event:2"
    assert events[2].session_log.status == event_pb2.SessionLog.START and events[2].step == 4
    assert (events[3].step, events[3].wall_time, events[3].summary.value[0].simple_value) == (4, 10.0, 2.5)
    assert tbx.__name__ == "tensorboardX"
