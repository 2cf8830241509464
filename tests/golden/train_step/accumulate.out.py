import shims
import jittor as jt


def run_phase(phase, rounds):
    phase.opt.zero_grad(set_to_none=True)
    loss_main = rounds[0].sum()
    loss_main.backward()
    loss_reg = rounds[1].sum()
    loss_reg.backward(jt.ones_like(loss_reg))
    for param in phase.module.parameters():
        if param.grad is not None:
            shims.nan_to_num_(param.grad, nan=0, posinf=1e5, neginf=-1e5)
    phase.opt.step()
