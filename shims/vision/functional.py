"""``torchvision.transforms.functional`` without torch: PIL images as torchvision's PIL backend
treats them; "tensors" are Jittor Vars (``to_tensor`` makes float32 CHW Vars in [0, 1]) or numpy
CHW arrays for the geometric ops (crop, flip, pad with a constant) and ``normalize``."""
from __future__ import annotations

import math
import numbers
import sys
from enum import Enum

import jittor as jt
import numpy as np
from PIL import Image, ImageEnhance, ImageOps

__all__ = [
    "InterpolationMode", "get_dimensions", "get_image_size", "get_image_num_channels", "to_tensor",
    "pil_to_tensor", "to_pil_image", "normalize", "resize", "pad", "crop", "center_crop",
    "resized_crop", "hflip", "vflip", "five_crop", "ten_crop", "adjust_brightness",
    "adjust_contrast", "adjust_saturation", "adjust_hue", "adjust_gamma", "rotate", "to_grayscale",
    "rgb_to_grayscale", "invert", "affine", "erase", "posterize", "solarize", "adjust_sharpness",
    "autocontrast", "equalize", "gaussian_blur", "convert_image_dtype",
]


class InterpolationMode(Enum):
    """torchvision's interpolation names; PIL filter numbers are accepted wherever a mode is."""

    NEAREST = "nearest"
    NEAREST_EXACT = "nearest-exact"
    BILINEAR = "bilinear"
    BICUBIC = "bicubic"
    BOX = "box"
    HAMMING = "hamming"
    LANCZOS = "lanczos"


_PIL_MODES = {InterpolationMode.NEAREST: Image.NEAREST, InterpolationMode.NEAREST_EXACT: Image.NEAREST,
              InterpolationMode.BILINEAR: Image.BILINEAR, InterpolationMode.BICUBIC: Image.BICUBIC,
              InterpolationMode.BOX: Image.BOX, InterpolationMode.HAMMING: Image.HAMMING,
              InterpolationMode.LANCZOS: Image.LANCZOS}
_FROM_INT = {0: InterpolationMode.NEAREST, 2: InterpolationMode.BILINEAR, 3: InterpolationMode.BICUBIC,
             4: InterpolationMode.BOX, 5: InterpolationMode.HAMMING, 1: InterpolationMode.LANCZOS}


def interpolation_mode(mode) -> InterpolationMode:
    """An :class:`InterpolationMode` from itself or a PIL filter number (torchvision accepts both)."""
    if isinstance(mode, InterpolationMode):
        return mode
    if isinstance(mode, int) and mode in _FROM_INT:
        return _FROM_INT[mode]
    raise TypeError("Argument interpolation should be a InterpolationMode or a corresponding Pillow "
                    f"integer constant, got {mode!r}")


def _fromarray(arr: np.ndarray, mode: str) -> Image.Image:
    """``Image.fromarray(arr, mode)`` with the pre-Pillow-11.3 meaning torchvision keeps: the
    bytes are read in ``mode`` (Pillow 11.3 deprecated the ``mode`` argument)."""
    arr = np.ascontiguousarray(arr)
    return Image.frombuffer(mode, (arr.shape[1], arr.shape[0]), arr.tobytes(), "raw", mode, 0, 1)


def _is_pil(img) -> bool:
    return isinstance(img, Image.Image)


def _check_image(img, fn: str, pil_only: bool = False):
    if _is_pil(img) or (not pil_only and isinstance(img, (np.ndarray, jt.Var))):
        return
    kinds = "a PIL Image" if pil_only else "a PIL Image, a Jittor Var or a numpy array"
    raise TypeError(f"{fn}: img should be {kinds}, got {type(img).__name__}")


def get_dimensions(img) -> list:
    """``[channels, height, width]`` of a PIL image or a (..., C, H, W) array/Var."""
    _check_image(img, "get_dimensions")
    if _is_pil(img):
        return [len(img.getbands()), img.height, img.width]
    shape = tuple(img.shape)
    return [shape[-3] if len(shape) > 2 else 1, shape[-2], shape[-1]]


def get_image_size(img) -> list:
    """``[width, height]``, as torchvision."""
    _, h, w = get_dimensions(img)
    return [w, h]


def get_image_num_channels(img) -> int:
    """The number of channels (bands of a PIL image)."""
    return get_dimensions(img)[0]


def _pil_array(pic: Image.Image) -> np.ndarray:
    dtypes = {"I": np.int32, "I;16" if sys.byteorder == "little" else "I;16B": np.int16, "F": np.float32}
    arr = np.array(pic, dtypes.get(pic.mode, np.uint8), copy=True)
    if pic.mode == "1":
        arr = 255 * arr
    return arr.reshape(pic.height, pic.width, len(pic.getbands()))


def to_tensor(pic) -> jt.Var:
    """torchvision's ``to_tensor``: a PIL image or an HWC ndarray -> a CHW Var; uint8 data is
    scaled to float32 in [0, 1], other dtypes keep their values."""
    if _is_pil(pic):
        arr = _pil_array(pic)
    elif isinstance(pic, np.ndarray):
        if pic.ndim not in (2, 3):
            raise ValueError(f"to_tensor: pic should be 2/3 dimensional. Got {pic.ndim} dimensions.")
        arr = pic[:, :, None] if pic.ndim == 2 else pic
    else:
        raise TypeError(f"to_tensor: pic should be PIL Image or ndarray. Got {type(pic).__name__}")
    arr = np.ascontiguousarray(arr.transpose(2, 0, 1))
    if arr.dtype == np.uint8:
        arr = arr.astype(np.float32) / np.float32(255)
    return jt.array(arr)


def pil_to_tensor(pic) -> jt.Var:
    """torchvision's ``pil_to_tensor``: the PIL image's pixels as a CHW Var of their own dtype."""
    _check_image(pic, "pil_to_tensor", pil_only=True)
    return jt.array(np.ascontiguousarray(_pil_array(pic).transpose(2, 0, 1)))


def to_pil_image(pic, mode=None) -> Image.Image:
    """torchvision's ``to_pil_image``: a CHW Var or an HWC ndarray -> a PIL image; float data is
    ``(x * 255).astype(uint8)`` (truncated, as torchvision), modes inferred the same way."""
    if isinstance(pic, jt.Var):
        pic = pic.numpy()
        if pic.ndim == 3:
            pic = pic.transpose(1, 2, 0)
    elif not isinstance(pic, np.ndarray):
        raise TypeError(f"pic should be Var or ndarray. Got {type(pic).__name__}.")
    if pic.ndim == 2:
        pic = pic[:, :, None]
    if pic.ndim != 3:
        raise ValueError(f"pic should be 2/3 dimensional. Got {pic.ndim} dimensions.")
    if pic.shape[-1] > 4:
        raise ValueError(f"pic should not have > 4 channels. Got {pic.shape[-1]} channels.")
    if np.issubdtype(pic.dtype, np.floating) and mode != "F":
        pic = (pic * 255).astype(np.uint8)
    channels = pic.shape[2]
    if channels == 1:
        pic = pic[:, :, 0]
        expected = {np.dtype(np.uint8): "L", np.dtype(np.int16): "I;16", np.dtype(np.int32): "I",
                    np.dtype(np.float32): "F"}.get(pic.dtype)
        if mode is not None and mode != expected:
            raise ValueError(f"Incorrect mode ({mode}) supplied for input type {pic.dtype}. Should be {expected}")
        mode = expected
    else:
        permitted = {2: ["LA"], 3: ["RGB", "YCbCr", "HSV"], 4: ["RGBA", "CMYK", "RGBX"]}[channels]
        if mode is not None and mode not in permitted:
            raise ValueError(f"Only modes {permitted} are supported for {channels}-channel inputs")
        if mode is None and pic.dtype == np.uint8:
            mode = permitted[0]
    if mode is None:
        raise TypeError(f"Input type {pic.dtype} is not supported")
    return _fromarray(pic, mode)


def normalize(tensor, mean, std, inplace: bool = False):
    """``(tensor - mean) / std`` per channel of a (..., C, H, W) float Var or numpy array, in
    the tensor's dtype; ``inplace`` writes into ``tensor`` and returns it."""
    if not isinstance(tensor, (jt.Var, np.ndarray)):
        raise TypeError(f"normalize: tensor should be a Jittor Var or numpy array. Got {type(tensor).__name__}.")
    dtype = np.dtype(str(tensor.dtype))
    if dtype.kind != "f":
        raise TypeError(f"Input tensor should be a float tensor. Got {tensor.dtype}.")
    if tensor.ndim < 3:
        raise ValueError("Expected tensor to be a tensor image of size (..., C, H, W). Got tensor.size() = "
                         f"{tuple(tensor.shape)}")
    mean = np.asarray(mean, dtype)
    std = np.asarray(std, dtype)
    if (std == 0).any():
        raise ValueError(f"std evaluated to zero after conversion to {dtype}, leading to division by zero.")
    mean = mean.reshape(-1, 1, 1) if mean.ndim == 1 else mean
    std = std.reshape(-1, 1, 1) if std.ndim == 1 else std
    if isinstance(tensor, np.ndarray):
        out = tensor if inplace else tensor.copy()
        np.subtract(out, mean, out=out)
        np.divide(out, std, out=out)
        return out
    out = (tensor - jt.array(mean)) / jt.array(std)
    if inplace:
        tensor.assign(out)
        return tensor
    return out


def _output_size(h: int, w: int, size, max_size=None) -> list:
    """torchvision's ``_compute_resized_output_size``: an int (or 1-list) matches the smaller edge."""
    if isinstance(size, int):
        size = [size]
    if len(size) == 1:
        short, long = (w, h) if w <= h else (h, w)
        new_short, new_long = size[0], int(size[0] * long / short)
        if max_size is not None:
            if max_size <= size[0]:
                raise ValueError(f"max_size = {max_size} must be strictly greater than the requested size "
                                 f"for the smaller edge size = {size}")
            if new_long > max_size:
                new_short, new_long = int(max_size * new_short / new_long), max_size
        new_w, new_h = (new_short, new_long) if w <= h else (new_long, new_short)
        return [new_h, new_w]
    if max_size is not None:
        raise ValueError("max_size should only be passed if size specifies the length of the smaller edge")
    return [size[0], size[1]]


def resize(img, size, interpolation=InterpolationMode.BILINEAR, max_size=None, antialias=True):
    """torchvision's ``resize`` of a PIL image (PIL always antialiases, as torchvision says)."""
    _check_image(img, "resize", pil_only=True)
    mode = interpolation_mode(interpolation)
    if not isinstance(size, (int, list, tuple)) or (not isinstance(size, int) and len(size) not in (1, 2)):
        raise TypeError(f"Size should be an int or a sequence of 1 or 2 ints, got {size!r}")
    out = _output_size(img.height, img.width, list(size) if not isinstance(size, int) else size, max_size)
    if [img.height, img.width] == out:
        return img
    return img.resize((out[1], out[0]), _PIL_MODES[mode])


def _parse_fill(fill, img: Image.Image):
    """torchvision's ``_parse_fill``: a fill value PIL accepts for ``img``."""
    bands = len(img.getbands())
    fill = 0 if fill is None else fill
    if isinstance(fill, (int, float)) and bands > 1:
        fill = tuple([fill] * bands)
    if isinstance(fill, (list, tuple)):
        if len(fill) == 1:
            fill = tuple(fill) * bands
        elif len(fill) != bands:
            raise ValueError("The number of elements in 'fill' does not match the number of channels of the "
                             f"image ({len(fill)} != {bands})")
        fill = tuple(fill)
    if img.mode != "F":
        fill = tuple(int(x) for x in fill) if isinstance(fill, tuple) else int(fill)
    return fill


def _ltrb(padding) -> list:
    if isinstance(padding, numbers.Number):
        return [int(padding)] * 4
    padding = list(padding)
    if len(padding) == 1:
        return padding * 4
    if len(padding) == 2:
        return [padding[0], padding[1], padding[0], padding[1]]
    if len(padding) == 4:
        return padding
    raise ValueError(f"Padding must be an int or a 1, 2, or 4 element tuple, not a {len(padding)} element tuple")


def pad(img, padding, fill=0, padding_mode: str = "constant"):
    """torchvision's ``pad``: (left, top, right, bottom) from an int, a pair or a 4-sequence;
    modes constant/edge/reflect/symmetric on PIL images, constant on arrays and Vars."""
    _check_image(img, "pad")
    if padding_mode not in ("constant", "edge", "reflect", "symmetric"):
        raise ValueError("Padding mode should be either constant, edge, reflect or symmetric")
    left, top, right, bottom = _ltrb(padding)
    if not _is_pil(img):
        if padding_mode != "constant":
            raise NotImplementedError(f"pad: padding_mode={padding_mode!r} is supported on PIL images only")
        return _pad_array(img, left, top, right, bottom, fill)
    if padding_mode == "constant":
        border = padding if isinstance(padding, numbers.Number) else tuple(_ltrb(padding))
        out = ImageOps.expand(img, border=border, fill=_parse_fill(fill, img))
        if img.mode == "P":
            out.putpalette(img.getpalette())
        return out
    p = np.array([left, top, right, bottom])
    cut = -np.minimum(p, 0)
    if cut.any():
        img = img.crop((cut[0], cut[1], img.width - cut[2], img.height - cut[3]))
    left, top, right, bottom = np.maximum(p, 0)
    arr = np.asarray(img)
    widths = ((top, bottom), (left, right)) + (((0, 0),) if arr.ndim == 3 else ())
    out = Image.fromarray(np.pad(arr, widths, padding_mode))
    if img.mode == "P":
        out.putpalette(img.getpalette())
    return out


def _pad_array(img, left, top, right, bottom, fill):
    if isinstance(img, jt.Var):  # constant blocks concatenated: differentiable w.r.t. img
        for dim, before, after in ((-1, left, right), (-2, top, bottom)):
            shape = list(img.shape)
            parts = []
            for n, at_end in ((before, False), (after, True)):
                if n:
                    shape[dim] = n
                    parts.append((at_end, jt.full(shape, fill, img.dtype)))
            if parts:
                img = jt.concat([p for e, p in parts if not e] + [img] + [p for e, p in parts if e], dim)
        return img
    widths = [(0, 0)] * (img.ndim - 2) + [(top, bottom), (left, right)]
    return np.pad(img, widths, constant_values=fill)


def crop(img, top: int, left: int, height: int, width: int):
    """The ``height x width`` box at (top, left); outside the image is zero, as torchvision."""
    _check_image(img, "crop")
    if _is_pil(img):
        return img.crop((left, top, left + width, top + height))
    _, h, w = get_dimensions(img)
    right, bottom = left + width, top + height
    if left < 0 or top < 0 or right > w or bottom > h:
        inside = img[..., max(top, 0):min(bottom, h), max(left, 0):min(right, w)]
        return _pad_array(inside, max(-left, 0), max(-top, 0), max(right - w, 0), max(bottom - h, 0), 0)
    return img[..., top:bottom, left:right]


def _pair(size, name: str = "size") -> tuple:
    if isinstance(size, numbers.Number):
        return int(size), int(size)
    if isinstance(size, (list, tuple)) and len(size) == 1:
        return size[0], size[0]
    if isinstance(size, (list, tuple)) and len(size) == 2:
        return size[0], size[1]
    raise ValueError(f"Please provide only two dimensions (h, w) for {name}, got {size!r}")


def center_crop(img, output_size):
    """torchvision's ``center_crop``: offsets ``round((H - h) / 2)``; an image smaller than the
    crop is first padded with zeros, the odd pixel going right/bottom."""
    crop_h, crop_w = _pair(output_size)
    _, h, w = get_dimensions(img)
    if crop_w > w or crop_h > h:
        ltrb = [(crop_w - w) // 2 if crop_w > w else 0, (crop_h - h) // 2 if crop_h > h else 0,
                (crop_w - w + 1) // 2 if crop_w > w else 0, (crop_h - h + 1) // 2 if crop_h > h else 0]
        img = pad(img, ltrb, fill=0)
        _, h, w = get_dimensions(img)
        if crop_w == w and crop_h == h:
            return img
    return crop(img, int(round((h - crop_h) / 2.0)), int(round((w - crop_w) / 2.0)), crop_h, crop_w)


def resized_crop(img, top, left, height, width, size, interpolation=InterpolationMode.BILINEAR, antialias=True):
    """``crop`` then ``resize``."""
    return resize(crop(img, top, left, height, width), size, interpolation, antialias=antialias)


def hflip(img):
    """Mirror left-right."""
    _check_image(img, "hflip")
    if _is_pil(img):
        return img.transpose(Image.FLIP_LEFT_RIGHT)
    return img.flip(-1) if isinstance(img, jt.Var) else img[..., ::-1].copy()


def vflip(img):
    """Mirror top-bottom."""
    _check_image(img, "vflip")
    if _is_pil(img):
        return img.transpose(Image.FLIP_TOP_BOTTOM)
    return img.flip(-2) if isinstance(img, jt.Var) else img[..., ::-1, :].copy()


def five_crop(img, size) -> tuple:
    """The four corner crops and the center crop, in torchvision's order."""
    crop_h, crop_w = _pair(size)
    _, h, w = get_dimensions(img)
    if crop_w > w or crop_h > h:
        raise ValueError(f"Requested crop size {(crop_h, crop_w)} is bigger than input size {(h, w)}")
    return (crop(img, 0, 0, crop_h, crop_w), crop(img, 0, w - crop_w, crop_h, crop_w),
            crop(img, h - crop_h, 0, crop_h, crop_w), crop(img, h - crop_h, w - crop_w, crop_h, crop_w),
            center_crop(img, [crop_h, crop_w]))


def ten_crop(img, size, vertical_flip: bool = False) -> tuple:
    """``five_crop`` of the image and of its (horizontal, or vertical) mirror image."""
    return five_crop(img, size) + five_crop(vflip(img) if vertical_flip else hflip(img), size)


def _enhance(kind, img, factor):
    _check_image(img, f"adjust_{kind.__name__.lower()}", pil_only=True)
    return kind(img).enhance(factor)


def adjust_brightness(img, brightness_factor: float):
    """PIL's ``ImageEnhance.Brightness``, as torchvision's PIL backend."""
    return _enhance(ImageEnhance.Brightness, img, brightness_factor)


def adjust_contrast(img, contrast_factor: float):
    """PIL's ``ImageEnhance.Contrast``, as torchvision's PIL backend."""
    return _enhance(ImageEnhance.Contrast, img, contrast_factor)


def adjust_saturation(img, saturation_factor: float):
    """PIL's ``ImageEnhance.Color``, as torchvision's PIL backend."""
    return _enhance(ImageEnhance.Color, img, saturation_factor)


def adjust_hue(img, hue_factor: float):
    """Shift the HSV hue channel by ``hue_factor * 255`` (uint8 wrap-around), as torchvision."""
    if not -0.5 <= hue_factor <= 0.5:
        raise ValueError(f"hue_factor ({hue_factor}) is not in [-0.5, 0.5].")
    _check_image(img, "adjust_hue", pil_only=True)
    if img.mode in {"L", "1", "I", "F"}:
        return img
    h, s, v = img.convert("HSV").split()
    np_h = np.array(h, dtype=np.uint8)
    np_h += np.int32(hue_factor * 255).astype(np.uint8)
    return Image.merge("HSV", (_fromarray(np_h, "L"), s, v)).convert(img.mode)


def adjust_gamma(img, gamma: float, gain: float = 1):
    """torchvision's PIL gamma table ``int(255.999 * gain * (x / 255) ** gamma)``."""
    _check_image(img, "adjust_gamma", pil_only=True)
    if gamma < 0:
        raise ValueError("Gamma should be a non-negative real number")
    mode = img.mode
    table = [int((255 + 1 - 1e-3) * gain * pow(e / 255.0, gamma)) for e in range(256)] * 3
    return img.convert("RGB").point(table).convert(mode)


def rotate(img, angle: float, interpolation=InterpolationMode.NEAREST, expand: bool = False, center=None,
           fill=None):
    """PIL's ``rotate`` counter-clockwise by ``angle`` degrees, fill as torchvision parses it."""
    _check_image(img, "rotate", pil_only=True)
    mode = _PIL_MODES[interpolation_mode(interpolation)]
    return img.rotate(angle, mode, expand, center, fillcolor=_parse_fill(fill, img))


def to_grayscale(img, num_output_channels: int = 1):
    """PIL ``convert('L')``; with 3 output channels the gray plane is repeated into RGB."""
    _check_image(img, "to_grayscale", pil_only=True)
    if num_output_channels not in (1, 3):
        raise ValueError("num_output_channels should be either 1 or 3")
    gray = img.convert("L")
    if num_output_channels == 1:
        return gray
    g = np.array(gray, dtype=np.uint8)
    return _fromarray(np.dstack([g, g, g]), "RGB")


rgb_to_grayscale = to_grayscale


def invert(img):
    """PIL's ``ImageOps.invert``."""
    _check_image(img, "invert", pil_only=True)
    return ImageOps.invert(img)


def posterize(img, bits: int):
    """PIL's ``ImageOps.posterize``: keep the ``bits`` high bits of each channel."""
    if not 0 <= bits <= 8:
        raise ValueError(f"The number if bits should be between 0 and 8. Got {bits}")
    _check_image(img, "posterize", pil_only=True)
    return ImageOps.posterize(img, bits)


def solarize(img, threshold: float):
    """PIL's ``ImageOps.solarize``: invert the pixels at or above ``threshold``."""
    _check_image(img, "solarize", pil_only=True)
    return ImageOps.solarize(img, threshold)


def adjust_sharpness(img, sharpness_factor: float):
    """PIL's ``ImageEnhance.Sharpness``, as torchvision's PIL backend."""
    return _enhance(ImageEnhance.Sharpness, img, sharpness_factor)


def autocontrast(img):
    """PIL's ``ImageOps.autocontrast``."""
    _check_image(img, "autocontrast", pil_only=True)
    return ImageOps.autocontrast(img)


def equalize(img):
    """PIL's ``ImageOps.equalize``."""
    _check_image(img, "equalize", pil_only=True)
    return ImageOps.equalize(img)


def _inverse_affine_matrix(center, angle, translate, scale, shear) -> list:
    """torchvision's ``_get_inverse_affine_matrix`` (the output-to-input map PIL wants)."""
    rot, sx, sy = math.radians(angle), math.radians(shear[0]), math.radians(shear[1])
    (cx, cy), (tx, ty) = center, translate
    a = math.cos(rot - sy) / math.cos(sy)
    b = -math.cos(rot - sy) * math.tan(sx) / math.cos(sy) - math.sin(rot)
    c = math.sin(rot - sy) / math.cos(sy)
    d = -math.sin(rot - sy) * math.tan(sx) / math.cos(sy) + math.cos(rot)
    m = [x / scale for x in (d, -b, 0.0, -c, a, 0.0)]
    m[2] += m[0] * (-cx - tx) + m[1] * (-cy - ty)
    m[5] += m[3] * (-cx - tx) + m[4] * (-cy - ty)
    m[2] += cx
    m[5] += cy
    return m


def affine(img, angle, translate, scale, shear, interpolation=InterpolationMode.NEAREST, fill=None, center=None):
    """torchvision's ``affine`` of a PIL image: rotate ``angle`` degrees about ``center`` (the
    image centre by default), scale, shear (degrees, x and y), then translate (pixels)."""
    _check_image(img, "affine", pil_only=True)
    if scale <= 0.0:
        raise ValueError("Argument scale should be positive")
    if len(translate) != 2:
        raise ValueError("Argument translate should be a sequence of length 2")
    shear = [shear, 0.0] if isinstance(shear, numbers.Number) else list(shear)
    shear = shear * 2 if len(shear) == 1 else shear
    if len(shear) != 2:
        raise ValueError(f"Shear should be a sequence containing two values. Got {shear}")
    center = [img.width * 0.5, img.height * 0.5] if center is None else center
    matrix = _inverse_affine_matrix(center, float(angle), list(translate), scale, shear)
    return img.transform(img.size, Image.AFFINE, matrix, _PIL_MODES[interpolation_mode(interpolation)],
                         fillcolor=_parse_fill(fill, img))


def erase(img, i: int, j: int, h: int, w: int, v, inplace: bool = False):
    """The (..., C, H, W) Var or array with the ``h x w`` box at (i, j) replaced by ``v``
    (broadcast to ``(C, h, w)``).  A Var is rebuilt with ``where``, never written through a
    clone (Jittor's ``clone`` can share storage)."""
    if not isinstance(img, (jt.Var, np.ndarray)):
        raise TypeError(f"img should be Tensor Image. Got {type(img).__name__}")
    shape = tuple(img.shape)
    dtype = np.dtype(str(img.dtype))
    values = np.asarray(v.numpy() if isinstance(v, jt.Var) else v, dtype)
    box = np.broadcast_to(values, (shape[-3], h, w))
    if isinstance(img, np.ndarray):
        out = img if inplace else img.copy()
        out[..., i:i + h, j:j + w] = box
        return out
    full = np.zeros(shape[-3:], dtype)
    full[..., i:i + h, j:j + w] = box
    mask = np.zeros(shape[-3:], bool)
    mask[..., i:i + h, j:j + w] = True
    out = jt.where(jt.array(np.broadcast_to(mask, shape).copy()), jt.array(np.broadcast_to(full, shape).copy()), img)
    if inplace:
        img.assign(out)
        return img
    return out


def _gaussian_kernel1d(size: int, sigma: float) -> np.ndarray:
    half = (size - 1) * 0.5
    x = np.linspace(-half, half, size, dtype=np.float32)
    pdf = np.exp(np.float32(-0.5) * (x / np.float32(sigma)) ** 2)
    return pdf / pdf.sum()


def gaussian_blur(img, kernel_size, sigma=None):
    """torchvision's ``gaussian_blur``: a float32 Gaussian kernel (``sigma`` defaults to
    ``0.15 * k + 0.35``), reflect padding, rounding back to integers.  PIL images and numpy
    arrays; a Var is blurred through numpy (not differentiable)."""
    ks = [kernel_size, kernel_size] if isinstance(kernel_size, int) else list(kernel_size)
    if len(ks) != 2 or any(k % 2 == 0 or k < 0 for k in ks):
        raise ValueError(f"kernel_size should have odd and positive integers. Got {kernel_size}")
    sig = [k * 0.15 + 0.35 for k in ks] if sigma is None else (
        [float(sigma)] * 2 if isinstance(sigma, (int, float)) else list(sigma) * (2 if len(sigma) == 1 else 1))
    if len(sig) != 2 or any(s <= 0 for s in sig):
        raise ValueError(f"sigma should be one or two positive values. Got {sigma}")
    _check_image(img, "gaussian_blur")
    arr = (_pil_array(img).transpose(2, 0, 1) if _is_pil(img)
           else img.numpy() if isinstance(img, jt.Var) else np.asarray(img))
    work = arr.astype(np.float32) if arr.dtype.kind != "f" else arr
    kernel = np.outer(_gaussian_kernel1d(ks[1], sig[1]), _gaussian_kernel1d(ks[0], sig[0])).astype(work.dtype)
    px, py = ks[0] // 2, ks[1] // 2
    padded = np.pad(work, [(0, 0)] * (work.ndim - 2) + [(py, py), (px, px)], mode="reflect")
    h, w = work.shape[-2:]
    out = np.zeros_like(work)
    for dy in range(ks[1]):
        for dx in range(ks[0]):
            out += kernel[dy, dx] * padded[..., dy:dy + h, dx:dx + w]
    if arr.dtype.kind != "f":
        out = np.round(out).astype(arr.dtype)
    if _is_pil(img):
        return to_pil_image(out.transpose(1, 2, 0), mode=img.mode)
    return jt.array(out) if isinstance(img, jt.Var) else out


_INT_MAX = {np.dtype(np.uint8): 255, np.dtype(np.int8): 127, np.dtype(np.int16): 32767,
            np.dtype(np.int32): 2 ** 31 - 1, np.dtype(np.int64): 2 ** 63 - 1}


def convert_image_dtype(image, dtype=jt.float32):
    """torchvision's ``convert_image_dtype`` of a Var: integers scale to [0, 1] floats, floats
    to integers by ``x * (max + 1 - 1e-3)``, integers to integers by a power-of-two factor."""
    if not isinstance(image, jt.Var):
        raise TypeError("Input img should be Tensor Image")
    src, dst = np.dtype(str(image.dtype)), np.dtype(str(jt.dtype(dtype) if not isinstance(dtype, str) else dtype))
    if src == dst:
        return image
    if src.kind == "f":
        if dst.kind == "f":
            return image.cast(str(dst))
        if (src == np.float32 and dst in (np.int32, np.int64)) or (src == np.float64 and dst == np.int64):
            raise RuntimeError(f"The cast from {src} to {dst} cannot be performed safely.")
        return (image * (float(_INT_MAX[dst]) + 1.0 - 1e-3)).cast(str(dst))
    in_max = float(_INT_MAX[src])
    if dst.kind == "f":
        return image.cast(str(dst)) / in_max
    out_max = float(_INT_MAX[dst])
    if in_max > out_max:
        return (image // int((in_max + 1) // (out_max + 1))).cast(str(dst))
    return image.cast(str(dst)) * int((out_max + 1) // (in_max + 1))
