"""MCCNet's training loss in plain torch, as its ``train.py`` (``loss_cal``, default arguments)
combines the seven outputs of ``net.Net``: the ``loss = "mccnet_losses:mccnet_train_loss"`` of
``mccnet_train.toml`` (``jtport parity`` converts this file on the fly for the Jittor side)."""

#: the names of Net.forward's six losses (its seventh output is the stylised image Ics)
TERMS = ("noise", "content", "style", "identity1", "identity2", "tv")

CONTENT_WEIGHT = 3.0   # train.py --content_weight
STYLE_WEIGHT = 10.0    # train.py --style_weight


def mccnet_train_loss(net, inputs, outputs):
    """``3000 loss_noise + w_c loss_c + w_s loss_s + 70 identity1 + identity2 + 1e-4 tv``."""
    loss_n, loss_c, loss_s, l_identity1, l_identity2, loss_tv, _ = outputs
    loss = (3000 * loss_n + CONTENT_WEIGHT * loss_c + STYLE_WEIGHT * loss_s + l_identity1 * 70 + l_identity2 * 1
            + 10e-5 * loss_tv)
    return loss.sum()


def mccnet_terms(net, inputs, outputs):
    """Net's six losses by name, each summed as train.py sums it (``loss = ["...:mccnet_terms[style]",
    ...]`` proves each term's gradient on its own: the weighted total hides the small ones)."""
    return {name: term.sum() for name, term in zip(TERMS, outputs[:6])}
