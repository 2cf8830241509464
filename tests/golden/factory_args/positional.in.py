import torch
import torch.nn as nn


class Linear(nn.Linear):
    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__(in_features, out_features, bias, device, dtype)


def build(device, dtype):
    a = nn.Linear(3, 2, True, device, dtype)
    b = nn.Linear(3, 2, True, device)
    c = nn.Bilinear(2, 3, 4, False, device, torch.float64)
    scaler = torch.amp.GradScaler("cuda", 1024.0)
    return a, b, c, scaler


def losses():
    return (nn.CrossEntropyLoss(reduction="sum"), nn.CrossEntropyLoss(None, False), nn.BCELoss(size_average=False),
            nn.KLDivLoss(reduction="batchmean"), nn.BCEWithLogitsLoss(reduce=False))


def keywords(x, w):
    torch.nn.functional.relu(input=x)
    torch.nn.init.constant_(tensor=w, val=0.5)
    torch.nn.init.xavier_uniform_(w, generator=None)
    return torch.split(tensor=x, split_size_or_sections=2)


class Wide(nn.Linear):
    def __init__(s, n_in, n_out, bias=True, device=None, dtype=None):
        super().__init__(n_in, n_out, bias, device, dtype)
