"""The errors :func:`shims.load` raises: every failure names the file it was reading."""
from __future__ import annotations

import pickle


class CheckpointError(pickle.UnpicklingError):
    """A checkpoint could not be read safely: corrupt, truncated, hostile or too large.

    The message starts with the file's path (or ``<file object>``).  A subclass of
    ``pickle.UnpicklingError``, like the errors ``torch.load(weights_only=True)`` raises.
    """


class ForbiddenGlobalError(CheckpointError):
    """A checkpoint asked the unpickler for a global that is not on the allow-list."""


class CheckpointLimitError(CheckpointError):
    """A checkpoint would need more memory than its tensors really do (a bomb): refused early."""
