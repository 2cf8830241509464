"""TensorBoard event files from the standard library: scalars and images, without tensorboardX.

:class:`shims.tensorboard.SummaryWriter` writes through tensorboardX where it is installed; where
it is not, it writes through :class:`EventWriter`, which writes the same records tensorboardX
writes for ``add_scalar`` and ``add_image``/``add_images`` (TensorBoard reads them as it reads
torch's): an event file is a TFRecord file (each record framed by its length and masked CRC-32C
checksums) of ``Event`` protocol buffers, encoded here by hand with the few fields they use::

    Event    wall_time=1 (double), step=2 (int64), file_version=3 (string), summary=5, session_log=7
    Summary  value=1 (repeated Value)
    Value    tag=1 (string), simple_value=2 (float), image=4 (Image)
    Image    height=1, width=2, colorspace=3 (int32), encoded_image_string=4 (PNG bytes)

Fields at their default value are left out (proto3), except inside a ``oneof`` (``simple_value``).
"""
from __future__ import annotations

import os
import re
import socket
import struct
import time
import zlib

import numpy as np


def _crc32c_table() -> tuple:
    poly = 0x82F63B78  # Castagnoli, reflected
    table = []
    for n in range(256):
        c = n
        for _ in range(8):
            c = (c >> 1) ^ poly if c & 1 else c >> 1
        table.append(c)
    return tuple(table)


_CRC32C = _crc32c_table()


def crc32c(data: bytes) -> int:
    """CRC-32C (Castagnoli) of ``data``, the checksum TFRecord framing uses."""
    crc = 0xFFFFFFFF
    for b in data:
        crc = _CRC32C[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def _masked(crc: int) -> int:
    """TFRecord's masked checksum: rotated right by 15 bits plus a constant."""
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def record(data: bytes) -> bytes:
    """One TFRecord: length, its masked CRC, the data, the data's masked CRC."""
    header = struct.pack("<Q", len(data))
    return header + struct.pack("<I", _masked(crc32c(header))) + data + struct.pack("<I", _masked(crc32c(data)))


# -- protocol buffer encoding (wire types 0 varint, 1 fixed64, 2 length-delimited, 5 fixed32) -----
def _varint(n: int) -> bytes:
    n &= (1 << 64) - 1  # negative int64: two's complement, ten bytes
    out = bytearray()
    while True:
        low = n & 0x7F
        n >>= 7
        if n:
            out.append(low | 0x80)
        else:
            out.append(low)
            return bytes(out)


def _field(number: int, wire: int) -> bytes:
    return _varint(number << 3 | wire)


def _int(number: int, value: int) -> bytes:
    return _field(number, 0) + _varint(int(value)) if value else b""


def _double(number: int, value: float) -> bytes:
    return _field(number, 1) + struct.pack("<d", value) if value else b""


def _float(number: int, value: float) -> bytes:
    return _field(number, 5) + struct.pack("<f", value)


def _bytes(number: int, value: bytes) -> bytes:
    return _field(number, 2) + _varint(len(value)) + value if value else b""


def event(wall_time: float, step=None, file_version: str = "", summary: bytes = b"",
          session_log: bytes = b"") -> bytes:
    """An encoded ``Event`` (``summary``: an encoded ``Summary``; ``session_log``: an encoded ``SessionLog``)."""
    return (_double(1, wall_time) + _int(2, 0 if step is None else int(step)) + _bytes(3, file_version.encode())
            + _bytes(5, summary) + _bytes(7, session_log))


_INVALID_TAG_CHARACTERS = re.compile(r"[^-/\w\.]")


def clean_tag(tag: str) -> str:
    """tensorboardX's tag rule: other characters than ``-/\\w.`` become ``_``, leading ``/`` go."""
    return _INVALID_TAG_CHARACTERS.sub("_", tag).lstrip("/")


def scalar_summary(tag: str, value) -> bytes:
    """An encoded ``Summary`` of one scalar (a number or an array of one element)."""
    value = np.asarray(value)
    if value.squeeze().ndim != 0:
        raise ValueError(f"add_scalar takes one number; got an array of shape {value.shape}")
    return _bytes(1, _bytes(1, clean_tag(tag).encode()) + _float(2, float(value.squeeze())))


def _chw_grid(images: np.ndarray, ncols: int = 8) -> np.ndarray:
    """``N,C,H,W`` images side by side in rows of ``ncols`` (tensorboardX's ``make_grid``)."""
    if images.shape[1] == 1:
        images = np.concatenate([images] * 3, 1)
    n, c, h, w = images.shape
    ncols = min(n, ncols)
    nrows = -(-n // ncols)
    canvas = np.zeros((c, h * nrows, w * ncols), dtype=images.dtype)
    for i in range(n):
        y, x = divmod(i, ncols)
        canvas[:, y * h:(y + 1) * h, x * w:(x + 1) * w] = images[i]
    return canvas


def to_hwc(image, dataformats: str) -> np.ndarray:
    """An image (``HW``, ``CHW``/``HWC``, ``NCHW``/``NHWC``, any order of those letters) as ``H,W,C``
    with 3 or 4 channels, as tensorboardX lays it out (a batch becomes a grid, gray becomes RGB)."""
    image = np.asarray(image)
    fmt = dataformats.upper()
    if len(set(fmt)) != len(fmt) or len(fmt) != image.ndim:
        raise ValueError(f"dataformats {dataformats!r} does not describe an image of shape {image.shape}")
    if len(fmt) == 4:
        return _chw_grid(image.transpose([fmt.find(c) for c in "NCHW"])).transpose(1, 2, 0)
    if len(fmt) == 3:
        hwc = image.transpose([fmt.find(c) for c in "HWC"])
        return np.concatenate([hwc] * 3, 2) if hwc.shape[2] == 1 else hwc
    if len(fmt) == 2:
        return np.stack([image.transpose([fmt.find(c) for c in "HW"])] * 3, 2)
    raise ValueError(f"dataformats {dataformats!r}: an image has 2, 3 or 4 dimensions")


def png(hwc: np.ndarray) -> bytes:
    """PNG bytes of an ``H,W,3`` (RGB) or ``H,W,4`` (RGBA) uint8 image."""
    h, w, c = hwc.shape
    color_type = {3: 2, 4: 6}[c]

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    rows = b"".join(b"\x00" + hwc[y].tobytes() for y in range(h))  # filter type 0 on every row
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, color_type, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def image_summary(tag: str, image, dataformats: str = "CHW") -> bytes:
    """An encoded ``Summary`` of one image: floats are scaled by 255 (values in [0, 1]) and
    clipped to [0, 255] as torch's writer does; uint8 is taken as it is."""
    hwc = to_hwc(image, dataformats)
    if hwc.dtype != np.uint8:
        hwc = (hwc.astype(np.float32) * 255.0).clip(0, 255).astype(np.uint8)
    h, w, c = hwc.shape
    encoded = _int(1, h) + _int(2, w) + _int(3, c) + _bytes(4, png(np.ascontiguousarray(hwc)))
    return _bytes(1, _bytes(1, clean_tag(tag).encode()) + _bytes(4, encoded))


def default_log_dir(comment: str = "") -> str:
    """torch's and tensorboardX's default folder: ``runs/<Mon DD_HH-MM-SS>_<host><comment>``."""
    return os.path.join("runs", time.strftime("%b%d_%H-%M-%S") + "_" + socket.gethostname() + comment)


class EventWriter:
    """Writes one event file in ``logdir``: ``add_scalar``, ``add_image``, ``add_images``.

    Records go to the file at once (Python's buffer); ``flush`` and ``close`` push them to disk.
    """

    def __init__(self, logdir=None, comment="", purge_step=None, max_queue=10, flush_secs=120,
                 filename_suffix=""):
        self.logdir = str(logdir) if logdir is not None else default_log_dir(comment)
        os.makedirs(self.logdir, exist_ok=True)
        name = f"events.out.tfevents.{str(time.time())[:10]}.{socket.gethostname()}{filename_suffix}"
        self._file = open(os.path.join(self.logdir, name), "ab")  # noqa: SIM115 (open for the writer's life; close() closes it)
        self._write(event(time.time(), file_version="brain.Event:2"))
        if purge_step is not None:  # TensorBoard drops the events after purge_step of an earlier run
            self._write(event(time.time(), step=purge_step, file_version="brain.Event:2"))
            self._write(event(time.time(), step=purge_step, session_log=_int(1, 1)))  # SessionLog.START

    def _write(self, encoded_event: bytes) -> None:
        self._file.write(record(encoded_event))

    def _summary(self, summary: bytes, global_step, walltime) -> None:
        self._write(event(time.time() if walltime is None else walltime, global_step, summary=summary))

    def add_scalar(self, tag, scalar_value, global_step=None, walltime=None) -> None:
        """One scalar under ``tag`` at ``global_step``."""
        self._summary(scalar_summary(tag, scalar_value), global_step, walltime)

    def add_image(self, tag, img_tensor, global_step=None, walltime=None, dataformats="CHW") -> None:
        """One image (``CHW`` by default; values in [0, 1], or uint8) under ``tag``."""
        self._summary(image_summary(tag, img_tensor, dataformats), global_step, walltime)

    def add_images(self, tag, img_tensor, global_step=None, walltime=None, dataformats="NCHW") -> None:
        """A batch of images as one grid image under ``tag``."""
        self._summary(image_summary(tag, img_tensor, dataformats), global_step, walltime)

    def flush(self) -> None:
        """Push what was written to disk."""
        if not self._file.closed:
            self._file.flush()
            os.fsync(self._file.fileno())

    def close(self) -> None:
        """Flush and close the file."""
        if not self._file.closed:
            self.flush()
            self._file.close()
