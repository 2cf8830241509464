"""``torchvision.models`` in Jittor: VGG, ResNet, AlexNet, SqueezeNet, MobileNetV2 and DenseNet built
module for module as torchvision builds them (attribute names, ``Sequential`` indices,
``children()``/``modules()`` order, initialisation), so a torchvision ``state_dict`` loads by
key and structure-dependent slicing (``list(vgg.features.children())[:31]``) takes the same
layers.  ``weights=``/``pretrained=True`` read the file torchvision would download from the local
torch hub cache through the safe checkpoint reader (see :mod:`._weights`); nothing is downloaded.

Initialisation follows torchvision layer by layer (VGG/ResNet/MobileNetV2 convs
``kaiming_normal_`` fan_out, DenseNet's fan_in, SqueezeNet's ``kaiming_uniform_``, linears
``normal_(0, 0.01)`` or the layer default); Jittor's ``Linear``/``Conv2d`` defaults draw from
torch's distributions (uniform, bound ``1/sqrt(fan_in)``).  The draws are Jittor's random
stream, so a seeded run gives other values than torch with the same seed: the same
distributions, not the same numbers (load a torch ``state_dict`` for those).  ReLU layers take
no ``inplace`` flag (Jittor never modifies in place); ``children()`` class names are Jittor's
(``jt.nn.Conv2d`` is the class ``Conv``).
"""
from . import alexnet as _alexnet_mod, densenet as _densenet_mod, mobilenet as _mobilenet_mod, resnet as _resnet_mod
from . import vgg as _vgg_mod
from ._weights import Weights, WeightsEnum, hub_checkpoint_dir
from .alexnet import *  # noqa: F401,F403
from .densenet import *  # noqa: F401,F403
from .mobilenet import *  # noqa: F401,F403
from .resnet import *  # noqa: F401,F403
from .vgg import *  # noqa: F401,F403

__all__ = ["Weights", "WeightsEnum", "hub_checkpoint_dir", "get_weight", "get_model", "list_models",
           *_alexnet_mod.__all__, *_densenet_mod.__all__, *_mobilenet_mod.__all__, *_resnet_mod.__all__,
           *_vgg_mod.__all__]


def get_weight(name: str):
    """torchvision's ``get_weight("ResNet50_Weights.IMAGENET1K_V2")``: the enum member."""
    enum_name, _, member = name.partition(".")
    cls = globals().get(enum_name)
    if not (isinstance(cls, type) and issubclass(cls, WeightsEnum)) or member not in cls.__members__:
        raise ValueError(f"get_weight: unknown weights {name!r}")
    return cls.__members__[member]


def list_models():
    """The builders this module provides (torchvision's ``list_models()``, restricted to them)."""
    return sorted(n for n in __all__ if n[:1].islower() and n not in ("get_weight", "get_model", "list_models",
                                                                      "hub_checkpoint_dir", "make_layers",
                                                                      "conv1x1", "conv3x3", "cfgs"))


def get_model(name: str, **config):
    """torchvision's ``get_model("resnet18", weights=None, num_classes=10)``."""
    if name not in list_models():
        raise ValueError(f"get_model: unknown model {name!r}; known: {', '.join(list_models())}")
    return globals()[name](**config)
