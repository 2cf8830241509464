"""``torch.optim`` optimizers and ``lr_scheduler`` classes: a linear model (torch's weights loaded
into the converted one) trained a few steps with torch's ``zero_grad(); loss.backward(); step()``
loop, converted as users write it; the weights after training and the optimizer state are
compared.  Schedulers: the lr (and cycled momentum) of two param groups over a run of steps.
"""
from ..case import case

A = "optim"
DATA = {"x": "f32[8,5]", "y": "f32[8,3]"}
# 5 float32 steps of a 5x3 least-squares problem: each step is a few float32 ops per element
# on values ~1, rounded in a different order (measured below 1e-6 relative).
STEPS = dict(rtol=1e-5, atol=1e-6, grad=False, why="a few float32 update steps, ops in a different order")
# schedulers: Python floats and the same formulas on both sides
LRS = dict(rtol=1e-12, atol=0.0, grad=False, why="Python float arithmetic, torch's formulas")

LOOP = """
for _ in range({steps}):
    opt.zero_grad()
    loss = ((m(x) - y) ** 2).mean()
    loss.backward()
    opt.step()
out = (m.weight.detach(), m.bias.detach(){extra})
"""


def opt(name, ctor, variant="", steps=5, extra="", params="m.parameters()", **kw):
    src = f"opt = torch.optim.{ctor.format(params=params)}\n" + LOOP.format(steps=steps, extra=extra)
    return case(A, f"torch.optim.{name}", src, DATA, variant=variant, setup="m = nn.Linear(5, 3)", **{**STEPS, **kw})


GROUPS = "[{'params': [m.weight]}, {'params': [m.bias], 'lr': 0.05}]"

SCHED_LOOP = """
opt = torch.optim.{opt}
sch = torch.optim.lr_scheduler.{ctor}
out = [[g['lr'] for g in opt.param_groups]{mom}]
for i in range({n}):
    opt.step()
    sch.step({arg})
    out.append([g['lr'] for g in opt.param_groups]{mom})
out.append(sch.get_last_lr())
"""


def sched(name, ctor, variant="", n=12, optimizer="SGD({groups}, lr=1.0)", mom="", arg=""):
    src = SCHED_LOOP.format(opt=optimizer.format(groups=GROUPS), ctor=ctor, n=n, mom=mom, arg=arg)
    return case(A, f"torch.optim.lr_scheduler.{name}", src, {}, variant=variant, setup="m = nn.Linear(5, 3)", **LRS)


SUBCLASS = """
class Halving(torch.optim.lr_scheduler.{base}):
    def get_lr(self):
        if self.last_epoch == 0 or self.last_epoch % 2:
            return [g['lr'] for g in self.optimizer.param_groups]
        return [g['lr'] * 0.5 for g in self.optimizer.param_groups]

opt = torch.optim.SGD([{{'params': [m.weight]}}, {{'params': [m.bias], 'lr': 0.05}}], lr=1.0)
sch = Halving(opt)
out = [sch.base_lrs, sch.last_epoch]
for _ in range(7):
    opt.step()
    sch.step()
    out.append(sch.get_last_lr())
sch.step(1)
out.append(sch.get_last_lr())
sch.load_state_dict(sch.state_dict())
out.append(sch.last_epoch)
"""

MOM = " + [g['momentum'] for g in opt.param_groups]"
BETA1 = " + [g['betas'][0] for g in opt.param_groups]"

# mixed precision as torch runs it without CUDA (here): the scaler disabled, autocast off
AMP_LOOP = """
scaler = torch.{scaler}
for _ in range(5):
    opt.zero_grad()
    with torch.{autocast}:
        loss = ((m(x) - y) ** 2).mean()
    scaler.scale(loss).backward()
    scaler.unscale_(opt)
    scaler.step(opt)
    scaler.update()
state = (scaler.get_scale(), float(len(scaler.state_dict())), float(scaler.is_enabled()))
out = (m.weight.detach(), m.bias.detach(), torch.tensor(state))
"""


def amp(name, scaler, autocast, variant):
    src = ("opt = torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)\n"
           + AMP_LOOP.format(scaler=scaler, autocast=autocast))
    return case(A, name, src, DATA, variant=variant, setup="m = nn.Linear(5, 3)", **STEPS)



CASES = [
    opt("SGD", "SGD({params}, lr=0.1)"),
    opt("SGD", "SGD({params}, lr=0.05, momentum=0.9, dampening=0.1, weight_decay=1e-2)", variant="momentum_wd"),
    opt("SGD", "SGD({params}, lr=0.05, momentum=0.9, nesterov=True, maximize=False, foreach=False)",
        variant="nesterov"),
    opt("SGD", "SGD({params}, lr=0.05, momentum=0.5)", variant="groups", params=GROUPS),
    opt("Adam", "Adam({params}, lr=1e-2)"),
    opt("Adam", "Adam({params}, lr=1e-2, betas=(0.8, 0.99), eps=1e-6, weight_decay=0.1, amsgrad=True)",
        variant="amsgrad_wd", extra=", opt.state_dict()['state'][0]['max_exp_avg_sq']"),
    opt("Adam", "Adam({params}, lr=1e-2, maximize=True, foreach=False)", variant="maximize"),
    opt("Adam", "Adam({params}, lr=1e-2, weight_decay=0.1, decoupled_weight_decay=True)", variant="decoupled"),
    opt("AdamW", "AdamW({params}, lr=1e-2)"),
    opt("AdamW", "AdamW({params}, lr=2e-2, weight_decay=0.3, amsgrad=True)", variant="groups", params=GROUPS),
    opt("RMSprop", "RMSprop({params}, lr=1e-2)"),
    opt("RMSprop", "RMSprop({params}, lr=1e-2, alpha=0.9, momentum=0.5, centered=True, weight_decay=0.01)",
        variant="centered_momentum"),
    opt("Adadelta", "Adadelta({params})", extra=", opt.state_dict()['state'][0]['acc_delta']"),
    opt("Adadelta", "Adadelta({params}, lr=0.5, rho=0.8, eps=1e-5, weight_decay=0.1, maximize=True)",
        variant="options"),
    opt("Adadelta", "Adadelta({params}, lr=2.0)", variant="groups", params=GROUPS),
    opt("Adagrad", "Adagrad({params})", extra=", opt.state_dict()['state'][1]['sum']"),
    opt("Adagrad", "Adagrad({params}, lr=0.1, lr_decay=0.1, weight_decay=0.05, initial_accumulator_value=0.5, "
        "eps=1e-6)",
        variant="options"),
    opt("Adagrad", "Adagrad({params}, lr=0.1)", variant="groups", params=GROUPS),
    opt("Adamax", "Adamax({params})", extra=", opt.state_dict()['state'][0]['exp_inf']"),
    opt("Adamax", "Adamax({params}, lr=1e-2, betas=(0.7, 0.9), eps=1e-4, weight_decay=0.1)", variant="options"),
    opt("NAdam", "NAdam({params})", extra=", opt.state_dict()['state'][0]['exp_avg_sq']"),
    opt("NAdam", "NAdam({params}, lr=1e-2, betas=(0.8, 0.99), momentum_decay=1e-2, weight_decay=0.1)",
        variant="options", steps=8),
    opt("NAdam", "NAdam({params}, lr=1e-2, weight_decay=0.1, decoupled_weight_decay=True)", variant="decoupled"),
    opt("RAdam", "RAdam({params}, lr=1e-2)", steps=8),
    opt("RAdam", "RAdam({params}, lr=1e-2, betas=(0.5, 0.9), weight_decay=0.1)", variant="rectified", steps=8),
    opt("RAdam", "RAdam({params}, lr=1e-2, weight_decay=0.1, decoupled_weight_decay=True)", variant="decoupled",
        steps=8),
    opt("ASGD", "ASGD({params}, lr=0.05)", extra=", opt.state_dict()['state'][0]['ax']"),
    opt("ASGD", "ASGD({params}, lr=0.05, lambd=1e-2, alpha=0.5, t0=2, weight_decay=0.01)", variant="averaging",
        steps=6, extra=", opt.state_dict()['state'][0]['ax']"),
    opt("Rprop", "Rprop({params})", steps=8, extra=", opt.state_dict()['state'][0]['step_size']"),
    opt("Rprop", "Rprop({params}, lr=0.05, etas=(0.3, 1.5), step_sizes=(1e-3, 0.08))", variant="options", steps=8),
    case(A, "torch.optim.LBFGS", """
opt = torch.optim.LBFGS(m.parameters(), lr=0.5, max_iter=4)

def closure():
    opt.zero_grad()
    loss = ((m(x) - y) ** 2).mean()
    loss.backward()
    return loss

loss0 = opt.step(closure).item()
out = (m.weight.detach(), m.bias.detach(), loss0, closure().item())
""", DATA, setup="m = nn.Linear(5, 3)", **STEPS),
    # Three steps of 5 iterations reach the least-squares minimum, where the loss is flat: the
    # losses agree to 1e-7 relative, the weights only to ~1e-3 (the float32 rounding of the
    # dot products moves the iterate along the flat directions; measured).  So the losses of
    # the long run are compared, the weights in the 4-iteration case above, against torch's
    # float64 run.  How far a float32 trajectory drifts from the float64 one is a draw: from 30
    # starts one float32 ulp apart, torch's own error ranges 1.2e-6 to 3.6e-5 (median 1.4e-5),
    # the port's 4.5e-7 to 4.2e-5 (median 1.5e-5), and the port's closure gradients and each
    # iteration's step are as close to float64 as torch's (measured 2026-11-28).  One start is
    # one draw (the case's own weights: torch 6.2e-6, the port 1.5e-5); so the case runs the 30
    # starts (torch's weights, each moved one ulp up or down by the signs of ``u``) and judges
    # their 450 losses as one array: the worst drift of each side over the same starts.
    case(A, "torch.optim.LBFGS", """
w0, b0 = m.weight.detach().clone(), m.bias.detach().clone()
losses = []

def closure():
    opt.zero_grad()
    loss = ((m(x) - y) ** 2).mean()
    loss.backward()
    losses.append(loss.item())
    return loss

for k in range(u.shape[0]):
    with torch.no_grad():
        m.weight.copy_(torch.nextafter(w0.float(), (w0.float() + u[k, :15].view(3, 5)).float()))
        m.bias.copy_(torch.nextafter(b0.float(), (b0.float() + u[k, 15:]).float()))
    opt = torch.optim.LBFGS(m.parameters(), lr=0.5, max_iter=5)
    for _ in range(3):
        opt.step(closure)
out = torch.tensor(losses, dtype=torch.float64)
""", {**DATA, "u": "f32[30,18]"}, variant="converging_losses", setup="m = nn.Linear(5, 3)", ref64=True,
         **STEPS),
    case(A, "torch.optim.LBFGS", """
opt = torch.optim.LBFGS(m.parameters(), lr=1, max_iter=10, history_size=4, line_search_fn='strong_wolfe')

def closure():
    opt.zero_grad()
    loss = ((m(x) - y) ** 2).mean() + (m.weight ** 4).sum() * 0.01
    loss.backward()
    return loss

for _ in range(2):
    opt.step(closure)
out = (m.weight.detach(), m.bias.detach())
""", DATA, variant="strong_wolfe", setup="m = nn.Linear(5, 3)", rtol=1e-4, atol=1e-5, grad=False,
         why="20 L-BFGS iterations with line searches: float32 dot products in a different order"),
    case(A, "torch.optim.Optimizer.step", """
opt = torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)

def closure():
    opt.zero_grad()
    loss = ((m(x) - y) ** 2).mean()
    loss.backward()
    return loss

losses = [opt.step(closure).item() for _ in range(4)]
out = (m.weight.detach(), m.bias.detach(), losses)
""", DATA, variant="closure", setup="m = nn.Linear(5, 3)", **STEPS),
    sched("LambdaLR", "LambdaLR(opt, lambda e: 0.95 ** e)"),
    sched("LambdaLR", "LambdaLR(opt, [lambda e: 1 / (e + 1), lambda e: 0.9 ** e])", variant="per_group"),
    sched("MultiplicativeLR", "MultiplicativeLR(opt, lambda e: 0.9)"),
    sched("StepLR", "StepLR(opt, step_size=3, gamma=0.5)"),
    sched("MultiStepLR", "MultiStepLR(opt, milestones=[2, 5, 5, 9], gamma=0.1)"),
    sched("ConstantLR", "ConstantLR(opt, factor=0.5, total_iters=4)"),
    sched("LinearLR", "LinearLR(opt, start_factor=0.25, end_factor=1.0, total_iters=6)"),
    sched("ExponentialLR", "ExponentialLR(opt, gamma=0.9)"),
    sched("PolynomialLR", "PolynomialLR(opt, total_iters=8, power=2.0)"),
    sched("CosineAnnealingLR", "CosineAnnealingLR(opt, T_max=4, eta_min=1e-3)", n=14),
    sched("CosineAnnealingWarmRestarts", "CosineAnnealingWarmRestarts(opt, T_0=3, T_mult=2, eta_min=0.01)", n=16),
    sched("CosineAnnealingWarmRestarts", "CosineAnnealingWarmRestarts(opt, T_0=4)", variant="fractional_epoch",
          n=10, arg="i * 0.7"),
    sched("CyclicLR", "CyclicLR(opt, base_lr=0.01, max_lr=0.1, step_size_up=3)", mom=MOM,
          optimizer="SGD({groups}, lr=1.0, momentum=0.9)"),
    sched("CyclicLR", "CyclicLR(opt, base_lr=[0.01, 0.02], max_lr=0.1, step_size_up=2, step_size_down=4, "
          "mode='triangular2', cycle_momentum=False)", variant="triangular2", n=16),
    sched("CyclicLR", "CyclicLR(opt, 0.01, 0.1, step_size_up=3, mode='exp_range', gamma=0.9)", variant="exp_range_adam",
          mom=BETA1, optimizer="Adam({groups}, lr=1.0)"),
    sched("OneCycleLR", "OneCycleLR(opt, max_lr=0.1, total_steps=12)", mom=MOM,
          optimizer="SGD({groups}, lr=1.0, momentum=0.9)", n=11),
    sched("OneCycleLR", "OneCycleLR(opt, max_lr=[0.1, 0.2], epochs=2, steps_per_epoch=5, pct_start=0.4, "
          "anneal_strategy='linear', three_phase=True)", variant="three_phase_adam", mom=BETA1,
          optimizer="AdamW({groups}, lr=1.0)", n=9),
    sched("ReduceLROnPlateau", "ReduceLROnPlateau(opt, patience=1, factor=0.5, cooldown=1, min_lr=0.01)",
          arg="[3, 2, 2, 2, 1.5, 1.5, 1.5, 1.5, 1, 1, 1, 1][i]"),
    sched("ReduceLROnPlateau", "ReduceLROnPlateau(opt, mode='max', threshold=0.1, threshold_mode='abs', patience=0)",
          variant="max_abs", arg="[1, 1.05, 1.2, 1.25, 1.4, 1.3, 1.6, 1.6, 1.6, 1.8, 1.85, 2][i]"),
    sched("SequentialLR", "SequentialLR(opt, [torch.optim.lr_scheduler.LinearLR(opt, 0.1, total_iters=3), "
          "torch.optim.lr_scheduler.ExponentialLR(opt, gamma=0.8)], milestones=[4])"),
    sched("ChainedScheduler", "ChainedScheduler([torch.optim.lr_scheduler.ConstantLR(opt, factor=0.5, total_iters=3), "
          "torch.optim.lr_scheduler.ExponentialLR(opt, gamma=0.9)])"),
    case(A, "torch.optim.lr_scheduler.LRScheduler", SUBCLASS.format(base="LRScheduler"), {},
         setup="m = nn.Linear(5, 3)", **LRS),
    case(A, "torch.optim.lr_scheduler._LRScheduler", SUBCLASS.format(base="_LRScheduler"), {},
         setup="m = nn.Linear(5, 3)", **LRS),
    amp("torch.cuda.amp.GradScaler", "cuda.amp.GradScaler()", "cuda.amp.autocast()", "training_loop"),
    amp("torch.amp.GradScaler", "amp.GradScaler('cuda', init_scale=1024.0)", "amp.autocast('cuda')", "training_loop"),
    amp("torch.GradScaler", "GradScaler()", "autocast(device_type='cuda', dtype=torch.float16)", "training_loop"),
    amp("torch.cuda.amp.autocast", "cuda.amp.GradScaler(enabled=False)", "cuda.amp.autocast(enabled=True)",
        "training_loop"),
    amp("torch.amp.autocast", "amp.GradScaler()", "amp.autocast(device_type='cuda')", "training_loop"),
    amp("torch.autocast", "GradScaler()", "autocast('cuda')", "training_loop"),
    case(A, "torch.is_autocast_enabled", "out = torch.tensor(float(torch.is_autocast_enabled()))", {}, **LRS),
]

# -- Adafactor, Muon and swa_utils ------------------------------------------------------------
# Adafactor: a 5x3 weight (factored row/col variances) and a bias (a full variance); Muon: 2-D
# parameters only (the weight), its Newton-Schulz iterations in bfloat16 as torch's.

def errors(ctor, calls, exc="ValueError", pre=""):
    """A snippet collecting the messages of constructor calls torch rejects (as character codes)."""
    src = pre + "msgs = []\n" + "".join(f"try:\n    {ctor.format(args=c)}\nexcept {exc} as e:\n    msgs.append(str(e))\n"
                                  for c in calls)
    src += "out = [ord(ch) for msg in msgs for ch in msg + '|']\n"
    return src


TALL = {"x": "f32[8,3]", "y": "f32[8,6]"}
CONV = {"x": "f32[4,2,6]", "y": "f32[4,3,4]"}

SWA_LOOP = """
opt = torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)
swa = torch.optim.swa_utils.AveragedModel(m{kw})
for _ in range(5):
    opt.zero_grad()
    loss = ((m(x) - y) ** 2).mean()
    loss.backward()
    opt.step()
    swa.update_parameters(m)
out = ({outs}, swa.n_averaged, swa(x).detach())
"""
LINEAR_OUTS = "swa.module.weight.detach(), swa.module.bias.detach()"
BN_SETUP = "m = nn.Sequential(nn.Linear(5, 4), nn.BatchNorm1d(4), nn.Linear(4, 3))"
BN_OUTS = ("swa.module[0].weight.detach(), swa.module[1].weight.detach(), swa.module[1].running_mean, "
           "swa.module[1].running_var, swa.module[1].num_batches_tracked")


def swa(variant, kw="", setup="m = nn.Linear(5, 3)", outs=LINEAR_OUTS):
    src = SWA_LOOP.format(kw=kw, outs=outs)
    return case(A, "torch.optim.swa_utils.AveragedModel", src, DATA, variant=variant, setup=setup, **STEPS)


SWALR_LOOP = """
opt = torch.optim.SGD({groups}, lr=1.0)
{pre}sch = torch.optim.swa_utils.SWALR(opt, {args})
out = [[g['lr'] for g in opt.param_groups]]
for i in range({n}):
    opt.step()
    sch.step()
    out.append([g['lr'] for g in opt.param_groups])
out.append(sch.get_last_lr())
{post}"""


def swalr(variant, args, n=12, pre="", post=""):
    src = SWALR_LOOP.format(groups=GROUPS, args=args, n=n, pre=pre, post=post)
    return case(A, "torch.optim.swa_utils.SWALR", src, {}, variant=variant, setup="m = nn.Linear(5, 3)", **LRS)


ADAFACTOR_STATE = (", opt.state_dict()['state'][0]['row_var'], opt.state_dict()['state'][0]['col_var'], "
                   "opt.state_dict()['state'][1]['variance'], float(opt.state_dict()['state'][0]['step'])")

CASES += [
    opt("Adafactor", "Adafactor({params})", extra=ADAFACTOR_STATE),
    opt("Adafactor", "Adafactor({params}, lr=0.05, beta2_decay=-0.5, eps=(1e-4, 1e-2), d=1.5, weight_decay=0.1)",
        variant="options", steps=8, extra=ADAFACTOR_STATE),
    opt("Adafactor", "Adafactor({params}, lr=0.05, maximize=True, foreach=False)", variant="maximize"),
    opt("Adafactor", "Adafactor({params}, lr=0.02, weight_decay=0.2)", variant="groups", params=GROUPS),
    # [m.weight, m.bias] named: the optimizer's state indices follow this order
    case(A, "torch.optim.Adafactor", "opt = torch.optim.Adafactor([m.weight, m.bias], lr=0.05)\n"
         + LOOP.format(steps=5, extra=", opt.state_dict()['state'][0]['row_var'], "
                                      "opt.state_dict()['state'][0]['col_var']"),
         CONV, variant="conv1d_3d", setup="m = nn.Conv1d(2, 3, 3)", **STEPS),
    case(A, "torch.optim.Adafactor", """
opt = torch.optim.Adafactor(m.parameters(), lr=0.05, weight_decay=0.1)
for _ in range(3):
    opt.zero_grad()
    ((m(x) - y) ** 2).mean().backward()
    opt.step()
opt2 = torch.optim.Adafactor(m.parameters(), lr=0.05, weight_decay=0.1)
opt2.load_state_dict(opt.state_dict())
for _ in range(3):
    opt2.zero_grad()
    ((m(x) - y) ** 2).mean().backward()
    opt2.step()
out = (m.weight.detach(), m.bias.detach(), float(opt2.state_dict()['state'][1]['step']))
""", DATA, variant="state_dict_resume", setup="m = nn.Linear(5, 3)", **STEPS),
    case(A, "torch.optim.Adafactor", errors("torch.optim.Adafactor(m.parameters(), {args})", [
        "lr=-1.0", "beta2_decay=0.5", "eps=(-1.0, 1e-3)", "eps=(None, -1.0)", "d=0.5", "weight_decay=-0.1"]),
         {}, variant="argument_errors", setup="m = nn.Linear(5, 3)", **LRS),
    opt("Muon", "Muon({params})", params="[m.weight]", extra=", opt.state_dict()['state'][0]['momentum_buffer']"),
    opt("Muon", "Muon({params}, lr=0.02, weight_decay=0.01, momentum=0.9)", variant="options", params="[m.weight]",
        steps=8),
    opt("Muon", "Muon({params}, lr=0.02, nesterov=False, adjust_lr_fn='match_rms_adamw')", variant="plain_momentum",
        params="[m.weight]"),
    opt("Muon", "Muon({params}, lr=0.05, weight_decay=0.0, ns_coefficients=(3.0, -3.2, 1.2), ns_steps=3, "
        "adjust_lr_fn='spectral_unclamped')", variant="coefficients", params="[m.weight]"),
    case(A, "torch.optim.Muon", "opt = torch.optim.Muon([m.weight], lr=0.02, adjust_lr_fn='original')\n"
         + LOOP.format(steps=5, extra=""), TALL, variant="tall_matrix", setup="m = nn.Linear(3, 6)", **STEPS),
    case(A, "torch.optim.Muon", errors("torch.optim.Muon({args})", [
        "m.parameters()", "[m.weight], lr=-1.0", "[m.weight], momentum=-0.5", "[m.weight], weight_decay=-1.0",
        "[m.weight], adjust_lr_fn='cosine'"]), {}, variant="argument_errors", setup="m = nn.Linear(5, 3)", **LRS),
    case(A, "torch.optim.Muon", """
msgs = []
for kw in [dict(ns_steps=100), dict(ns_coefficients=(3.0, -3.2))]:
    opt = torch.optim.Muon([m.weight], **kw)
    ((m(x) - y) ** 2).mean().backward()
    try:
        opt.step()
    except ValueError as e:
        msgs.append(str(e))
out = [ord(ch) for msg in msgs for ch in msg + '|']
""", DATA, variant="step_errors", setup="m = nn.Linear(5, 3)", **LRS),
    swa("swa"),
    swa("ema_multi_avg_fn", kw=", multi_avg_fn=torch.optim.swa_utils.get_ema_multi_avg_fn(0.9)"),
    swa("ema_avg_fn", kw=", avg_fn=torch.optim.swa_utils.get_ema_avg_fn(0.8)"),
    swa("swa_multi_avg_fn", kw=", multi_avg_fn=torch.optim.swa_utils.get_swa_multi_avg_fn()"),
    swa("swa_avg_fn", kw=", avg_fn=torch.optim.swa_utils.get_swa_avg_fn()"),
    swa("custom_avg_fn", kw=", avg_fn=lambda avg, p, n: 0.25 * avg + 0.75 * p"),
    swa("batchnorm", setup=BN_SETUP, outs=BN_OUTS),
    swa("batchnorm_use_buffers", kw=", use_buffers=True", setup=BN_SETUP, outs=BN_OUTS),
    swa("batchnorm_ema_buffers", kw=", multi_avg_fn=torch.optim.swa_utils.get_ema_multi_avg_fn(0.7), use_buffers=True",
        setup=BN_SETUP, outs=BN_OUTS),
    case(A, "torch.optim.swa_utils.AveragedModel", """
swa.update_parameters(m)
swa2 = torch.optim.swa_utils.AveragedModel(nn.Linear(5, 3))
swa2.load_state_dict(swa.state_dict())
keys = [ord(ch) for k in swa.state_dict() for ch in k + '|']
out = (keys, swa2.module.weight.detach(), swa2.n_averaged, [ord(ch) for n, _ in swa.named_parameters() for ch in n])
""", {}, variant="state_dict", setup="m = nn.Linear(5, 3)\nswa = torch.optim.swa_utils.AveragedModel(m)", **LRS),
    case(A, "torch.optim.swa_utils.AveragedModel", errors(
        "torch.optim.swa_utils.AveragedModel(m, {args})",
        ["avg_fn=torch.optim.swa_utils.get_ema_avg_fn(), multi_avg_fn=torch.optim.swa_utils.get_ema_multi_avg_fn()"],
        exc="AssertionError"),
         {}, variant="both_avg_fns", setup="m = nn.Linear(5, 3)", **LRS),
    case(A, "torch.optim.swa_utils.get_ema_avg_fn", errors("torch.optim.swa_utils.get_ema_avg_fn({args})",
                                                           ["1.5", "-0.1"]), {}, variant="decay_errors", **LRS),
    case(A, "torch.optim.swa_utils.get_ema_multi_avg_fn", errors(
        "torch.optim.swa_utils.get_ema_multi_avg_fn({args})", ["1.01"]), {}, variant="decay_errors", **LRS),
    case(A, "torch.optim.swa_utils.update_bn", """
opt = torch.optim.SGD(m.parameters(), lr=0.1)
swa = torch.optim.swa_utils.AveragedModel(m)
for _ in range(3):
    opt.zero_grad()
    ((m(x) - y) ** 2).mean().backward()
    opt.step()
    swa.update_parameters(m)
swa.eval()
torch.optim.swa_utils.update_bn([x[:3], x[3:5], x[5:]], swa)
bn = swa.module[1]
out = (bn.running_mean, bn.running_var, bn.num_batches_tracked, bn.momentum, float(swa.training),
       float(bn.training), swa(x).detach())
""", DATA, variant="averaged_model", setup=BN_SETUP, **STEPS),
    case(A, "torch.optim.swa_utils.update_bn", """
torch.optim.swa_utils.update_bn([(x[:5], y[:5]), (x[5:], y[5:])], m)
bn = m[1]
out = (bn.running_mean, bn.running_var, bn.num_batches_tracked, bn.momentum, float(m.training))
""", DATA, variant="tuple_batches", setup=BN_SETUP + "\nm[1].momentum = 0.3", **STEPS),
    swalr("cos", "swa_lr=0.05, anneal_epochs=4", n=8),
    swalr("defaults", "0.2", n=14),
    swalr("linear_per_group", "swa_lr=[0.1, 0.01], anneal_epochs=3, anneal_strategy='linear'", n=6),
    swalr("no_annealing", "swa_lr=0.3, anneal_epochs=0", n=4),
    swalr("after_cosine", "swa_lr=0.02, anneal_epochs=2", n=5,
          pre="warm = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=6)\nfor _ in range(3):\n"
              "    opt.step()\n    warm.step()\n"),
    swalr("state_dict", "swa_lr=0.05, anneal_epochs=5, anneal_strategy='linear'", n=3,
          post="sch2 = torch.optim.swa_utils.SWALR(opt, swa_lr=0.5, anneal_strategy='cos')\n"
               "sch2.load_state_dict(sch.state_dict())\nfor _ in range(3):\n    opt.step()\n    sch2.step()\n"
               "    out.append(sch2.get_last_lr())\n"),
    case(A, "torch.optim.swa_utils.SWALR", errors("torch.optim.swa_utils.SWALR(opt, {args})", [
        "0.1, anneal_strategy='exp'", "0.1, anneal_epochs=-1", "0.1, anneal_epochs=2.5", "[0.1, 0.2, 0.3]"],
        pre=f"opt = torch.optim.SGD({GROUPS}, lr=1.0)\n"), {}, variant="argument_errors", setup="m = nn.Linear(5, 3)",
         **LRS),
]
