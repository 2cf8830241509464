import jittor as jt


def run_phase(phase, rounds):
    phase.opt.zero_grad()
    loss_main = rounds[0].sum()
    phase.opt.backward(loss_main)
    loss_reg = rounds[1].sum()
    phase.opt.backward((loss_reg * jt.ones_like(loss_reg)).sum())
    for param in phase.module.parameters():
        if param.grad is not None:  # jtport: JT102 torch.Tensor.grad: reads or edits .grad between backward() and step(): Jittor keeps gradients in the optimizer (p.opt_grad(opt)); convert by hand
            param.grad.nan_to_num_(nan=0, posinf=1e5, neginf=-1e5)  # jtport: JT102 torch.Tensor.grad: reads or edits .grad between backward() and step(): Jittor keeps gradients in the optimizer (p.opt_grad(opt)); convert by hand
    phase.opt.step()
