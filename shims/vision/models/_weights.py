"""torchvision's pretrained-weights interface without torch and without a network.

``VGG16_Weights.IMAGENET1K_V1`` and friends are enums of :class:`Weights` (the URL torchvision
downloads from, the number of classes).  :func:`resolve` reproduces torchvision's legacy
``pretrained=True`` handling; :func:`load_pretrained` reads the file torchvision would have
downloaded from the user's torch hub cache (``$TORCH_HOME/hub/checkpoints/<file>``, default
``~/.cache/torch``) through the safe reader :func:`shims.checkpoint.load`, and raises
:class:`FileNotFoundError` naming the file to place there when it is absent: jtport never
downloads.
"""
from __future__ import annotations

import enum
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Dict, Optional
from urllib.parse import urlparse

import numpy as np

from ...checkpoint import load

__all__ = ["Weights", "WeightsEnum", "hub_checkpoint_dir"]

#: where torchvision downloads its weights from (only the file names matter here)
URL = "https://download.pytorch.org/models/"


@dataclass(frozen=True)
class Weights:
    """One set of pretrained weights: where torchvision downloads it and its class count."""

    url: str
    num_classes: int = 1000

    @property
    def file_name(self) -> str:
        """The file name torch hub stores the download under (the URL's last segment)."""
        return os.path.basename(urlparse(self.url).path)


class WeightsEnum(enum.Enum):
    """torchvision's ``WeightsEnum``: members hold :class:`Weights`; ``DEFAULT`` is an alias."""

    @classmethod
    def verify(cls, obj):
        """torchvision's ``verify``: None, a member, or its name (``"IMAGENET1K_V1"``,
        ``"DEFAULT"``, ``"VGG16_Weights.DEFAULT"``) -> a member or None."""
        if obj is None or isinstance(obj, cls):
            return obj
        if isinstance(obj, str):
            name = obj.replace(cls.__name__ + ".", "")
            if name in cls.__members__:
                return cls.__members__[name]
        raise TypeError(f"Invalid Weight class provided; expected {cls.__name__} but received {obj!r}.")

    @property
    def url(self) -> str:
        """The download URL torchvision uses."""
        return self.value.url

    @property
    def file_name(self) -> str:
        """The checkpoint's file name in the torch hub cache."""
        return self.value.file_name

    @property
    def num_classes(self) -> int:
        """Output classes of the pretrained classifier."""
        return self.value.num_classes

    def get_state_dict(self, progress: bool = True, check_hash: bool = False, **_ignored) -> Dict[str, Any]:
        """The state dict from the local torch hub cache (numpy arrays, torch's keys)."""
        path = hub_checkpoint_dir() / self.file_name
        if not path.is_file():
            raise FileNotFoundError(
                f"{type(self).__name__}.{self.name}: pretrained weights not found at {path}. jtport does not "
                f"download: fetch {self.url} and place it there as {self.file_name} (the file torchvision "
                f"caches; $TORCH_HOME moves the cache)")
        return load(path, to="numpy")


def make_enum(name: str, v1: str, v2: Optional[str] = None, **extra: str):
    """A weights enum as torchvision declares it: ``IMAGENET1K_V1`` (file ``v1``), ``IMAGENET1K_V2``
    when given, ``extra`` members (name -> file), and ``DEFAULT``, the newest of V1/V2."""
    members = {"IMAGENET1K_V1": Weights(URL + v1)}
    if v2:
        members["IMAGENET1K_V2"] = Weights(URL + v2)
    members.update({k: Weights(URL + f) for k, f in extra.items()})
    members["DEFAULT"] = Weights(URL + (v2 or v1))
    return WeightsEnum(name, members, module=sys._getframe(1).f_globals.get("__name__"))


def hub_checkpoint_dir() -> Path:
    """torch hub's checkpoint folder: ``$TORCH_HOME/hub/checkpoints``, where ``TORCH_HOME``
    defaults to ``$XDG_CACHE_HOME/torch`` or ``~/.cache/torch`` (``torch.hub.get_dir``)."""
    home = os.environ.get("TORCH_HOME") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "torch")
    return Path(os.path.expanduser(home)) / "hub" / "checkpoints"


def resolve(weights, pretrained: Optional[bool], enum_cls, legacy=None):
    """The weights member a builder uses: torchvision's ``handle_legacy_interface``
    (``pretrained=True`` -> ``legacy`` (IMAGENET1K_V1 unless given), ``False`` -> None)."""
    if isinstance(weights, bool):  # torchvision's positional legacy form: vgg16(True)
        weights, pretrained = None, weights if pretrained is None else pretrained
    if pretrained is not None:
        if weights is not None:
            raise ValueError("weights and pretrained are both given; pass weights only")
        return (legacy or enum_cls.IMAGENET1K_V1) if pretrained else None
    return enum_cls.verify(weights)


def build(make: Callable[..., Any], weights, kwargs: Dict[str, Any], progress: bool = True,
          remap: Optional[Callable[[Dict[str, Any]], Dict[str, Any]]] = None):
    """``make(**kwargs)``, then the pretrained state dict loaded strictly when ``weights`` is
    set; like torchvision, ``num_classes`` must then be the weights' own (a different value
    raises ValueError)."""
    if weights is not None:
        given = kwargs.get("num_classes", weights.num_classes)
        if given != weights.num_classes:
            raise ValueError(f"The parameter 'num_classes' expected value {weights.num_classes} "
                             f"but got {given} instead.")
        kwargs["num_classes"] = weights.num_classes
    model = make(**kwargs)
    if weights is not None:
        sd = weights.get_state_dict(progress=progress)
        model.load_state_dict(_with_batch_counts(remap(sd) if remap else sd))
    return model


def _with_batch_counts(state_dict: Dict[str, Any]) -> Dict[str, Any]:
    """Files saved before torch 0.4.1 (torchvision's DenseNet and VGG-BN weights) have no
    ``num_batches_tracked``; torch's BatchNorm fills 0 for them (its version-1 load hook)."""
    out = dict(state_dict)
    for k in state_dict:
        if k.endswith(".running_mean") and k[:-len("running_mean")] + "num_batches_tracked" not in out:
            out[k[:-len("running_mean")] + "num_batches_tracked"] = np.zeros((), np.int64)
    return out
