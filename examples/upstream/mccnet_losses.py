"""MCCNet's training loss in plain torch, as its ``train.py`` (``loss_cal``, default arguments)
combines the seven outputs of ``net.Net``: the ``loss = "mccnet_losses:mccnet_train_loss"`` of
``mccnet_train.toml`` (``jtport parity`` converts this file on the fly for the Jittor side)."""

CONTENT_WEIGHT = 3.0   # train.py --content_weight
STYLE_WEIGHT = 10.0    # train.py --style_weight


def mccnet_train_loss(net, inputs, outputs):
    """``3000 loss_noise + w_c loss_c + w_s loss_s + 70 identity1 + identity2 + 1e-4 tv``."""
    loss_n, loss_c, loss_s, l_identity1, l_identity2, loss_tv, _ = outputs
    loss = (3000 * loss_n + CONTENT_WEIGHT * loss_c + STYLE_WEIGHT * loss_s + l_identity1 * 70 + l_identity2 * 1
            + 10e-5 * loss_tv)
    return loss.sum()
