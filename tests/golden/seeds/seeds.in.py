import random

import numpy as np
import torch


def set_seed(seed):
    torch.manual_seed(seed)
    torch.cuda.manual_seed_all(seed)
    np.random.seed(seed)
    random.seed(seed)


def worker_seed(seed):
    np.random.seed(seed + 1)
    torch.manual_seed(seed)


def cuda_only(seed):
    torch.cuda.manual_seed(seed)
