"""HiSD (Li et al., CVPR 2021) torch reference: our code, upstream's architecture and idioms.

``networks`` holds the generator, discriminator and blocks (imlixinyang/HiSD
``core/networks.py``), ``trainer`` the training step, EMA generator and checkpoints
(``core/trainer.py``), ``utils`` the weight init and checkpoint lookup (``core/utils.py``),
``configs`` a small configuration for tests and benchmarks (torch-free).
"""
