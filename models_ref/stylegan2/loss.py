"""StyleGAN2 loss: non-saturating logistic loss, style mixing, R1 and path-length penalties
(the structure of upstream ``training/loss.py``).

Randomness is injectable: every random draw goes through a ``rand`` object with
``mixing(ws, z) -> (cutoff, mix_z)`` and ``pl_noise(img)``.  By default it is
:class:`UpstreamRandom`, upstream's own draws on torch's RNG; a parity test passes recorded
draws instead (torch and Jittor RNG streams differ).  Upstream calls ``backward()`` once per loss
term inside ``accumulate_gradients``; here the terms of a phase are summed and returned, and the
training step back-propagates them once (the same gradients: backward is linear).
"""
import numpy as np
import torch


class UpstreamRandom:
    """Upstream's random draws for style mixing and path-length noise (torch RNG)."""

    def __init__(self, style_mixing_prob):
        self.style_mixing_prob = style_mixing_prob

    def mixing(self, ws, z):
        """A cutoff in [1, num_ws) with probability ``style_mixing_prob`` (else num_ws: no
        mixing) and the second latent."""
        cutoff = torch.empty([], dtype=torch.int64, device=ws.device).random_(1, ws.shape[1])
        cutoff = torch.where(torch.rand([], device=ws.device) < self.style_mixing_prob, cutoff, torch.full_like(cutoff, ws.shape[1]))
        return cutoff, torch.randn_like(z)

    def pl_noise(self, img):
        """Unit Gaussian noise shaped like the generated images."""
        return torch.randn_like(img)


class StyleGAN2Loss:
    """The four loss phases of StyleGAN2-ADA: Gmain, Greg (path length), Dmain, Dreg (R1)."""

    def __init__(self, device, G_mapping, G_synthesis, D, augment_pipe=None, style_mixing_prob=0.9, r1_gamma=10, pl_batch_shrink=2, pl_decay=0.01, pl_weight=2, rand=None):
        super().__init__()
        self.device = device
        self.G_mapping = G_mapping
        self.G_synthesis = G_synthesis
        self.D = D
        self.augment_pipe = augment_pipe
        self.style_mixing_prob = style_mixing_prob
        self.r1_gamma = r1_gamma
        self.pl_batch_shrink = pl_batch_shrink
        self.pl_decay = pl_decay
        self.pl_weight = pl_weight
        self.pl_mean = torch.zeros([], device=device)
        self.rand = rand if rand is not None else UpstreamRandom(style_mixing_prob)

    def run_G(self, z, c):
        """Generate images, mixing styles from a second latent after a random cutoff."""
        ws = self.G_mapping(z, c)
        if self.style_mixing_prob > 0:
            cutoff, mix_z = self.rand.mixing(ws, z)
            ws[:, cutoff:] = self.G_mapping(mix_z, c, skip_w_avg_update=True)[:, cutoff:]
        img = self.G_synthesis(ws)
        return img, ws

    def run_D(self, img, c):
        """Discriminator logits (after the augmentation pipeline, if any)."""
        if self.augment_pipe is not None:
            img = self.augment_pipe(img)
        logits = self.D(img, c)
        return logits

    def path_length_penalty(self, gen_z, gen_c):
        """Path-length penalty per sample (updates ``pl_mean``); second order in G's weights."""
        batch_size = gen_z.shape[0] // self.pl_batch_shrink
        gen_img, gen_ws = self.run_G(gen_z[:batch_size], gen_c[:batch_size])
        pl_noise = self.rand.pl_noise(gen_img) / np.sqrt(gen_img.shape[2] * gen_img.shape[3])
        pl_grads = torch.autograd.grad(outputs=[(gen_img * pl_noise).sum()], inputs=[gen_ws], create_graph=True, only_inputs=True)[0]
        pl_lengths = pl_grads.square().sum(2).mean(1).sqrt()
        pl_mean = self.pl_mean.lerp(pl_lengths.mean(), self.pl_decay)
        self.pl_mean.copy_(pl_mean.detach())
        pl_penalty = (pl_lengths - pl_mean).square()
        return gen_img, pl_penalty

    def r1_penalty(self, real_img, real_c):
        """Logits on real images and the R1 penalty ``|dD/dx|^2`` per sample."""
        real_img_tmp = real_img.detach().requires_grad_(True)
        real_logits = self.run_D(real_img_tmp, real_c)
        r1_grads = torch.autograd.grad(outputs=[real_logits.sum()], inputs=[real_img_tmp], create_graph=True, only_inputs=True)[0]
        r1_penalty = r1_grads.square().sum([1,2,3])
        return real_logits, r1_penalty

    def accumulate_gradients(self, phase, real_img, real_c, gen_z, gen_c, gain):
        """The loss of one phase, scaled by ``gain`` (the caller back-propagates it)."""
        assert phase in ['Gmain', 'Greg', 'Gboth', 'Dmain', 'Dreg', 'Dboth']
        do_Gmain = (phase in ['Gmain', 'Gboth'])
        do_Dmain = (phase in ['Dmain', 'Dboth'])
        do_Gpl   = (phase in ['Greg', 'Gboth']) and (self.pl_weight != 0)
        do_Dr1   = (phase in ['Dreg', 'Dboth']) and (self.r1_gamma != 0)
        total = 0

        # Gmain: Maximize logits for generated images.
        if do_Gmain:
            gen_img, _gen_ws = self.run_G(gen_z, gen_c)
            gen_logits = self.run_D(gen_img, gen_c)
            loss_Gmain = torch.nn.functional.softplus(-gen_logits) # -log(sigmoid(gen_logits))
            total = total + loss_Gmain.mean().mul(gain)

        # Gpl: Apply path length regularization.
        if do_Gpl:
            gen_img, pl_penalty = self.path_length_penalty(gen_z, gen_c)
            loss_Gpl = pl_penalty * self.pl_weight
            total = total + (gen_img[:, 0, 0, 0] * 0 + loss_Gpl).mean().mul(gain)

        # Dmain: Minimize logits for generated images.
        if do_Dmain:
            gen_img, _gen_ws = self.run_G(gen_z, gen_c)
            gen_logits = self.run_D(gen_img.detach(), gen_c)
            loss_Dgen = torch.nn.functional.softplus(gen_logits) # -log(1 - sigmoid(gen_logits))
            total = total + loss_Dgen.mean().mul(gain)

        # Dmain: Maximize logits for real images.
        # Dr1: Apply R1 regularization.
        if do_Dmain or do_Dr1:
            loss_Dreal = 0
            loss_Dr1 = 0
            if do_Dr1:
                real_logits, r1_penalty = self.r1_penalty(real_img, real_c)
                loss_Dr1 = r1_penalty * (self.r1_gamma / 2)
            else:
                real_logits = self.run_D(real_img.detach(), real_c)
            if do_Dmain:
                loss_Dreal = torch.nn.functional.softplus(-real_logits) # -log(sigmoid(real_logits))
            total = total + (real_logits * 0 + loss_Dreal + loss_Dr1).mean().mul(gain)
        return total
