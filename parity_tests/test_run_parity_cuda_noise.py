"""``jtport parity --run`` on a script written for one GPU, as the seed systems' drivers are.

The script below has what stopped or misled MCCNet's ``train.py`` and HiSD's ``core/train.py``
(measured 2026-11-28): ``.cuda()`` called unconditionally on a tensor and a module,
``torch.cuda.synchronize()`` in the loop, a CUDA stream that prefetches batches (HiSD's
``data_prefetcher``), noise drawn inside ``forward`` in place (MCCNet's ``Net``:
``nn.init.uniform_`` on an empty tensor, then ``nn.init.normal`` with that tensor as std), and a
trainer module whose ``__init__`` builds the optimizer and only then re-draws the weights
(HiSD's ``self.apply(weights_init(...))``), before a shuffling DataLoader.

On a machine without CUDA the torch side runs it on the CPU (``cuda_as_cpu.cuda_as_cpu``); the
in-place draws are shared (the port's ``jt.init.uniform_``/``gauss_`` replay torch's stream);
the capture made inside ``__init__`` is handed over when that ``__init__`` is done (else the port
would train torch's weights from before ``weights_init``), and the port's stream moves to
torch's as the DataLoader iterator is made (else the shuffle would follow a stream that torch's
initialisation draws moved on).  So the comparison holds to float32 rounding; without any one
of these the run fails or the first loss differs.
"""
from parity_tests.run_support import converted_run

SCRIPT = '''import torch
import torch.nn as nn


class Noisy(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(6, 8)
        self.fc2 = nn.Linear(8, 1)

    def forward(self, x):
        s = torch.empty(1)
        t = torch.empty(x.size())
        std = torch.nn.init.uniform_(s, a=0.5, b=1.0)
        noise = torch.nn.init.normal(t, mean=0, std=std[0]).cuda()
        h = torch.relu(self.fc1(x + noise))
        return self.fc2(h) + torch.empty(x.size(0), 1).uniform_(-0.1, 0.1).cuda()


def weights_init(m):
    if isinstance(m, nn.Linear):
        nn.init.normal_(m.weight, 0.0, 0.5)


class Trainer(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = Noisy()
        self.opt = torch.optim.Adam(self.net.parameters(), lr=0.05)
        self.apply(weights_init)  # after the optimizer was built: these are the weights it trains

    def update(self, x):
        loss = (self.net(x) ** 2).mean()
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        torch.cuda.synchronize()
        return loss.item()


class Prefetcher:
    def __init__(self, loader):
        self.loader, self.stream = loader, torch.cuda.Stream()
        self.iter = iter(loader)
        self.preload()

    def preload(self):
        try:
            x = next(self.iter)
        except StopIteration:
            self.iter = iter(self.loader)
            x = next(self.iter)
        with torch.cuda.stream(self.stream):
            self.batch = x.cuda(0, non_blocking=True)

    def next(self):
        torch.cuda.current_stream().wait_stream(self.stream)
        batch = self.batch
        self.preload()
        return batch


trainer = Trainer()
trainer.cuda(0)
data = torch.linspace(-1, 1, 60).reshape(10, 6)
fetch = Prefetcher(torch.utils.data.DataLoader(data, batch_size=4, shuffle=True, drop_last=True))
for step in range(5):
    trainer.update(fetch.next())
'''


def test_gpu_script_with_inplace_noise_matches(tmp_path, capsys):
    _, torch = converted_run(tmp_path, capsys, SCRIPT)
    assert not any("not shared" in n for n in torch.meta["notes"]), torch.meta["notes"]
