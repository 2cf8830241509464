"""StyleGAN2-ADA's training iteration (github.com/NVlabs/stylegan2-ada-pytorch) on tiny synthetic data.

``training/training_loop.py`` cannot be imported as a step (CUDA device, data loader, snapshots), so
its iteration is reproduced here, only its few lines: the lazy-regularisation phases Gmain, Greg,
Dmain, Dreg (upstream's interval logic, with both reg intervals 1 by default so every phase runs at
every step), each with ``requires_grad_`` toggles, ``zero_grad(set_to_none=True)``, upstream's
``training.loss.StyleGAN2Loss.accumulate_gradients``, ``misc.nan_to_num`` on the gradients and
``opt.step()``; then the G_ema lerp with ``ema_beta``. Networks are ``training.networks``'
Generator and Discriminator at 16x16, float32, unconditional, without augmentation pipe.
"""
import copy

import torch
from torch_utils import misc, training_stats
from torch_utils.ops import conv2d_gradfix
from training.loss import StyleGAN2Loss
from training.networks import Discriminator, Generator

_LOSSES = {"G_main": "Loss/G/loss", "G_pl": "Loss/G/reg", "D_main": "Loss/D/loss", "D_r1": "Loss/D/reg"}


def build(seed: int = 0, batch_size: int = 2, G_reg_interval: int = 1, D_reg_interval: int = 1):
    """Build G, D, G_ema, the loss, the phases and their Adam optimizers as ``training_loop`` does,
    with train.py's 'auto' hyperparameters (lr, betas, gamma, EMA, conv_clamp, mbstd group) for tiny
    networks; return ``step()``, one training iteration. Its losses are the phases' means as upstream
    reports them through ``training_stats`` (``Loss/G/loss``, ``Loss/G/reg``, ``Loss/D/loss``,
    ``Loss/D/reg``: ``accumulate_gradients`` returns nothing), read with a ``Collector`` each step."""
    torch.manual_seed(seed)
    conv2d_gradfix.enabled = True  # as training_loop sets it; on the CPU it falls back to torch's conv
    common = dict(c_dim=0, img_resolution=16, img_channels=3)
    G = Generator(z_dim=16, w_dim=16, mapping_kwargs=dict(num_layers=2),
                  synthesis_kwargs=dict(channel_base=512, channel_max=32, num_fp16_res=0, conv_clamp=256),
                  **common).train().requires_grad_(False)
    D = Discriminator(channel_base=512, channel_max=32, num_fp16_res=0, conv_clamp=256,
                      epilogue_kwargs=dict(mbstd_group_size=min(batch_size, 4)), **common).train().requires_grad_(False)
    G_ema = copy.deepcopy(G).eval()
    loss = StyleGAN2Loss(device=torch.device("cpu"), G_mapping=G.mapping, G_synthesis=G.synthesis, D=D,
                         augment_pipe=None, r1_gamma=0.0002 * 16 ** 2 / batch_size, pl_batch_shrink=2, pl_weight=2)
    phases = []
    for name, module, interval in [("G", G, G_reg_interval), ("D", D, D_reg_interval)]:
        mb_ratio = interval / (interval + 1)
        opt = torch.optim.Adam(module.parameters(), lr=0.0025 * mb_ratio, betas=[b ** mb_ratio for b in (0, 0.99)],
                               eps=1e-8)
        phases += [(name + "main", module, opt, 1), (name + "reg", module, opt, interval)]
    collector = training_stats.Collector(regex="Loss/.*")
    ema_kimg, ema_rampup = batch_size * 10 / 32, 0.05
    state = {"batch_idx": 0, "cur_nimg": 0}

    def step():
        """One iteration of training_loop's ``while True`` body (data fetch, phases, G_ema)."""
        real_img = (torch.randint(0, 256, [batch_size, 3, 16, 16]).to(torch.float32) / 127.5 - 1)
        real_c = torch.zeros([batch_size, 0])
        all_gen_z = torch.randn([len(phases) * batch_size, G.z_dim]).split(batch_size)
        all_gen_c = torch.zeros([len(phases) * batch_size, 0]).split(batch_size)
        for (name, module, opt, interval), gen_z, gen_c in zip(phases, all_gen_z, all_gen_c):
            if state["batch_idx"] % interval != 0:
                continue
            opt.zero_grad(set_to_none=True)
            module.requires_grad_(True)
            loss.accumulate_gradients(phase=name, real_img=real_img, real_c=real_c, gen_z=gen_z, gen_c=gen_c,
                                      sync=True, gain=interval)
            module.requires_grad_(False)
            for param in module.parameters():
                if param.grad is not None:
                    misc.nan_to_num(param.grad, nan=0, posinf=1e5, neginf=-1e5, out=param.grad)
            opt.step()
        ema_nimg = min(ema_kimg * 1000, state["cur_nimg"] * ema_rampup)
        ema_beta = 0.5 ** (batch_size / max(ema_nimg, 1e-8))
        for p_ema, p in zip(G_ema.parameters(), G.parameters()):
            p_ema.copy_(p.lerp(p_ema, ema_beta))
        for b_ema, b in zip(G_ema.buffers(), G.buffers()):
            b_ema.copy_(b)
        state["cur_nimg"] += batch_size
        state["batch_idx"] += 1
        collector.update()
        return {key: collector.mean(stat) for key, stat in _LOSSES.items() if collector.num(stat)}

    return step
