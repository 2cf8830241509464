import random

import numpy as np
import shims
import jittor as jt


def set_seed(seed):
    shims.manual_seed(seed)
    np.random.seed(seed)
    random.seed(seed)


def worker_seed(seed):
    np.random.seed(seed + 1)
    shims.manual_seed(seed, numpy=False)


def cuda_only(seed):
    jt.set_global_seed(seed)
