"""``torchvision.transforms`` without torch, on PIL images, Jittor Vars and numpy arrays.

Each class is torchvision's: ``ToTensor`` gives a float32 CHW Var in [0, 1] (Jittor's gives a
numpy array), ``Resize(int)`` matches the smaller edge (Jittor's makes a square),
``CenterCrop`` uses torchvision's offsets and pads when the crop is larger than the image
(Jittor's returns the image unchanged).  Where torchvision has a ``get_params`` staticmethod,
so does the shim, and the transform applies exactly what it returns.

Random transforms draw what torchvision 0.29 draws, from torch's global CPU stream replayed by
:mod:`shims.random_torch` (seeded by ``torch.manual_seed``, converted ``shims.manual_seed``):
``torch.rand(1)`` for each probability (compared with ``p`` in float32 where torchvision
compares the tensor, in float64 where it compares ``.item()``), ``torch.randint`` for crop
offsets, ``uniform_`` for angles, scales, shears, translations, sigmas and colour factors,
``randperm(4)`` for ``ColorJitter``'s order.  So the same seed picks the same parameters as
torchvision, as long as the stream is consumed as in torch (see :mod:`shims.random_torch`).
``RandomOrder`` and ``RandomChoice`` draw from Python's ``random``, as torchvision's do.
Two residues: ``RandomResizedCrop``/``RandomErasing`` take the log and exp of their aspect
ratios in float32 rounded from float64, where torch's vectorised float32 ``log``/``exp`` may
differ by one ulp (a box differs only when a side's square root falls within ~1e-7 of a
half-integer); ``RandomErasing(value='random')`` consumes the stream as torch's ``normal_``
does, its noise values agree to float32 rounding of the log/sin/cos (not bit for bit).
"""
from __future__ import annotations

import math
import numbers
import random

import numpy as np

from .. import random_torch as _rt
from . import functional as F
from .functional import InterpolationMode

__all__ = [
    "InterpolationMode", "Compose", "ToTensor", "PILToTensor", "ToPILImage", "Normalize", "Resize",
    "CenterCrop", "Pad", "Lambda", "RandomApply", "RandomChoice", "RandomOrder", "RandomCrop",
    "RandomHorizontalFlip", "RandomVerticalFlip", "RandomResizedCrop", "FiveCrop", "TenCrop",
    "ColorJitter", "RandomRotation", "Grayscale", "RandomGrayscale", "RandomAffine", "RandomErasing",
    "RandomInvert", "RandomAutocontrast", "RandomEqualize",
    "RandomPosterize", "RandomSolarize", "RandomAdjustSharpness", "GaussianBlur", "ConvertImageDtype", "functional",
]
functional = F


def _chance(p) -> bool:
    """``torch.rand(1) < p``: the tensor comparison rounds ``p`` to float32."""
    return bool(_rt.rand(1)[0] < np.float32(p))


def _chance_item(p) -> bool:
    """``torch.rand(1).item() < p``: compared as Python floats."""
    return float(_rt.rand(1)[0]) < p


def _uniform(low, high) -> float:
    """``torch.empty(1).uniform_(low, high).item()``."""
    return float(_rt.uniform(1, low, high)[0])


def _randint(low, high) -> int:
    """``torch.randint(low, high, size=(1,)).item()``."""
    return int(_rt.randint(low, high, 1)[0])


def _box(area, scale, ratio):
    """One try of torchvision's random box: (target area, aspect ratio), drawn as it draws them
    (the log-ratio bounds and the exp in float32)."""
    lo, hi = (float(np.float32(math.log(float(np.float32(r))))) for r in ratio)
    target = area * _uniform(scale[0], scale[1])
    return target, float(np.float32(math.exp(float(_rt.uniform(1, lo, hi)[0]))))


class Compose:
    """Apply the transforms in order."""

    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, img):
        for t in self.transforms:
            img = t(img)
        return img

    def __repr__(self) -> str:
        body = "".join(f"\n    {t}" for t in self.transforms)
        return f"{type(self).__name__}({body}\n)"


class _Simple:
    """A transform whose call is one functional with fixed arguments."""

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in vars(self).items())
        return f"{type(self).__name__}({args})"


class ToTensor(_Simple):
    """PIL image / HWC ndarray -> CHW Var (uint8 scaled to float32 in [0, 1])."""

    def __call__(self, pic):
        return F.to_tensor(pic)


class PILToTensor(_Simple):
    """PIL image -> CHW Var of its own dtype."""

    def __call__(self, pic):
        return F.pil_to_tensor(pic)


class ToPILImage(_Simple):
    """CHW Var / HWC ndarray -> PIL image."""

    def __init__(self, mode=None):
        self.mode = mode

    def __call__(self, pic):
        return F.to_pil_image(pic, self.mode)


class Normalize(_Simple):
    """``(x - mean) / std`` per channel of a float Var or numpy array."""

    def __init__(self, mean, std, inplace: bool = False):
        self.mean, self.std, self.inplace = mean, std, inplace

    def __call__(self, tensor):
        return F.normalize(tensor, self.mean, self.std, self.inplace)


class Resize(_Simple):
    """torchvision's ``Resize`` of a PIL image: a (h, w) size is exact, an int matches the
    smaller edge (``max_size`` bounds the longer one)."""

    def __init__(self, size, interpolation=InterpolationMode.BILINEAR, max_size=None, antialias=True):
        if not (isinstance(size, int) or (isinstance(size, (tuple, list)) and len(size) in (1, 2))):
            raise TypeError(f"Resize: size must be an int or a (h, w) sequence, got {size!r}")
        self.size, self.max_size, self.antialias = size, max_size, antialias
        self.interpolation = F.interpolation_mode(interpolation)

    def __call__(self, img):
        return F.resize(img, self.size, self.interpolation, self.max_size, self.antialias)


class CenterCrop(_Simple):
    """torchvision's center crop (padding with zeros when the crop is larger than the image)."""

    def __init__(self, size):
        self.size = F._pair(size)

    def __call__(self, img):
        return F.center_crop(img, self.size)


class Pad(_Simple):
    """``functional.pad`` with fixed padding, fill and mode."""

    def __init__(self, padding, fill=0, padding_mode="constant"):
        F._ltrb(padding)  # validates
        if padding_mode not in ("constant", "edge", "reflect", "symmetric"):
            raise ValueError("Padding mode should be either constant, edge, reflect or symmetric")
        self.padding, self.fill, self.padding_mode = padding, fill, padding_mode

    def __call__(self, img):
        return F.pad(img, self.padding, self.fill, self.padding_mode)


class Lambda(_Simple):
    """A user function as a transform."""

    def __init__(self, lambd):
        if not callable(lambd):
            raise TypeError(f"Argument lambd should be callable, got {type(lambd).__name__!r}")
        self.lambd = lambd

    def __call__(self, img):
        return self.lambd(img)


class RandomApply(_Simple):
    """All of ``transforms`` with probability ``p``, else none."""

    def __init__(self, transforms, p=0.5):
        self.transforms, self.p = transforms, p

    def __call__(self, img):
        if np.float32(self.p) < _rt.rand(1)[0]:  # torchvision: self.p < torch.rand(1)
            return img
        for t in self.transforms:
            img = t(img)
        return img


class RandomChoice(_Simple):
    """One of ``transforms``, picked with weights ``p``."""

    def __init__(self, transforms, p=None):
        self.transforms, self.p = transforms, p

    def __call__(self, *args):
        return random.choices(self.transforms, weights=self.p)[0](*args)


class RandomOrder(_Simple):
    """All of ``transforms`` in a random order."""

    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, img):
        order = list(range(len(self.transforms)))
        random.shuffle(order)
        for i in order:
            img = self.transforms[i](img)
        return img


class RandomCrop(_Simple):
    """torchvision's ``RandomCrop``: optional padding, ``pad_if_needed``, then a random crop."""

    def __init__(self, size, padding=None, pad_if_needed=False, fill=0, padding_mode="constant"):
        self.size = F._pair(size)
        self.padding, self.pad_if_needed, self.fill, self.padding_mode = padding, pad_if_needed, fill, padding_mode

    @staticmethod
    def get_params(img, output_size):
        """(top, left, height, width) of a uniformly placed crop."""
        _, h, w = F.get_dimensions(img)
        th, tw = output_size
        if h < th or w < tw:
            raise ValueError(f"Required crop size {(th, tw)} is larger than input image size {(h, w)}")
        if w == tw and h == th:
            return 0, 0, h, w
        return _randint(0, h - th + 1), _randint(0, w - tw + 1), th, tw

    def __call__(self, img):
        if self.padding is not None:
            img = F.pad(img, self.padding, self.fill, self.padding_mode)
        _, height, width = F.get_dimensions(img)
        if self.pad_if_needed and width < self.size[1]:
            img = F.pad(img, [self.size[1] - width, 0], self.fill, self.padding_mode)
        if self.pad_if_needed and height < self.size[0]:
            img = F.pad(img, [0, self.size[0] - height], self.fill, self.padding_mode)
        return F.crop(img, *self.get_params(img, self.size))


class _RandomOp(_Simple):
    """``_fn(img, *stored arguments)`` with probability ``p`` (one ``torch.rand(1)`` draw,
    compared as torchvision compares it: the tensor (float32) or its ``.item()``)."""

    _args: tuple = ()
    _item = True

    def __init__(self, *args, p=0.5):
        if len(args) != len(self._args):
            raise TypeError(f"{type(self).__name__} takes {', '.join(self._args) or 'no arguments'} and p")
        vars(self).update(zip(self._args, args))
        self.p = p

    def __call__(self, img):
        if (_chance_item if self._item else _chance)(self.p):
            return type(self)._fn(img, *(getattr(self, a) for a in self._args))
        return img


class RandomHorizontalFlip(_RandomOp):
    """Mirror left-right with probability ``p``."""

    _fn = staticmethod(F.hflip)
    _item = False  # torchvision: torch.rand(1) < self.p

    def __init__(self, p=0.5):
        super().__init__(p=p)


class RandomVerticalFlip(_RandomOp):
    """Mirror top-bottom with probability ``p``."""

    _fn = staticmethod(F.vflip)
    _item = False

    def __init__(self, p=0.5):
        super().__init__(p=p)


class RandomInvert(RandomHorizontalFlip):
    """``functional.invert`` with probability ``p``."""

    _fn = staticmethod(F.invert)
    _item = True  # torchvision: torch.rand(1).item() < self.p


class RandomAutocontrast(RandomHorizontalFlip):
    """``functional.autocontrast`` with probability ``p``."""

    _fn = staticmethod(F.autocontrast)
    _item = True  # torchvision: torch.rand(1).item() < self.p


class RandomEqualize(RandomHorizontalFlip):
    """``functional.equalize`` with probability ``p``."""

    _fn = staticmethod(F.equalize)
    _item = True  # torchvision: torch.rand(1).item() < self.p


class RandomPosterize(_RandomOp):
    """``functional.posterize(img, bits)`` with probability ``p``."""

    _fn, _args = staticmethod(F.posterize), ("bits",)

    def __init__(self, bits, p=0.5):
        super().__init__(bits, p=p)


class RandomSolarize(_RandomOp):
    """``functional.solarize(img, threshold)`` with probability ``p``."""

    _fn, _args = staticmethod(F.solarize), ("threshold",)

    def __init__(self, threshold, p=0.5):
        super().__init__(threshold, p=p)


class RandomAdjustSharpness(_RandomOp):
    """``functional.adjust_sharpness(img, sharpness_factor)`` with probability ``p``."""

    _fn, _args = staticmethod(F.adjust_sharpness), ("sharpness_factor",)

    def __init__(self, sharpness_factor, p=0.5):
        super().__init__(sharpness_factor, p=p)


class RandomResizedCrop(_Simple):
    """torchvision's ``RandomResizedCrop``: a crop of random area and aspect ratio, resized."""

    def __init__(self, size, scale=(0.08, 1.0), ratio=(3.0 / 4.0, 4.0 / 3.0),
                 interpolation=InterpolationMode.BILINEAR, antialias=True):
        self.size = F._pair(size)
        self.scale, self.ratio, self.antialias = scale, ratio, antialias
        self.interpolation = F.interpolation_mode(interpolation)

    @staticmethod
    def get_params(img, scale, ratio):
        """(top, left, height, width): ten tries at a random area/ratio, then torchvision's
        central fallback."""
        _, height, width = F.get_dimensions(img)
        area = height * width
        for _ in range(10):
            target_area, aspect_ratio = _box(area, scale, ratio)
            w = int(round(math.sqrt(target_area * aspect_ratio)))
            h = int(round(math.sqrt(target_area / aspect_ratio)))
            if 0 < w <= width and 0 < h <= height:
                return _randint(0, height - h + 1), _randint(0, width - w + 1), h, w
        in_ratio = float(width) / float(height)
        if in_ratio < min(ratio):
            w, h = width, int(round(width / min(ratio)))
        elif in_ratio > max(ratio):
            h, w = height, int(round(height * max(ratio)))
        else:
            w, h = width, height
        return (height - h) // 2, (width - w) // 2, h, w

    def __call__(self, img):
        i, j, h, w = self.get_params(img, self.scale, self.ratio)
        return F.resized_crop(img, i, j, h, w, list(self.size), self.interpolation, self.antialias)


class FiveCrop(_Simple):
    """The four corners and the center."""

    def __init__(self, size):
        self.size = F._pair(size)

    def __call__(self, img):
        return F.five_crop(img, self.size)


class TenCrop(_Simple):
    """``FiveCrop`` of the image and of its mirror image."""

    def __init__(self, size, vertical_flip=False):
        self.size, self.vertical_flip = F._pair(size), vertical_flip

    def __call__(self, img):
        return F.ten_crop(img, self.size, self.vertical_flip)


def _jitter_range(value, name, center=1.0, bound=(0, float("inf")), clip_first_on_zero=True):
    if isinstance(value, numbers.Number):
        if value < 0:
            raise ValueError(f"If {name} is a single number, it must be non negative.")
        value = [center - float(value), center + float(value)]
        if clip_first_on_zero:
            value[0] = max(value[0], 0.0)
    elif isinstance(value, (tuple, list)) and len(value) == 2:
        value = [float(value[0]), float(value[1])]
    else:
        raise TypeError(f"{name} should be a single number or a list/tuple with length 2.")
    if not bound[0] <= value[0] <= value[1] <= bound[1]:
        raise ValueError(f"{name} values should be between {bound}, but got {value}.")
    return None if value[0] == value[1] == center else tuple(value)


class ColorJitter(_Simple):
    """Brightness, contrast, saturation and hue factors drawn per call, applied in a random order."""

    def __init__(self, brightness=0, contrast=0, saturation=0, hue=0):
        self.brightness = _jitter_range(brightness, "brightness")
        self.contrast = _jitter_range(contrast, "contrast")
        self.saturation = _jitter_range(saturation, "saturation")
        self.hue = _jitter_range(hue, "hue", center=0, bound=(-0.5, 0.5), clip_first_on_zero=False)

    @staticmethod
    def get_params(brightness, contrast, saturation, hue):
        """(order of the four adjustments, brightness, contrast, saturation, hue factors)."""
        order = _rt.randperm(4)
        return (order, *(None if r is None else _uniform(r[0], r[1])
                         for r in (brightness, contrast, saturation, hue)))

    def __call__(self, img):
        order, *factors = self.get_params(self.brightness, self.contrast, self.saturation, self.hue)
        fns = (F.adjust_brightness, F.adjust_contrast, F.adjust_saturation, F.adjust_hue)
        for i in order:
            if factors[i] is not None:
                img = fns[i](img, factors[i])
        return img


def _angles(value, name, sizes=(2,)):
    """torchvision's ``_setup_angle``: ``d`` -> ``[-d, d]``; a sequence of an allowed length."""
    if isinstance(value, numbers.Number):
        if value < 0:
            raise ValueError(f"If {name} is a single number, it must be positive.")
        value = [-value, value]
    elif not (isinstance(value, (list, tuple)) and len(value) in sizes):
        raise ValueError(f"{name} should be a single number or a sequence of length {' or '.join(map(str, sizes))}.")
    return [float(d) for d in value]


class RandomRotation(_Simple):
    """Rotate by an angle drawn uniformly from ``degrees``."""

    def __init__(self, degrees, interpolation=InterpolationMode.NEAREST, expand=False, center=None, fill=0):
        self.degrees = _angles(degrees, "degrees")
        self.interpolation = F.interpolation_mode(interpolation)
        self.expand, self.center, self.fill = expand, center, 0 if fill is None else fill

    @staticmethod
    def get_params(degrees):
        """The angle, uniform in ``degrees``."""
        return _uniform(float(degrees[0]), float(degrees[1]))

    def __call__(self, img):
        angle = self.get_params(self.degrees)
        return F.rotate(img, angle, self.interpolation, self.expand, self.center, self.fill)


class Grayscale(_Simple):
    """PIL ``convert('L')``, repeated into 3 channels when asked."""

    def __init__(self, num_output_channels=1):
        self.num_output_channels = num_output_channels

    def __call__(self, img):
        return F.to_grayscale(img, self.num_output_channels)


class RandomGrayscale(_Simple):
    """Grayscale with probability ``p``, keeping the number of channels."""

    def __init__(self, p=0.1):
        self.p = p

    def __call__(self, img):
        channels = F.get_image_num_channels(img)
        return F.to_grayscale(img, channels) if _chance(self.p) else img


class RandomAffine(_Simple):
    """torchvision's ``RandomAffine`` of a PIL image: angle, translation, scale and shear drawn
    per call (``get_params``), applied by ``functional.affine``."""

    def __init__(self, degrees, translate=None, scale=None, shear=None, interpolation=InterpolationMode.NEAREST,
                 fill=0, center=None):
        self.degrees = _angles(degrees, "degrees")
        if translate is not None and not (len(translate) == 2 and all(0.0 <= t <= 1.0 for t in translate)):
            raise ValueError("translate should be a pair of values between 0 and 1")
        if scale is not None and not (len(scale) == 2 and all(v > 0 for v in scale)):
            raise ValueError("scale should be a pair of positive values")
        self.translate, self.scale, self.center = translate, scale, center
        self.shear = None if shear is None else _angles(shear, "shear", (2, 4))
        self.interpolation = F.interpolation_mode(interpolation)
        self.fill = 0 if fill is None else fill

    @staticmethod
    def get_params(degrees, translate, scale_ranges, shears, img_size):
        """(angle, (tx, ty), scale, (shear_x, shear_y)); ``img_size`` is (width, height)."""
        angle = _uniform(float(degrees[0]), float(degrees[1]))
        translations = (0, 0)
        if translate is not None:
            max_dx, max_dy = float(translate[0] * img_size[0]), float(translate[1] * img_size[1])
            tx = int(round(_uniform(-max_dx, max_dx)))
            translations = (tx, int(round(_uniform(-max_dy, max_dy))))
        scale = 1.0 if scale_ranges is None else _uniform(scale_ranges[0], scale_ranges[1])
        shear = [0.0, 0.0]
        if shears is not None:
            shear[0] = _uniform(shears[0], shears[1])
            if len(shears) == 4:
                shear[1] = _uniform(shears[2], shears[3])
        return angle, translations, scale, tuple(shear)

    def __call__(self, img):
        _, height, width = F.get_dimensions(img)
        params = self.get_params(self.degrees, self.translate, self.scale, self.shear, [width, height])
        return F.affine(img, *params, interpolation=self.interpolation, fill=self.fill, center=self.center)


class RandomErasing(_Simple):
    """torchvision's ``RandomErasing`` of a (..., C, H, W) Var or array; ``value='random'``
    draws normal noise as torch's ``normal_`` draws it (:func:`shims.random_torch.normal`)."""

    def __init__(self, p=0.5, scale=(0.02, 0.33), ratio=(0.3, 3.3), value=0, inplace=False):
        if isinstance(value, str) and value != "random":
            raise ValueError("If value is str, it should be 'random'")
        if scale[0] < 0 or scale[1] > 1:
            raise ValueError("Scale should be between 0 and 1")
        if p < 0 or p > 1:
            raise ValueError("Random erasing probability should be between 0 and 1")
        self.p, self.scale, self.ratio, self.value, self.inplace = p, scale, ratio, value, inplace

    @staticmethod
    def get_params(img, scale, ratio, value=None):
        """(i, j, h, w, v): ten tries at a random area/ratio box; else the whole image, unchanged."""
        img_c, img_h, img_w = F.get_dimensions(img)
        area = img_h * img_w
        for _ in range(10):
            erase_area, aspect_ratio = _box(area, scale, ratio)
            h = int(round(math.sqrt(erase_area * aspect_ratio)))
            w = int(round(math.sqrt(erase_area / aspect_ratio)))
            if not (h < img_h and w < img_w):
                continue
            v = (_rt.normal((img_c, h, w)) if value is None
                 else np.asarray(value, np.float32)[:, None, None])
            return _randint(0, img_h - h + 1), _randint(0, img_w - w + 1), h, w, v
        return 0, 0, img_h, img_w, img

    def __call__(self, img):
        if not _chance(self.p):
            return img
        value = None if isinstance(self.value, str) else (
            [float(self.value)] if isinstance(self.value, numbers.Number) else [float(v) for v in self.value])
        channels = F.get_image_num_channels(img)
        if value is not None and len(value) not in (1, channels):
            raise ValueError("If value is a sequence, it should have either a single value or "
                             f"{channels} (number of input channels)")
        i, j, h, w, v = self.get_params(img, self.scale, self.ratio, value)
        if v is img:
            return img
        return F.erase(img, i, j, h, w, v, self.inplace)


class GaussianBlur(_Simple):
    """torchvision's ``GaussianBlur``: sigma drawn uniformly from ``sigma`` per call."""

    def __init__(self, kernel_size, sigma=(0.1, 2.0)):
        self.kernel_size = F._pair(kernel_size)
        if any(k <= 0 or k % 2 == 0 for k in self.kernel_size):
            raise ValueError("Kernel size value should be an odd and positive number.")
        if isinstance(sigma, numbers.Number):
            if sigma <= 0:
                raise ValueError("If sigma is a single number, it must be positive.")
            sigma = (sigma, sigma)
        elif not (isinstance(sigma, (list, tuple)) and len(sigma) == 2 and 0.0 < sigma[0] <= sigma[1]):
            raise ValueError("sigma should be a single number or a (min, max) pair of positive values.")
        self.sigma = sigma

    @staticmethod
    def get_params(sigma_min, sigma_max):
        """The sigma, uniform in [sigma_min, sigma_max]."""
        return _uniform(sigma_min, sigma_max)

    def __call__(self, img):
        sigma = self.get_params(self.sigma[0], self.sigma[1])
        return F.gaussian_blur(img, list(self.kernel_size), [sigma, sigma])


class ConvertImageDtype(_Simple):
    """``functional.convert_image_dtype`` to a fixed dtype."""

    def __init__(self, dtype):
        self.dtype = dtype

    def __call__(self, image):
        return F.convert_image_dtype(image, self.dtype)
