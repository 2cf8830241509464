import shims
import jittor as jt
from jittor import nn


class Linear(shims.namespace("torch.nn").Linear):
    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__(in_features, out_features, bias)
        shims.nn.with_dtype(self, dtype)


def build(device, dtype):
    a = shims.nn.with_dtype(nn.Linear(3, 2, True), dtype)
    b = nn.Linear(3, 2, True)
    c = nn.Bilinear(2, 3, 4, False, dtype=jt.float64)
    scaler = shims.amp.GradScaler(init_scale=1024.0)
    return a, b, c, scaler


def losses():
    return (shims.nn.CrossEntropyLoss(reduction="sum"), shims.nn.CrossEntropyLoss(None, False), shims.nn.BCELoss(size_average=False),
            shims.nn.KLDivLoss(reduction="batchmean"), shims.nn.BCEWithLogitsLoss(reduce=False))


def keywords(x, w):
    jt.nn.relu(x=x)
    jt.init.constant_(var=w, value=0.5)
    jt.init.xavier_uniform_(w)
    return jt.split(d=x, split_size=2)


class Wide(shims.namespace("torch.nn").Linear):
    def __init__(s, n_in, n_out, bias=True, device=None, dtype=None):
        super().__init__(n_in, n_out, bias)
        shims.nn.with_dtype(s, dtype)
