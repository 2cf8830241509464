"""HiSD helpers from ``core/utils.py``: weight initialisation and checkpoint lookup."""
import math
import os

import torch.nn.init as init


def weights_init(init_type='gaussian'):
    """Return a function for ``Module.apply`` that initialises Conv*/Linear* weights and zeroes biases."""
    def init_fun(m):
        classname = m.__class__.__name__
        if (classname.find('Conv') == 0 or classname.find('Linear') == 0) and hasattr(m, 'weight'):
            if init_type == 'gaussian':
                init.normal_(m.weight.data, 0.0, 0.02)
            elif init_type == 'xavier':
                init.xavier_normal_(m.weight.data, gain=math.sqrt(2))
            elif init_type == 'kaiming':
                init.kaiming_normal_(m.weight.data, a=0, mode='fan_in')
            elif init_type == 'orthogonal':
                init.orthogonal_(m.weight.data, gain=math.sqrt(2))
            elif init_type == 'default':
                pass
            else:
                assert 0, "Unsupported initialization: {}".format(init_type)
            if hasattr(m, 'bias') and m.bias is not None:
                init.constant_(m.bias.data, 0.0)

    return init_fun


def get_model_list(dirname, key):
    """Path of the last checkpoint in ``dirname`` whose name contains ``key`` and ``.pt``, or None."""
    if os.path.exists(dirname) is False:
        return None
    gen_models = [os.path.join(dirname, f) for f in os.listdir(dirname) if
                  os.path.isfile(os.path.join(dirname, f)) and key in f and ".pt" in f]
    if not gen_models:
        return None
    gen_models.sort()
    last_model_name = gen_models[-1]
    return last_model_name
