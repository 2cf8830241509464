import numpy as np
import PIL.Image
import torch


def restore(opt, counters, names):
    for state in opt.state.values():  # a dict's values(), not a sparse tensor's
        for k, v in state.items():
            if torch.is_tensor(v):
                state[k] = v.cuda()
    return [c.sum(0) for c in counters.values()], names.index("w")


def load(path, size):
    img = PIL.Image.open(path).convert("RGB")
    img = img.crop((0, 0, 4, 4))
    img = img.resize((size, size), PIL.Image.LANCZOS)  # PIL's resize, not a tensor's
    arr = np.array(img, dtype=np.uint8)
    return arr.transpose(2, 0, 1).clip(0, 255)


def sparse(x):
    return x.to_dense().geqrf()  # a tensor method torch has and the table does not: marked
