"""The optimizer configurations both sides of the shims.optim parity test run (no torch, no jittor)."""

CONFIGS = {
    "adam": ("Adam", dict(lr=1e-2)),
    "adam_eps_wd_ams": ("Adam", dict(lr=1e-2, eps=1e-3, weight_decay=0.1, amsgrad=True)),
    "adamw_default_wd": ("AdamW", dict(lr=1e-2)),
    "adamw_betas": ("AdamW", dict(lr=3e-2, betas=(0.5, 0.9), weight_decay=0.3)),
    "sgd_plain": ("SGD", dict(lr=0.1)),
    "sgd_dampening": ("SGD", dict(lr=0.05, momentum=0.9, dampening=0.5, weight_decay=1e-3)),
    "sgd_nesterov": ("SGD", dict(lr=0.05, momentum=0.9, nesterov=True)),
    "rmsprop": ("RMSprop", dict(lr=1e-2)),
    "rmsprop_centered_mom": ("RMSprop", dict(lr=1e-2, centered=True, momentum=0.5, weight_decay=0.01)),
}
