"""Run a converted ``models_ref`` script with Python's, numpy's and Jittor's generators seeded.

    python -m parity_tests.seeded_main SEED models_ref.mccnet.train [ARGS ...]

Upstream's training scripts never seed, and Jittor seeds itself from the clock at import, so
two runs of a converted script start from different weights.  A test that asserts on a run's
loss curve seeds first (``jt.set_global_seed``); the converted script itself runs unchanged,
as ``python -m`` would run it, from ``build/ported``.
"""
import sys

import shims  # noqa: F401  (Jittor's settings for this machine, before Jittor is imported)
import jittor as jt

from porter.prove.ported import run_ported_main

USAGE = "usage: python -m parity_tests.seeded_main SEED MODULE [ARGS ...]"


def main(argv) -> None:
    """Seed every generator with ``argv[0]``, then run module ``argv[1]`` with ``argv[2:]``."""
    if len(argv) < 2 or not argv[0].isdigit():
        sys.exit(USAGE)
    jt.set_global_seed(int(argv[0]))
    run_ported_main(argv[1], argv[2:])


if __name__ == "__main__":
    main(sys.argv[1:])
