"""``jtport parity --run`` on a script that names its CUDA device, as StyleGAN2-ADA's
``training_loop`` does.

The script below has what stopped StyleGAN2-ADA's unmodified ``train.py`` on either side
(measured 2026-11-28): ``device = torch.device('cuda', rank)`` with ``module.to(device)``,
``torch.randn(..., device=device)`` and ``.to(device)`` on every batch; labels made with
``torch.from_numpy(...).pin_memory().to(device)``; phases timed with ``torch.cuda.Event``
pairs on ``torch.cuda.current_stream(device)``; a sampler calling ``super().__init__(dataset)``
(the base ``Sampler.__init__`` today's torch no longer has); a first forward on
``torch.empty`` inputs (``print_module_summary``: uninitialised memory, read as zeros on both
sides); a cutoff drawn with ``Tensor.random_(1, n)`` (``StyleGAN2Loss``'s style mixing,
shared now: the port's ``shims.random_`` replays torch's stream); ``assert not isinstance(module,
torch.jit.ScriptModule)``; ``torch.multiprocessing.set_start_method('spawn')`` (refused under
Jittor before: importing it fixes Python's start method); and the optimizer named by a string,
``'torch.optim.Adam'``, imported at run time.

On a machine without CUDA the torch side runs it on the CPU (``cuda_as_cpu.cuda_as_cpu``,
``removed_apis.older_torch_apis``); the port runs it unchanged. Without any one of these a side
fails.
"""
from parity_tests.run_support import converted_run

SCRIPT = '''import importlib

import numpy as np
import torch
import torch.nn as nn


class InfiniteSampler(torch.utils.data.Sampler):
    def __init__(self, dataset, seed=0):
        super().__init__(dataset)
        self.n, self.seed = len(dataset), seed

    def __iter__(self):
        rnd = np.random.RandomState(self.seed)
        while True:
            yield int(rnd.randint(self.n))


def construct(class_name, *args, **kwargs):
    module, name = class_name.rsplit(".", 1)
    return getattr(importlib.import_module(module), name)(*args, **kwargs)


def main():
    device = torch.device('cuda', 0)
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 1)).train().requires_grad_(False).to(device)
    assert not isinstance(net, torch.jit.ScriptModule)
    net(torch.empty([2, 6], device=device))  # a summary run on uninitialised inputs, as SG2-ADA's
    opt = construct('torch.optim.Adam', net.parameters(), lr=0.05, betas=[0.0, 0.99], eps=1e-8)
    data = torch.linspace(-1, 1, 60).reshape(10, 6)
    batches = iter(torch.utils.data.DataLoader(data, batch_size=4, sampler=InfiniteSampler(data),
                                               pin_memory=True))
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    for step in range(4):
        start.record(torch.cuda.current_stream(device))
        x = next(batches).to(device).to(torch.float32)
        noise = torch.randn([x.shape[0], 6], device=device)
        w = torch.from_numpy(np.full([x.shape[0], 1], 0.5, dtype=np.float32)).pin_memory().to(device)
        opt.zero_grad(set_to_none=True)
        net.requires_grad_(True)
        cutoff = torch.empty([], dtype=torch.int64, device=device).random_(1, 100)  # SG2-ADA's style mixing
        loss = ((net(x + 0.1 * noise) * w) ** 2).mean() * cutoff.to(torch.float32) / 50
        loss.backward()
        net.requires_grad_(False)
        opt.step()
        end.record(torch.cuda.current_stream(device))
        assert start.elapsed_time(end) >= 0


if __name__ == "__main__":
    torch.multiprocessing.set_start_method('spawn')
    main()
'''


def test_script_naming_its_cuda_device_matches(tmp_path, capsys):
    _, torch = converted_run(tmp_path, capsys, SCRIPT)
    assert any("torch.empty" in n for n in torch.meta["notes"]), torch.meta["notes"]
