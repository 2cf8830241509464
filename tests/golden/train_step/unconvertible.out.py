import shims


def clip_shared(loss, params, opt_a, opt_b):
    opt_a.backward(loss, retain_graph=True)
    opt_b.backward(loss)
    shims.nn.clip_grad_norm_(params, 1.0)  # jtport: JT102 torch.nn.utils.clip_grad_norm_: clips gradients that several optimizers consume: pass the optimizer holding them to shims.nn.clip_grad_norm_(..., optimizer=)
    opt_a.step()
    opt_b.step()
