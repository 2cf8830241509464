import shims


def clip_shared(loss, params, opt_a, opt_b):
    loss.backward()
    shims.nn.clip_grad_norm_(params, 1.0)
    opt_a.step()
    opt_b.step()
