"""torchvision transforms, functional and datasets: torchvision's code on the torch side, the
converted code (``shims.vision``) on the Jittor side, from the same uint8 pixels.

PIL results are compared as the ``uint8`` arrays ``np.array(img)`` gives (exact: both sides run
the same PIL call with the same arguments); float results of ``to_tensor``/``normalize`` within
float32 rounding.  Random transforms are checked where their draw cannot matter (p=1/p=0, a
range of one value, a crop as large as the padded image) and, seeded (``torch.manual_seed``,
variant ``seeded``), where it does: the converted code draws from torch's stream replayed by
``shims.random_torch``, so the same seed must give the same crops, flips, angles, factors and
boxes, call after call (results compared exactly; the ``get_params`` variants compare the
drawn parameters themselves over hundreds of calls).  Dataset cases write small files in
torchvision's layout into a temporary folder and read every sample back."""
from ..case import case

A = "vision"
PRELUDE = ("import os\nimport tempfile\nimport numpy as np\nfrom PIL import Image\n"
           "import torchvision\nimport torchvision.transforms as T\nimport torchvision.transforms.functional as TF\n"
           "from torchvision import datasets\n")
RGB = {"x": "u8<0,256>[7,9,3]"}     # an odd-sized RGB image (H=7, W=9)
GRAY = {"x": "u8<0,256>[7,9]"}
CHW = {"x": "u01[3,7,9]"}
# ToTensor divides by 255 in float32 on both sides; normalize is one subtraction and one division
FLOAT = dict(rtol=1e-6, atol=1e-7, why="float32 division by 255, subtraction and division: rounding only")


def pil(api, call, inputs=RGB, variant="", **kw):
    """``call`` maps the PIL image ``img`` to a PIL image ``res``; compared as uint8 arrays."""
    make = "img = Image.fromarray(x.numpy())\n" if "(img" in call else ""
    src = f"{make}res = {call}\nout = torch.from_numpy(np.array(res))"
    return case(A, api, src, inputs, variant=variant, grad=False, extra_prelude=PRELUDE, **kw)


def crops(api, call, variant=""):
    """A transform giving a tuple of PIL images (five/ten crop)."""
    src = f"img = Image.fromarray(x.numpy())\nout = [torch.from_numpy(np.array(c)) for c in {call}]"
    return case(A, api, src, RGB, variant=variant, grad=False, extra_prelude=PRELUDE)


def tensor(api, src, inputs=CHW, variant="", **kw):
    """A snippet on tensors (Jittor Vars on the converted side)."""
    return case(A, api, src, inputs, variant=variant, extra_prelude=PRELUDE, **{"grad": False, **kw})


def seeded(api, make, inputs=RGB, variant="seeded", calls=12, **kw):
    """``t = make`` run ``calls`` times on one image after ``torch.manual_seed(5)``: every
    result depends on torch's draws (PIL results compared as uint8 arrays, tensors as values)."""
    pil_input = inputs is RGB or inputs is GRAY or inputs is BIG
    src = (("img = Image.fromarray(x.numpy())\n" if pil_input else "img = x\n")
           + f"torch.manual_seed(5)\nt = {make}\n"
           + (f"out = [torch.from_numpy(np.array(t(img))) for _ in range({calls})]" if pil_input
              else f"out = [t(img) for _ in range({calls})]"))
    return case(A, api, src, inputs, variant=variant, grad=False, extra_prelude=PRELUDE, **kw)


def params(api, call, variant="get_params", calls=300, inputs=None):
    """``call`` (a ``get_params``) ``calls`` times after ``torch.manual_seed(11)``; the drawn
    parameters flattened (integers exactly, floats as float32 or better)."""
    src = ("img = Image.fromarray(x.numpy())\ntorch.manual_seed(11)\n"
           f"out = torch.tensor([float(v) for _ in range({calls}) for p in [{call}] "
           "for v in (p if isinstance(p, (tuple, list)) else [p]) for v in (v if isinstance(v, (tuple, list)) else [v])],"
           " dtype=torch.float64)")
    return case(A, api, src, inputs or BIG, variant=variant, grad=False, extra_prelude=PRELUDE, rtol=0, atol=0)


BIG = {"x": "u8<0,256>[48,64,3]"}     # an RGB image of 64x48: room for boxes of many sizes
_IDX = ("def write_idx(path, a):\n"
        "    code = {np.dtype('uint8'): 8, np.dtype('>i4'): 12}[a.dtype]\n"
        "    with open(path, 'wb') as f:\n"
        "        f.write(bytes([0, 0, code, a.ndim]) + b''.join(int(n).to_bytes(4, 'big') for n in a.shape))\n"
        "        f.write(a.tobytes())\n")


def mnist(name, variant="", train=True):
    # torchvision wants all four files (train and t10k) present whichever split is read
    src = (_IDX + "with tempfile.TemporaryDirectory() as root:\n"
           f"    raw = os.path.join(root, '{name}', 'raw')\n"
           "    os.makedirs(raw)\n"
           "    for split, imgs, labels in (('train', x.numpy(), y.numpy()), ('t10k', x.numpy()[:2], y.numpy()[2:])):\n"
           "        write_idx(os.path.join(raw, split + '-images-idx3-ubyte'), imgs)\n"
           "        write_idx(os.path.join(raw, split + '-labels-idx1-ubyte'), labels)\n"
           f"    ds = datasets.{name}(root, train={train}, transform=T.ToTensor(), target_transform=lambda t: t + 1)\n"
           "    out = [len(ds)] + [v for i in range(len(ds)) for v in ds[i]]\n")
    return case(A, f"torchvision.datasets.{name}", src, {"x": "u8<0,256>[4,6,5]", "y": "u8<0,10>[4]"},
                variant=variant, grad=False, extra_prelude=PRELUDE, **FLOAT)


def emnist(split, train=True, variant=""):
    """EMNIST's files for ``split`` (the other split's files absent: torchvision reads only its own)."""
    part = "train" if train else "test"
    src = (_IDX + "with tempfile.TemporaryDirectory() as root:\n"
           "    raw = os.path.join(root, 'EMNIST', 'raw')\n"
           "    os.makedirs(raw)\n"
           f"    write_idx(os.path.join(raw, 'emnist-{split}-{part}-images-idx3-ubyte'), x.numpy())\n"
           f"    write_idx(os.path.join(raw, 'emnist-{split}-{part}-labels-idx1-ubyte'), y.numpy())\n"
           f"    ds = datasets.EMNIST(root, split='{split}', train={train}, transform=T.ToTensor())\n"
           "    out = [len(ds), len(ds.classes), sum(len(c) for c in ds.classes), ds.class_to_idx[ds.classes[-1]]]"
           " + [v for i in range(len(ds)) for v in ds[i]]\n")
    return case(A, "torchvision.datasets.EMNIST", src, {"x": "u8<0,256>[4,6,5]", "y": "u8<0,10>[4]"},
                variant=variant, grad=False, extra_prelude=PRELUDE, **FLOAT)


def qmnist(what, compat=True, variant=""):
    """QMNIST's files (train, test and nist: 12 images each; int32 label rows of 8 columns)."""
    src = (_IDX + "with tempfile.TemporaryDirectory() as root:\n"
           "    raw = os.path.join(root, 'QMNIST', 'raw')\n"
           "    os.makedirs(raw)\n"
           "    rows = np.stack([y.numpy().astype('>i4') + 100 * k for k in range(8)], 1).astype('>i4')\n"
           "    for k, stem in enumerate(('qmnist-train', 'qmnist-test', 'xnist')):\n"
           "        write_idx(os.path.join(raw, stem + '-images-idx3-ubyte'), np.roll(x.numpy(), k, 0))\n"
           "        write_idx(os.path.join(raw, stem + '-labels-idx2-int'), np.roll(rows, k, 0))\n"
           f"    ds = datasets.QMNIST(root, what={what!r}, compat={compat}, transform=T.ToTensor())\n"
           "    out = [len(ds)] + [v for i in range(len(ds)) for v in ds[i]]\n")
    return case(A, "torchvision.datasets.QMNIST", src, {"x": "u8<0,256>[12,6,5]", "y": "u8<0,10>[12]"},
                variant=variant, grad=False, extra_prelude=PRELUDE, **FLOAT)


_FOLDER = ("with tempfile.TemporaryDirectory() as root:\n"
           "    files = [('dog', 'b.png'), ('cat', 'z.png'), ('cat', 'a.jpg'), ('dog', 'sub/a.png'), ('ant', 'c.txt'),"
           " ('ant', 'd.PNG')]\n"
           "    for k, (cls, name) in enumerate(files):\n"
           "        os.makedirs(os.path.dirname(os.path.join(root, cls, name)), exist_ok=True)\n"
           "        if name.endswith('.txt'):\n"
           "            open(os.path.join(root, cls, name), 'w').close()\n"
           "        else:\n"
           "            Image.fromarray(x.numpy()[k]).save(os.path.join(root, cls, name), format='PNG')\n")


def folder(api, make, variant=""):
    src = (_FOLDER + f"    ds = {make}\n"
           "    out = [ds.class_to_idx[c] for c in ds.classes] + [len(ds)]"
           " + [v for i in range(len(ds)) for v in ds[i]]\n")
    return case(A, api, src, {"x": "u8<0,256>[6,5,4,3]"}, variant=variant, grad=False, extra_prelude=PRELUDE,
                **FLOAT)


CASES = [
    # -- to tensor / to PIL
    tensor("torchvision.transforms.ToTensor", "out = T.ToTensor()(Image.fromarray(x.numpy()))", RGB, **FLOAT),
    tensor("torchvision.transforms.ToTensor", "out = T.ToTensor()(Image.fromarray(x.numpy()))", GRAY,
           variant="gray", **FLOAT),
    tensor("torchvision.transforms.ToTensor", "out = T.ToTensor()(Image.fromarray(x.numpy()).convert('1'))", GRAY,
           variant="mode_1", **FLOAT),
    tensor("torchvision.transforms.ToTensor", "out = T.ToTensor()(x.numpy())", RGB, variant="ndarray", **FLOAT),
    tensor("torchvision.transforms.ToTensor", "t = T.ToTensor()(Image.fromarray(x.numpy()))\n"
           "out = (t.view(-1).shape, t.mul(2).unsqueeze(0), t.dtype == torch.float32)", RGB,
           variant="tensor_methods_next", **FLOAT),
    tensor("torchvision.transforms.functional.to_tensor", "out = TF.to_tensor(Image.fromarray(x.numpy()))", RGB,
           **FLOAT),
    tensor("torchvision.transforms.PILToTensor", "out = T.PILToTensor()(Image.fromarray(x.numpy()))", RGB),
    tensor("torchvision.transforms.functional.pil_to_tensor", "out = TF.pil_to_tensor(Image.fromarray(x.numpy()))",
           GRAY),
    pil("torchvision.transforms.ToPILImage", "T.ToPILImage()(x)", {"x": "u01[3,5,6]"}),
    pil("torchvision.transforms.ToPILImage", "T.ToPILImage()(x)", {"x": "u8<0,256>[5,6]"}, variant="gray_2d"),
    pil("torchvision.transforms.functional.to_pil_image", "TF.to_pil_image(x, mode='RGB')", {"x": "u8<0,256>[3,5,6]"}),
    # -- normalize
    tensor("torchvision.transforms.Normalize", "out = T.Normalize([0.5, 0.2, 0.1], [0.3, 0.4, 0.5])(x)", **FLOAT,
           grad=True),
    tensor("torchvision.transforms.Normalize", "out = T.Normalize((0.1307,), (0.3081,))(x)", {"x": "u01[2,1,4,5]"},
           variant="batch_one_channel", grad=True, **FLOAT),
    tensor("torchvision.transforms.Normalize", "y = x * 1.0\nr = T.Normalize([0.5] * 3, [0.25] * 3, inplace=True)(y)\n"
           "out = (y, r)", variant="inplace", **FLOAT),
    tensor("torchvision.transforms.functional.normalize", "out = TF.normalize(x, [0.4, 0.5, 0.6], [0.2, 0.2, 0.3])",
           grad=True, **FLOAT),
    tensor("torchvision.transforms.Compose",
           "tf = T.Compose([T.CenterCrop(5), T.ToTensor(), T.Normalize([0.5] * 3, [0.5] * 3)])\n"
           "out = tf(Image.fromarray(x.numpy()))", RGB, **FLOAT),
    tensor("torchvision.transforms.Lambda",
           "out = T.Compose([T.ToTensor(), T.Lambda(lambda t: t * 2 - 1)])(Image.fromarray(x.numpy()))", RGB, **FLOAT),
    # -- geometry
    pil("torchvision.transforms.CenterCrop", "T.CenterCrop(5)(img)"),
    pil("torchvision.transforms.CenterCrop", "T.CenterCrop((4, 8))(img)", variant="odd_offsets"),
    pil("torchvision.transforms.CenterCrop", "T.CenterCrop(8)(img)", variant="one_less_than_width"),
    pil("torchvision.transforms.CenterCrop", "T.CenterCrop((10, 12))(img)", variant="larger_pads"),
    pil("torchvision.transforms.CenterCrop", "T.CenterCrop((11, 6))(img)", variant="taller_pads_odd"),
    tensor("torchvision.transforms.CenterCrop", "out = T.CenterCrop((4, 5))(x)", variant="tensor"),
    tensor("torchvision.transforms.CenterCrop", "out = T.CenterCrop((9, 10))(x)", variant="tensor_pads"),
    pil("torchvision.transforms.functional.center_crop", "TF.center_crop(img, [3, 4])"),
    pil("torchvision.transforms.Resize", "T.Resize(5)(img)"),
    pil("torchvision.transforms.Resize", "T.Resize((4, 6), interpolation=T.InterpolationMode.NEAREST)(img)",
        variant="nearest"),
    pil("torchvision.transforms.Resize", "T.Resize(12, interpolation=T.InterpolationMode.BICUBIC, max_size=14)(img)",
        variant="bicubic_max_size"),
    pil("torchvision.transforms.Resize", "T.Resize(7)(img)", variant="already_that_size"),
    pil("torchvision.transforms.InterpolationMode", "T.Resize(4, interpolation=T.InterpolationMode.LANCZOS)(img)"),
    pil("torchvision.transforms.functional.resize", "TF.resize(img, [5, 4], Image.BICUBIC)"),
    pil("torchvision.transforms.Pad", "T.Pad(2)(img)"),
    pil("torchvision.transforms.Pad", "T.Pad((1, 2), fill=(10, 20, 30))(img)", variant="pair_fill"),
    pil("torchvision.transforms.Pad", "T.Pad((1, 2, 3, 4), padding_mode='reflect')(img)", variant="reflect"),
    pil("torchvision.transforms.Pad", "T.Pad(3, padding_mode='edge')(img)", variant="edge"),
    pil("torchvision.transforms.Pad", "T.Pad([2, -1, 0, 3], padding_mode='symmetric')(img)", variant="symmetric_neg"),
    pil("torchvision.transforms.Pad", "T.Pad(2, fill=9)(img)", GRAY, variant="gray"),
    tensor("torchvision.transforms.Pad", "out = T.Pad((1, 2, 3, 4), fill=0.5)(x)", variant="tensor"),
    pil("torchvision.transforms.functional.pad", "TF.pad(img, [1, 0, 2, 1], padding_mode='reflect')"),
    pil("torchvision.transforms.functional.crop", "TF.crop(img, 1, 2, 4, 5)"),
    pil("torchvision.transforms.functional.crop", "TF.crop(img, -1, 6, 4, 5)", variant="outside"),
    tensor("torchvision.transforms.functional.crop", "out = TF.crop(x, -1, 6, 4, 5)", variant="tensor_outside"),
    pil("torchvision.transforms.RandomCrop", "T.RandomCrop((11, 13), padding=2)(img)"),
    pil("torchvision.transforms.RandomCrop", "T.RandomCrop((11, 11), padding=(1, 2), fill=(1, 2, 3))(img)",
        variant="padding_pair_fill"),
    pil("torchvision.transforms.RandomCrop", "T.RandomCrop(13, padding=[1, 2, 3, 4], padding_mode='reflect')(img)",
        variant="reflect_whole"),
    pil("torchvision.transforms.RandomCrop", "T.RandomCrop((7, 9))(img)", variant="same_size"),
    tensor("torchvision.transforms.RandomCrop", "out = T.RandomCrop((10, 12), pad_if_needed=True)"
           "(Image.fromarray(x.numpy())).size", RGB, variant="pad_if_needed_size"),
    pil("torchvision.transforms.RandomHorizontalFlip", "T.RandomHorizontalFlip(p=1.0)(img)"),
    pil("torchvision.transforms.RandomHorizontalFlip", "T.RandomHorizontalFlip(p=0.0)(img)", variant="p0"),
    tensor("torchvision.transforms.RandomHorizontalFlip", "out = T.RandomHorizontalFlip(1.0)(x)", variant="tensor"),
    pil("torchvision.transforms.RandomVerticalFlip", "T.RandomVerticalFlip(p=1.0)(img)"),
    tensor("torchvision.transforms.RandomVerticalFlip", "out = T.RandomVerticalFlip(p=1)(x)", variant="tensor"),
    pil("torchvision.transforms.functional.hflip", "TF.hflip(img)"),
    pil("torchvision.transforms.functional.vflip", "TF.vflip(img)"),
    pil("torchvision.transforms.RandomResizedCrop", "T.RandomResizedCrop(5, scale=(1.0, 1.0), ratio=(9 / 7, 9 / 7))(img)"),
    pil("torchvision.transforms.RandomResizedCrop", "T.RandomResizedCrop((6, 4), scale=(1.0, 1.0), ratio=(2.0, 2.0),"
        " interpolation=T.InterpolationMode.NEAREST)(img)", variant="fallback_center"),
    pil("torchvision.transforms.functional.resized_crop", "TF.resized_crop(img, 1, 2, 4, 5, [8, 10])"),
    crops("torchvision.transforms.FiveCrop", "T.FiveCrop(4)(img)"),
    crops("torchvision.transforms.FiveCrop", "T.FiveCrop((3, 6))(img)", variant="rect"),
    crops("torchvision.transforms.TenCrop", "T.TenCrop(4)(img)"),
    crops("torchvision.transforms.TenCrop", "T.TenCrop((5, 4), vertical_flip=True)(img)", variant="vertical"),
    crops("torchvision.transforms.functional.five_crop", "TF.five_crop(img, [5, 5])"),
    crops("torchvision.transforms.functional.ten_crop", "TF.ten_crop(img, [5, 5])"),
    pil("torchvision.transforms.RandomRotation", "T.RandomRotation((30, 30))(img)"),
    pil("torchvision.transforms.RandomRotation", "T.RandomRotation((-45, -45), interpolation=T.InterpolationMode."
        "BILINEAR, expand=True, fill=(9, 8, 7))(img)", variant="expand_fill_bilinear"),
    pil("torchvision.transforms.RandomRotation", "T.RandomRotation((90, 90), center=(2, 3))(img)", variant="center"),
    pil("torchvision.transforms.functional.rotate", "TF.rotate(img, 17.5, fill=3)"),
    # angles, scales and shears exact in float32: torch draws them as float32 (uniform_ on an empty(1))
    pil("torchvision.transforms.RandomAffine", "T.RandomAffine((30, 30))(img)"),
    pil("torchvision.transforms.RandomAffine", "T.RandomAffine((-20, -20), translate=(0, 0), scale=(1.25, 1.25), "
        "shear=(10.5, 10.5, -4, -4), interpolation=T.InterpolationMode.BILINEAR, fill=(5, 6, 7))(img)",
        variant="scale_shear_fill"),
    pil("torchvision.transforms.RandomAffine", "T.RandomAffine(0, shear=(8, 8), center=(1, 2))(img)", GRAY,
        variant="gray_center"),
    pil("torchvision.transforms.functional.affine", "TF.affine(img, 15.0, [2, -1], 0.75, [5.0, 3.0])"),
    pil("torchvision.transforms.functional.affine", "TF.affine(img, -7.5, (1, 1), 1.5, 12.0, "
        "interpolation=T.InterpolationMode.BICUBIC, fill=9)", variant="bicubic"),
    tensor("torchvision.transforms.functional.erase", "out = TF.erase(x, 1, 2, 3, 4, y)",
           {"x": "f32[3,7,9]", "y": "f32[3,3,4]"}),
    tensor("torchvision.transforms.functional.erase", "out = TF.erase(x, 0, 5, 7, 4, torch.tensor([0.5, -1.0, 2.0])"
           "[:, None, None])", {"x": "f32[2,3,7,9]"}, variant="batch_per_channel"),
    tensor("torchvision.transforms.RandomErasing", "out = T.RandomErasing(p=1.0, scale=(1.0, 1.0), ratio=(1.0, 1.0),"
           " value=3)(x)", variant="no_box_fits"),
    tensor("torchvision.transforms.RandomErasing", "out = T.RandomErasing(p=0.0)(x)", variant="p0"),
    # -- colour
    pil("torchvision.transforms.ColorJitter", "T.ColorJitter(brightness=(1.3, 1.3))(img)", variant="brightness"),
    pil("torchvision.transforms.ColorJitter", "T.ColorJitter(contrast=(0.6, 0.6))(img)", variant="contrast"),
    pil("torchvision.transforms.ColorJitter", "T.ColorJitter(saturation=(1.7, 1.7))(img)", variant="saturation"),
    pil("torchvision.transforms.ColorJitter", "T.ColorJitter(hue=(0.2, 0.2))(img)", variant="hue"),
    pil("torchvision.transforms.ColorJitter", "T.ColorJitter(hue=(-0.35, -0.35))(img)", variant="hue_negative"),
    pil("torchvision.transforms.ColorJitter", "T.ColorJitter()(img)", variant="identity"),
    pil("torchvision.transforms.functional.adjust_brightness", "TF.adjust_brightness(img, 0.7)"),
    pil("torchvision.transforms.functional.adjust_contrast", "TF.adjust_contrast(img, 1.4)"),
    pil("torchvision.transforms.functional.adjust_saturation", "TF.adjust_saturation(img, 0.3)"),
    pil("torchvision.transforms.functional.adjust_hue", "TF.adjust_hue(img, 0.45)"),
    pil("torchvision.transforms.functional.adjust_gamma", "TF.adjust_gamma(img, 0.8, gain=1.1)"),
    pil("torchvision.transforms.functional.invert", "TF.invert(img)"),
    pil("torchvision.transforms.functional.posterize", "TF.posterize(img, 3)"),
    pil("torchvision.transforms.functional.solarize", "TF.solarize(img, 100)"),
    pil("torchvision.transforms.functional.adjust_sharpness", "TF.adjust_sharpness(img, 2.5)"),
    pil("torchvision.transforms.functional.autocontrast", "TF.autocontrast(img)"),
    pil("torchvision.transforms.functional.equalize", "TF.equalize(img)"),
    pil("torchvision.transforms.RandomInvert", "T.RandomInvert(p=1.0)(img)"),
    pil("torchvision.transforms.RandomAutocontrast", "T.RandomAutocontrast(p=1)(img)", GRAY),
    pil("torchvision.transforms.RandomEqualize", "T.RandomEqualize(1.0)(img)"),
    pil("torchvision.transforms.RandomPosterize", "T.RandomPosterize(2, p=1.0)(img)"),
    pil("torchvision.transforms.RandomPosterize", "T.RandomPosterize(2, p=0.0)(img)", variant="p0"),
    pil("torchvision.transforms.RandomSolarize", "T.RandomSolarize(threshold=192, p=1.0)(img)"),
    pil("torchvision.transforms.RandomAdjustSharpness", "T.RandomAdjustSharpness(0.2, p=1.0)(img)"),
    pil("torchvision.transforms.Grayscale", "T.Grayscale()(img)"),
    pil("torchvision.transforms.Grayscale", "T.Grayscale(num_output_channels=3)(img)", variant="three"),
    pil("torchvision.transforms.RandomGrayscale", "T.RandomGrayscale(p=1.0)(img)"),
    pil("torchvision.transforms.RandomGrayscale", "T.RandomGrayscale(p=1.0)(img)", GRAY, variant="gray_input"),
    pil("torchvision.transforms.RandomGrayscale", "T.RandomGrayscale(p=0.0)(img)", variant="p0"),
    pil("torchvision.transforms.functional.to_grayscale", "TF.to_grayscale(img, 3)"),
    pil("torchvision.transforms.functional.rgb_to_grayscale", "TF.rgb_to_grayscale(img)"),
    # the blur sums 9-25 float32 products in another order than torch's conv2d, then rounds:
    # a sum within an ulp of .5 may round the other way (1 grey level)
    pil("torchvision.transforms.GaussianBlur", "T.GaussianBlur(3, sigma=(0.75, 0.75))(img)",
        atol=1, rtol=0, why="float32 sums in another order, then rounding to uint8"),
    pil("torchvision.transforms.GaussianBlur", "T.GaussianBlur((5, 3), sigma=1.5)(img)", GRAY, variant="rect_gray",
        atol=1, rtol=0, why="float32 sums in another order, then rounding to uint8"),
    pil("torchvision.transforms.functional.gaussian_blur", "TF.gaussian_blur(img, [3, 5])",
        atol=1, rtol=0, why="float32 sums in another order, then rounding to uint8"),
    tensor("torchvision.transforms.functional.gaussian_blur", "out = TF.gaussian_blur(x, [5, 5], [1.0, 2.0])",
           variant="float_tensor", rtol=1e-5, atol=1e-6, why="25 float32 products summed in another order"),
    tensor("torchvision.transforms.ConvertImageDtype", "out = T.ConvertImageDtype(torch.float32)(x)",
           {"x": "u8<0,256>[3,4,5]"}, **FLOAT),
    tensor("torchvision.transforms.functional.convert_image_dtype", "out = TF.convert_image_dtype(x, torch.uint8)",
           {"x": "u01[3,4,5]"}),
    # -- random containers, where the draw cannot matter
    pil("torchvision.transforms.RandomApply", "T.RandomApply([T.Grayscale(3), T.Pad(1)], p=1.0)(img)"),
    pil("torchvision.transforms.RandomApply", "T.RandomApply([T.Grayscale(3)], p=0.0)(img)", variant="p0"),
    pil("torchvision.transforms.RandomChoice", "T.RandomChoice([T.CenterCrop(3)])(img)"),
    pil("torchvision.transforms.RandomChoice", "T.RandomChoice([T.CenterCrop(3), T.Pad(1)], p=[0, 1])(img)",
        variant="weights"),
    pil("torchvision.transforms.RandomOrder", "T.RandomOrder([T.RandomHorizontalFlip(1), T.RandomVerticalFlip(1)])(img)"),
    tensor("torchvision.transforms.functional.get_dimensions", "out = TF.get_dimensions(Image.fromarray(x.numpy()))",
           RGB),
    tensor("torchvision.transforms.functional.get_image_size", "out = TF.get_image_size(x)"),
    tensor("torchvision.transforms.functional.get_image_num_channels",
           "out = TF.get_image_num_channels(Image.fromarray(x.numpy()))", GRAY),
    # -- seeded: torch's draws, the same for the same torch.manual_seed
    seeded("torchvision.transforms.RandomCrop", "T.RandomCrop(5, padding=2)"),
    seeded("torchvision.transforms.RandomCrop", "T.RandomCrop((30, 20), padding=4, pad_if_needed=True)", BIG,
           variant="seeded_big"),
    seeded("torchvision.transforms.RandomHorizontalFlip", "T.RandomHorizontalFlip()"),
    seeded("torchvision.transforms.RandomVerticalFlip", "T.RandomVerticalFlip(p=0.3)"),
    seeded("torchvision.transforms.RandomResizedCrop", "T.RandomResizedCrop(6)"),
    seeded("torchvision.transforms.RandomResizedCrop", "T.RandomResizedCrop((20, 24), scale=(0.2, 0.9),"
           " ratio=(0.5, 2.0))", BIG, variant="seeded_big", calls=20),
    params("torchvision.transforms.RandomResizedCrop", "T.RandomResizedCrop.get_params(img, (0.08, 1.0), (3 / 4, 4 / 3))"),
    params("torchvision.transforms.RandomCrop", "T.RandomCrop.get_params(img, (17, 29))"),
    seeded("torchvision.transforms.ColorJitter", "T.ColorJitter(0.4, 0.4, 0.4, 0.1)", calls=8),
    seeded("torchvision.transforms.RandomRotation", "T.RandomRotation(30)", calls=8),
    params("torchvision.transforms.RandomRotation", "T.RandomRotation.get_params([-30.0, 45.0])"),
    seeded("torchvision.transforms.RandomAffine", "T.RandomAffine(20, translate=(0.2, 0.2), scale=(0.8, 1.2), "
           "shear=(-10, 10, -5, 5))", calls=8),
    params("torchvision.transforms.RandomAffine", "T.RandomAffine.get_params([-20.0, 20.0], [0.2, 0.3], [0.8, 1.2], "
           "[-10.0, 10.0, -5.0, 5.0], [64, 48])"),
    seeded("torchvision.transforms.RandomErasing", "T.RandomErasing(p=0.7)", CHW, calls=10),
    # value='random': torch's normal_ draws (the stream exactly, the noise to float32 rounding)
    seeded("torchvision.transforms.RandomErasing", "T.RandomErasing(p=0.7, value='random')", CHW,
           variant="seeded_random", calls=10, rtol=0, atol=4e-6,
           why="normal_ noise: torch's float32 Box-Muller rounds log/sin/cos its own way"),
    params("torchvision.transforms.RandomErasing", "T.RandomErasing.get_params(torch.zeros(3, 48, 64), "
           "(0.02, 0.33), (0.3, 3.3), [0.0])[:4]"),
    seeded("torchvision.transforms.RandomGrayscale", "T.RandomGrayscale(p=0.5)"),
    seeded("torchvision.transforms.RandomApply", "T.RandomApply([T.Grayscale(3)], p=0.4)"),
    seeded("torchvision.transforms.RandomInvert", "T.RandomInvert(p=0.5)"),
    seeded("torchvision.transforms.RandomSolarize", "T.RandomSolarize(128, p=0.5)"),
    seeded("torchvision.transforms.GaussianBlur", "T.GaussianBlur(3, sigma=(0.1, 2.0))", calls=8, atol=1, rtol=0,
           why="float32 sums in another order, then rounding to uint8"),
    params("torchvision.transforms.GaussianBlur", "T.GaussianBlur.get_params(0.1, 2.0)"),
    seeded("torchvision.transforms.Compose", "T.Compose([T.RandomCrop(7, padding=2), T.RandomHorizontalFlip(), "
           "T.ColorJitter(0.3, 0.3), T.RandomRotation(10)])", variant="seeded_pipeline", calls=10),
    # -- datasets
    mnist("MNIST"),
    mnist("MNIST", variant="test", train=False),
    mnist("FashionMNIST"),
    mnist("KMNIST", train=False),
    emnist("letters"),
    emnist("balanced", train=False, variant="balanced_test"),
    emnist("byclass", variant="byclass"),
    qmnist("train"),
    qmnist("test", compat=False, variant="test_rows"),
    qmnist("nist", variant="nist"),
    folder("torchvision.datasets.ImageFolder", "datasets.ImageFolder(root, transform=T.ToTensor())"),
    folder("torchvision.datasets.ImageFolder", "datasets.ImageFolder(root, transform=T.ToTensor(), "
           "is_valid_file=lambda p: p.endswith('.png'), allow_empty=True)", variant="is_valid_file"),
    case(A, "torchvision.datasets.VisionDataset",
         "class Pairs(datasets.VisionDataset):\n"
         "    def __init__(self, root, data, **kw):\n"
         "        super().__init__(root, **kw)\n"
         "        self.data = data\n"
         "    def __len__(self):\n"
         "        return len(self.data)\n"
         "    def __getitem__(self, i):\n"
         "        return self.transforms(Image.fromarray(self.data[i]), i) if self.transforms else (self.data[i], i)\n"
         "ds = Pairs('r', x.numpy(), transform=T.ToTensor(), target_transform=lambda t: 3 * t)\n"
         "out = [len(ds), ds.root == 'r'] + [v for i in range(len(ds)) for v in ds[i]]",
         {"x": "u8<0,256>[3,4,5]"}, grad=False, extra_prelude=PRELUDE, **FLOAT),
    case(A, "torchvision.datasets.folder.make_dataset",
         _FOLDER + "    from torchvision.datasets.folder import make_dataset, find_classes, is_image_file\n"
         "    classes, idx = find_classes(root)\n"
         "    found = make_dataset(root, idx, extensions=('.png',))\n"
         "    out = [len(classes), len(found)] + [t for _, t in found] + [is_image_file(p) for p, _ in found]\n"
         "    out += [len(os.path.relpath(p, root)) for p, _ in found]",
         {"x": "u8<0,256>[6,5,4,3]"}, grad=False, extra_prelude=PRELUDE),
    case(A, "torchvision.datasets.folder.find_classes",
         _FOLDER + "    from torchvision.datasets.folder import find_classes\n"
         "    classes, idx = find_classes(root)\n"
         "    out = [len(c) for c in classes] + [idx[c] for c in classes]",
         {"x": "u8<0,256>[6,5,4,3]"}, grad=False, extra_prelude=PRELUDE),
    case(A, "torchvision.datasets.folder.has_file_allowed_extension",
         "from torchvision.datasets.folder import has_file_allowed_extension, is_image_file, IMG_EXTENSIONS\n"
         "names = ['a.PNG', 'b.jpeg', 'c.txt', 'd.png.bak', 'e.WebP', 'f.tif']\n"
         "out = [has_file_allowed_extension(n, ('.png', '.txt')) for n in names] + [is_image_file(n) for n in names]"
         " + [has_file_allowed_extension(n, '.tif') for n in names] + [len(IMG_EXTENSIONS)]",
         grad=False, extra_prelude=PRELUDE),
    case(A, "torchvision.datasets.folder.is_image_file",
         "from torchvision.datasets.folder import is_image_file\nout = [is_image_file(n) for n in "
         "['x.JPG', 'x.ppm', 'x.pgm', 'x.gif', 'x.bmp', 'x']]", grad=False, extra_prelude=PRELUDE),
    case(A, "torchvision.datasets.folder.IMG_EXTENSIONS",
         "from torchvision.datasets.folder import IMG_EXTENSIONS\nout = [ord(ch) for e in IMG_EXTENSIONS for ch in e]",
         grad=False, extra_prelude=PRELUDE),
    case(A, "torchvision.datasets.folder.default_loader",
         "from torchvision.datasets.folder import default_loader\n"
         "with tempfile.TemporaryDirectory() as root:\n"
         "    Image.fromarray(x.numpy(), 'LA').save(os.path.join(root, 'a.png'))\n"
         "    img = default_loader(os.path.join(root, 'a.png'))\n"
         "    out = [img.mode == 'RGB', torch.from_numpy(np.array(img))]",
         {"x": "u8<0,256>[5,6,2]"}, grad=False, extra_prelude=PRELUDE),
    case(A, "torchvision.datasets.folder.pil_loader",
         "from torchvision.datasets.folder import pil_loader\n"
         "with tempfile.TemporaryDirectory() as root:\n"
         "    Image.fromarray(x.numpy()).save(os.path.join(root, 'a.bmp'))\n"
         "    out = torch.from_numpy(np.array(pil_loader(os.path.join(root, 'a.bmp'))))",
         {"x": "u8<0,256>[5,6]"}, grad=False, extra_prelude=PRELUDE),
    folder("torchvision.datasets.folder.ImageFolder", "torchvision.datasets.folder.ImageFolder(root, "
           "transform=T.PILToTensor())"),
    folder("torchvision.datasets.folder.DatasetFolder", "torchvision.datasets.folder.DatasetFolder(root, "
           "lambda p: TF.to_tensor(Image.open(p)), extensions='.png')"),
    folder("torchvision.datasets.DatasetFolder", "datasets.DatasetFolder(root, loader=lambda p: TF.to_tensor("
           "Image.open(p).convert('L')), extensions=('.png', '.jpg'), target_transform=lambda t: t * 10)"),
]
