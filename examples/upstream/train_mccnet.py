"""MCCNet's training iteration (github.com/diyiiyiii/MCCNet) on tiny synthetic images.

``train.py`` parses arguments and builds data loaders when run, so it is not imported: its
``create_network`` (the VGG sliced to relu5_1, ``net.Net(vgg, decoder)`` built under
``no_grad``, train mode), its Adam over the decoder's and the MCC module's parameters, and its
loop body (``adjust_learning_rate``, ``train``: ``Net.forward``'s six losses, ``loss_cal``'s
weighting, ``back_step``'s ``zero_grad``/``backward``/``step``) are reproduced here, only their
few lines. The networks are ``net.py``'s module-level ``vgg`` and ``decoder`` with their
random initial weights (no ``vgg_normalised.pth``), without ``nn.DataParallel`` (one device);
content and style are random 32x32 images (the smallest size whose relu5_1 map is 2x2).
"""
import torch
import torch.nn as nn

torch.manual_seed(0)  # net.py builds its vgg and decoder when imported: seeded, they are the same every run
import net  # noqa: E402

# Net.forward moves its noise with .cuda(): on a machine without CUDA it stays where it is
# (as `jtport parity` runs upstream's torch side)
if not torch.cuda.is_available():
    setattr(torch.Tensor, "cuda", lambda self, *args, **kwargs: self)  # noqa: B010 (converter input: the call form keeps `torch.Tensor.cuda` a string, not an attribute the converter maps)

_ARGS = dict(lr=1e-4, lr_decay=5e-5, style_weight=10.0, content_weight=3.0)  # train.py's defaults


def build(seed: int = 0, batch_size: int = 1, size: int = 32):
    """Build the network and its Adam as ``train.py`` does; return ``step()``, one iteration of
    its loop on fresh random content/style batches, returning ``loss_cal``'s weighted terms
    (their sum is the loss that is back-propagated)."""
    torch.manual_seed(seed)
    vgg = nn.Sequential(*list(net.vgg.children())[:44])
    with torch.no_grad():
        network = net.Net(vgg, net.decoder)
    network.train()
    optimizer = torch.optim.Adam([{"params": network.decoder.parameters()},
                                  {"params": network.mcc_module.parameters()}], lr=_ARGS["lr"])
    state = {"i": 0}

    def step():
        """One pass of ``train.py``'s loop body (without its tensorboard writes and checkpoints)."""
        lr = _ARGS["lr"] / (1.0 + _ARGS["lr_decay"] * state["i"])  # adjust_learning_rate
        for param_group in optimizer.param_groups:
            param_group["lr"] = lr
        content_images = torch.rand(batch_size, 3, size, size)
        style_images = torch.rand(batch_size, 3, size, size)
        loss_n, loss_c, loss_s, l_identity1, l_identity2, loss_tv, Ics = network(content_images, style_images)
        # loss_cal
        terms = {"3000*loss_noise": 3000 * loss_n,
                 "content_weight*loss_c": _ARGS["content_weight"] * loss_c,
                 "style_weight*loss_s": _ARGS["style_weight"] * loss_s,
                 "70*l_identity1": l_identity1 * 70,
                 "1*l_identity2": l_identity2 * 1,
                 "1e-4*loss_tv": 10e-5 * loss_tv}
        loss = (terms["3000*loss_noise"] + terms["content_weight*loss_c"] + terms["style_weight*loss_s"]
                + terms["70*l_identity1"] + terms["1*l_identity2"] + terms["1e-4*loss_tv"])
        # back_step
        optimizer.zero_grad()
        loss.sum().backward()
        optimizer.step()
        state["i"] += 1
        return {name: value.sum().detach() for name, value in terms.items()}

    return step
