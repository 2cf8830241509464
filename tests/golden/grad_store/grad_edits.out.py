import shims
import jittor as jt


def train_phase(phase, batches, gain):
    # StyleGAN2-ADA's training loop: accumulate, freeze, sanitize every .grad, step
    phase.opt.zero_grad(set_to_none=True)
    phase.module.requires_grad_(True)
    for loss in batches:
        shims.mean(loss).mul(gain).backward()
    phase.module.requires_grad_(False)
    for param in phase.module.parameters():
        if param.grad is not None:
            shims.nan_to_num_(param.grad, nan=0, posinf=1e5, neginf=-1e5)
    phase.opt.step()


def manual_clip(model, loss, opt, scale):
    loss.backward()
    grads = [p.grad for p in model.parameters() if p.grad is not None]
    norm = shims.norm(jt.stack([shims.norm(g) for g in grads]))
    for p in model.parameters():
        if p.grad is None:
            continue
        p.grad.mul_(scale / (norm + 1e-6))
        shims.clamp_(p.grad, -1.0, 1.0)
    model.head.weight.grad = None
    shims.nn.clip_grad_value_(model.parameters(), 0.5)
    total = shims.nn.clip_grad_norm_(model.parameters(), 1.0, 2.0)
    opt.step()
    opt.zero_grad(set_to_none=False)
    model.zero_grad()
    return total
