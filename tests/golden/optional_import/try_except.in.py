try:
    import torch
    import torch.nn.functional as F
except ImportError:  # torch is optional here
    torch = None
    F = None


def act(x):
    if torch is None:
        raise RuntimeError("needs torch")
    return F.relu(torch.relu(x)).sum(1)

