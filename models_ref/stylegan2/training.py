"""The StyleGAN2-ADA training iteration (the core of upstream ``training/training_loop.py``):
phases Gmain, Greg, Dmain, Dreg with lazy regularisation, Adam with the lazy-regularisation
rescaling of lr and betas, the NaN/inf scrubbing of every gradient before the step (taken with
the network frozen again, as upstream), and the G_ema update.  One round per phase (no gradient
accumulation over GPUs), no augmentation."""
import copy

import torch

from .misc import EasyDict


def make_phases(G, D, G_opt_kwargs, D_opt_kwargs, G_reg_interval=4, D_reg_interval=16):
    """Optimizers and phases; lazy regularisation scales Adam's lr and betas by
    ``reg_interval / (reg_interval + 1)``."""
    phases = []
    for name, module, opt_kwargs, reg_interval in [('G', G, G_opt_kwargs, G_reg_interval), ('D', D, D_opt_kwargs, D_reg_interval)]:
        if reg_interval is None:
            opt = torch.optim.Adam(module.parameters(), **opt_kwargs)
            phases += [EasyDict(name=name+'both', module=module, opt=opt, interval=1)]
        else: # Lazy regularization.
            mb_ratio = reg_interval / (reg_interval + 1)
            opt_kwargs = EasyDict(opt_kwargs)
            opt_kwargs.lr = opt_kwargs.lr * mb_ratio
            opt_kwargs.betas = [beta ** mb_ratio for beta in opt_kwargs.betas]
            opt = torch.optim.Adam(module.parameters(), **opt_kwargs)
            phases += [EasyDict(name=name+'main', module=module, opt=opt, interval=1)]
            phases += [EasyDict(name=name+'reg', module=module, opt=opt, interval=reg_interval)]
    return phases


def make_ema(G):
    """The EMA generator: an independent copy, not trained, in eval mode."""
    G_ema = copy.deepcopy(G).eval()
    G_ema.requires_grad_(False)
    return G_ema


def training_iteration(phases, loss, G, G_ema, batch_idx, real_img, real_c, gen_z, gen_c, ema_beta):
    """One iteration: every phase due at ``batch_idx`` runs forward, backward and its optimizer
    step; then G_ema moves towards G.  ``gen_z``/``gen_c`` hold one latent batch per phase."""
    for phase, phase_gen_z, phase_gen_c in zip(phases, gen_z, gen_c):
        if batch_idx % phase.interval != 0:
            continue

        phase.opt.zero_grad(set_to_none=True)
        phase.module.requires_grad_(True)
        phase_loss = loss.accumulate_gradients(phase=phase.name, real_img=real_img, real_c=real_c, gen_z=phase_gen_z, gen_c=phase_gen_c, gain=phase.interval)
        phase_loss.backward()

        # Update weights.
        phase.module.requires_grad_(False)
        for param in phase.module.parameters():
            if param.grad is not None:
                torch.nan_to_num(param.grad, nan=0, posinf=1e5, neginf=-1e5, out=param.grad)
        phase.opt.step()

    # Update G_ema.
    with torch.no_grad():
        for p_ema, p in zip(G_ema.parameters(), G.parameters()):
            p_ema.copy_(p.lerp(p_ema, ema_beta))
        for b_ema, b in zip(G_ema.buffers(), G.buffers()):
            b_ema.copy_(b)
