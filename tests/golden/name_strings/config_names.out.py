import importlib

import shims
import jittor as jt

# a configuration naming the classes a run builds, imported by name at run time
G_opt_kwargs = dict(class_name='shims.optim.Adam', lr=0.0025, betas=[0, 0.99], eps=1e-8)
act = {"class_name": "shims.nn.LeakyReLU"}
message = "torch.optim.Adam is used"   # not a name: left as it is
unknown = 'torch.no_such_api'          # no row: left as it is
own = 'training.networks.Generator'    # the project's own name: left as it is
kind = 'torch.FloatTensor'             # what x.type() returns: left as it is
float_name = 'torch.float32'           # what str(x.dtype) returns: left as it is


def construct(class_name, *args, **kwargs):
    module, name = class_name.rsplit(".", 1)
    return getattr(importlib.import_module(module), name)(*args, **kwargs)


opt = construct(G_opt_kwargs.pop("class_name"), [jt.zeros(2).requires_grad_(True)], **G_opt_kwargs)
