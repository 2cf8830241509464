"""Feature statistics helpers of MCCNet (upstream ``function.py``).

``calc_mean_std`` uses torch's per-channel *unbiased* variance (``var(dim=2)``), which is
what upstream trains with; ``coral`` is the colour-preservation transform (CORAL) built on
``svd``, ``inverse``, ``mm`` and ``eye``.
"""
import torch


def calc_mean_std(feat, eps=1e-5):
    """Per-sample, per-channel mean and std of a (N, C, H, W) feature map, shaped (N, C, 1, 1).

    The std is ``sqrt(unbiased_var + eps)``.
    """
    size = feat.size()
    assert (len(size) == 4)
    N, C = size[:2]
    feat_var = feat.view(N, C, -1).var(dim=2) + eps
    feat_std = feat_var.sqrt().view(N, C, 1, 1)
    feat_mean = feat.view(N, C, -1).mean(dim=2).view(N, C, 1, 1)
    return feat_mean, feat_std


def mean_variance_norm(feat):
    """Normalise every channel of ``feat`` to zero mean and unit (unbiased) std."""
    size = feat.size()
    mean, std = calc_mean_std(feat)
    normalized_feat = (feat - mean.expand(size)) / std.expand(size)
    return normalized_feat


# upstream's net.py imports the normalisation under this name
normal = mean_variance_norm


def _calc_feat_flatten_mean_std(feat):
    """Flatten a (3, H, W) image to (3, H*W) and return it with its per-channel mean and std."""
    assert (feat.size()[0] == 3)
    assert (isinstance(feat, torch.FloatTensor))
    feat_flatten = feat.view(3, -1)
    mean = feat_flatten.mean(dim=-1, keepdim=True)
    std = feat_flatten.std(dim=-1, keepdim=True)
    return feat_flatten, mean, std


def _mat_sqrt(x):
    """Square root of a symmetric positive definite matrix through its SVD."""
    U, D, V = torch.svd(x)
    return torch.mm(torch.mm(U, D.pow(0.5).diag()), V.t())


def coral(source, target):
    """Match the colour statistics (mean and covariance) of ``source`` to ``target``.

    Both are (3, H, W) float images; returns ``source`` recoloured, same shape.
    """
    source_f, source_f_mean, source_f_std = _calc_feat_flatten_mean_std(source)
    source_f_norm = (source_f - source_f_mean.expand_as(
        source_f)) / source_f_std.expand_as(source_f)
    source_f_cov_eye = \
        torch.mm(source_f_norm, source_f_norm.t()) + torch.eye(3)

    target_f, target_f_mean, target_f_std = _calc_feat_flatten_mean_std(target)
    target_f_norm = (target_f - target_f_mean.expand_as(
        target_f)) / target_f_std.expand_as(target_f)
    target_f_cov_eye = \
        torch.mm(target_f_norm, target_f_norm.t()) + torch.eye(3)

    source_f_norm_transfer = torch.mm(
        _mat_sqrt(target_f_cov_eye),
        torch.mm(torch.inverse(_mat_sqrt(source_f_cov_eye)),
                 source_f_norm)
    )

    source_f_transfer = source_f_norm_transfer * \
        target_f_std.expand_as(source_f_norm) + \
        target_f_mean.expand_as(source_f_norm)

    return source_f_transfer.view(source.size())
