"""Configurations of the optimizers in ``shims.optim``'s optimizer families that both sides of
``parity_tests/test_shims_optim_families.py`` run (no torch, no jittor)."""

CONFIGS = {
    "adadelta": ("Adadelta", dict(lr=1.0)),
    "adadelta_wd": ("Adadelta", dict(lr=0.5, rho=0.8, eps=1e-5, weight_decay=0.1)),
    "adagrad": ("Adagrad", dict(lr=0.1)),
    "adagrad_decay": ("Adagrad", dict(lr=0.1, lr_decay=0.05, initial_accumulator_value=0.2, weight_decay=0.01)),
    "adamax": ("Adamax", dict(lr=1e-2)),
    "nadam": ("NAdam", dict(lr=1e-2)),
    "nadam_decoupled": ("NAdam", dict(lr=1e-2, weight_decay=0.1, decoupled_weight_decay=True, momentum_decay=1e-2)),
    "radam": ("RAdam", dict(lr=1e-2, betas=(0.5, 0.9))),
    "asgd": ("ASGD", dict(lr=0.05, lambd=1e-2, t0=2)),
    "rprop": ("Rprop", dict(lr=0.05)),
    "sgd_maximize": ("SGD", dict(lr=0.05, momentum=0.5, maximize=True)),
    "adam_decoupled": ("Adam", dict(lr=1e-2, weight_decay=0.1, decoupled_weight_decay=True)),
}
#: steps before the torch checkpoint is taken, and after it (resumed on the Jittor side)
STEPS, RESUME = 5, 3
