"""``torch.utils.tensorboard.SummaryWriter`` (and tensorboardX's, the same API) without torch.

tensorboardX (PyPI, ``pip install 'jtport[tensorboard]'``) writes the same TensorBoard event
files as torch's writer, from numpy; it does not know Jittor's ``Var``.  :class:`SummaryWriter`
takes torch's constructor arguments, turns every ``Var`` argument of an ``add_*`` call (also
inside lists, tuples and dicts: ``add_scalars``' values) into numpy, and passes the call on.
Where tensorboardX is not installed, scalars and images (``add_scalar``, ``add_scalars``,
``add_image``, ``add_images``) are written by :mod:`shims.tensorboard_events` (the same records);
the other ``add_*`` methods then raise ImportError naming the package to install.
``add_scalars`` keeps torch's layout (one run folder ``<log_dir>/<main_tag>_<key>`` per key, where
tensorboardX writes ``<main_tag>/<key>``), so TensorBoard shows the runs torch's writer shows.
``add_graph`` traces a torch model and is refused with the reason.
"""
from __future__ import annotations

import functools
import time

import jittor as jt

from .tensorboard_events import EventWriter

_INSTALL = "pip install 'jtport[tensorboard]' (or: pip install tensorboardX)"


def _writer_class():
    """tensorboardX's writer where it is installed, else :class:`EventWriter` (scalars, images)."""
    try:
        # lazy: optional dependency, needed only when a SummaryWriter is made
        from tensorboardX import SummaryWriter as Writer
    except ImportError:
        return EventWriter
    return Writer


def _needs_tensorboardx(name: str):
    """The method ``name`` of a writer without tensorboardX: calling it says what to install."""
    def call(*args, **kwargs):
        raise ImportError(f"SummaryWriter.{name} needs tensorboardX, which is not installed (jtport writes "
                          f"scalars and images without it): {_INSTALL}")
    call.__name__ = name
    return call


def _numpy(value):
    """``value`` with every Var (also inside lists, tuples, dicts) turned into numpy."""
    if isinstance(value, jt.Var):
        return value.numpy()
    if isinstance(value, dict):
        return {k: _numpy(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_numpy(v) for v in value)
    return value


class SummaryWriter:
    """torch's ``SummaryWriter(log_dir=None, comment='', purge_step=None, max_queue=10,
    flush_secs=120, filename_suffix='')`` over tensorboardX's writer, taking Jittor Vars."""

    def __init__(self, log_dir=None, comment="", purge_step=None, max_queue=10, flush_secs=120,
                 filename_suffix=""):
        self._options = dict(max_queue=max_queue, flush_secs=flush_secs, filename_suffix=filename_suffix)
        self._writer = _writer_class()(logdir=log_dir, comment=comment, purge_step=purge_step, **self._options)
        self._runs = {}  # add_scalars' run folder -> its writer

    @property
    def log_dir(self) -> str:
        """The folder the event files go to (torch's attribute, tensorboardX's ``logdir``)."""
        return self._writer.logdir

    def get_logdir(self) -> str:
        """torch's ``get_logdir()``."""
        return self._writer.logdir

    def add_graph(self, model, input_to_model=None, verbose=False, use_strict_trace=True):
        """Refused: torch's writer traces the model with ``torch.jit``; there is no Jittor trace."""
        raise NotImplementedError("SummaryWriter.add_graph traces a torch model (torch.jit); a Jittor model "
                                  "cannot be traced into a TensorBoard graph: remove the call")

    def add_scalars(self, main_tag, tag_scalar_dict, global_step=None, walltime=None) -> None:
        """torch's ``add_scalars``: each value under ``main_tag`` in its own run folder
        ``<log_dir>/<main_tag with / as _>_<key>``, as torch lays them out."""
        walltime = time.time() if walltime is None else walltime
        for tag, value in tag_scalar_dict.items():
            folder = f"{self.log_dir}/{main_tag.replace('/', '_')}_{tag}"
            if folder not in self._runs:
                self._runs[folder] = _writer_class()(logdir=folder, **self._options)
            self._runs[folder].add_scalar(main_tag, _numpy(value), global_step, walltime)

    def __getattr__(self, name):
        if name.startswith("add_") and isinstance(self._writer, EventWriter) and not hasattr(self._writer, name):
            return _needs_tensorboardx(name)
        attr = getattr(self._writer, name)
        if not (name.startswith("add_") and callable(attr)):
            return attr

        @functools.wraps(attr)
        def call(*args, **kwargs):
            return attr(*_numpy(args), **_numpy(kwargs))
        return call

    def flush(self) -> None:
        """Write pending events to disk."""
        for w in (self._writer, *self._runs.values()):
            w.flush()

    def close(self) -> None:
        """Flush and close the event files."""
        for w in (self._writer, *self._runs.values()):
            w.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()
