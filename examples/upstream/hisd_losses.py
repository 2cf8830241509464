"""HiSD's training losses for ``jtport parity`` (``hisd_train.toml``): ``core/trainer.py``'s
``HiSD.gen_losses`` and ``HiSD.dis_losses`` in plain torch, each term by name, on upstream's own
``Gen`` and ``Dis`` and their own loss methods (``Dis.calc_gen_loss_real``, ...).  Upstream's
``gen_losses`` draws its style noise with ``torch.randn(...).cuda()`` and calls ``backward()``
itself; here the noise is the spec's seeded ``z`` and the terms are returned, so each gets its
own gradient row.  ``jtport parity`` runs this file under torch (``core/`` on ``sys.path``) and
its conversion under Jittor.
"""
import torch.nn as nn
import torch.nn.functional as F

from networks import Dis, Gen

TAG, ATTR, ATTR_TRG = 0, 0, 1   # the tag trained and its source and target attributes (i, j, j_trg)


class HiSDNets(nn.Module):
    """``core/trainer.py``'s ``HiSD``: the generator and the discriminator as one module.
    Forward: the translation ``gen_losses`` makes (encode, map noise ``z`` to tag ``TAG``'s
    attribute ``ATTR_TRG``, translate, decode)."""

    def __init__(self, hyperparameters):
        super().__init__()
        self.gen = Gen(hyperparameters)
        self.dis = Dis(hyperparameters)
        self.weights = {k: hyperparameters.get(k, 1.0) for k in ("adv_w", "sty_w", "rec_w")}

    def forward(self, x, z):
        s_trg = self.gen.map(z, TAG, ATTR_TRG)
        return self.gen.decode(self.gen.translate(self.gen.encode(x), s_trg, TAG))


def _gen_paths(nets, x, z):
    """``gen_losses``'s translations: (x_rec, x_slf, x_trg, x_cyc, s, s_trg, s_trg_rec)."""
    gen, i = nets.gen, TAG
    e = gen.encode(x)
    x_rec = gen.decode(e)
    s = gen.extract(x, i)
    x_slf = gen.decode(gen.translate(e, s, i))
    s_trg = gen.map(z, i, ATTR_TRG)
    x_trg = gen.decode(gen.translate(e, s_trg, i))
    e_trg_rec = gen.encode(x_trg)
    s_trg_rec = gen.extract(x_trg, i)
    x_cyc = gen.decode(gen.translate(e_trg_rec, s, i))
    return x_rec, x_slf, x_trg, x_cyc, s, s_trg, s_trg_rec


def hisd_gen_terms(nets, inputs, outputs):
    """``gen_losses``'s three terms by name: ``adv``, ``sty`` (style reconstruction) and ``rec``
    (reconstruction, self-translation and cycle)."""
    x, y, i, j = inputs["x"], inputs["y"], TAG, ATTR
    x_rec, x_slf, x_trg, x_cyc, s, s_trg, s_trg_rec = _gen_paths(nets, x, inputs["z"])
    loss_adv = (nets.dis.calc_gen_loss_real(x, s, y, i, j)
                + nets.dis.calc_gen_loss_fake_trg(x_trg, s_trg.detach(), y, i, ATTR_TRG)
                + nets.dis.calc_gen_loss_fake_cyc(x_cyc, s.detach(), y, i, j))
    loss_sty = F.l1_loss(s_trg_rec, s_trg)
    loss_rec = F.l1_loss(x_rec, x) + F.l1_loss(x_slf, x) + F.l1_loss(x_cyc, x)
    return {"adv": loss_adv, "sty": loss_sty, "rec": loss_rec}


def hisd_gen_loss(nets, inputs, outputs):
    """``gen_losses``'s total: ``adv_w * adv + sty_w * sty + rec_w * rec``."""
    terms = hisd_gen_terms(nets, inputs, outputs)
    w = nets.weights
    return w["adv_w"] * terms["adv"] + w["sty_w"] * terms["sty"] + w["rec_w"] * terms["rec"]


def hisd_dis_terms(nets, inputs, outputs):
    """``dis_losses``'s three terms by name on the generator's detached translations, as the
    trainer passes them: ``real`` (hinge and R1 on real images), ``fake_trg``, ``fake_cyc``."""
    x, y, i, j = inputs["x"], inputs["y"], TAG, ATTR
    _, _, x_trg, x_cyc, s, s_trg, _ = (t.detach() for t in _gen_paths(nets, x, inputs["z"]))
    return {"real": nets.dis.calc_dis_loss_real(x.detach(), s, y, i, j),
            "fake_trg": nets.dis.calc_dis_loss_fake_trg(x_trg, s_trg, y, i, ATTR_TRG),
            "fake_cyc": nets.dis.calc_dis_loss_fake_cyc(x_cyc, s, y, i, j)}
