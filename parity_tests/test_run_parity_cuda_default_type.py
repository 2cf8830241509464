"""``jtport parity --run`` on a script that places everything on the GPU by default, as NeuS's
``exp_runner.py`` does (measured 2026-11-28).

NeuS calls ``torch.set_default_tensor_type('torch.cuda.FloatTensor')`` and
``torch.cuda.set_device(args.gpu)`` in its entry point, keeps ``self.device = torch.device('cuda')``
and moves its networks with ``.to(self.device)``; its rays are drawn with ``torch.randint`` (on the
images' device in later versions: ``device=`` a GPU is drawn on the CPU here, from the stream the
port replays) and its image order with ``torch.randperm``, whose element then indexes the camera poses
(``pose_all[perm[k], :3, 3]``).  On a machine without CUDA the torch side failed in
``torch.cuda.set_device`` ("Found no NVIDIA driver"), and after it in every factory call;
the converter left ``set_default_tensor_type`` unported; and the port's ``perm[k]`` (Jittor has no
0-d Vars) kept a dimension as an index, so its rays had one dimension too many.  Now the torch
side runs the script on the CPU (``torch_side.cuda_as_cpu``), the converter removes the call (it
only places tensors: Jittor's default float is float32), and ``shims`` indexes with a taken
element as torch does with its 0-d tensor; the comparison holds to float32 rounding.
"""
from parity_tests.run_support import converted_run

SCRIPT = '''import torch
import torch.nn as nn
import torch.nn.functional as F


class Field(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin0 = nn.utils.weight_norm(nn.Linear(3, 8))
        self.lin1 = nn.Linear(8, 1)

    def forward(self, x):
        return self.lin1(F.softplus(self.lin0(x), beta=100))


class Runner:
    def __init__(self):
        self.device = torch.device('cuda')
        self.poses = torch.linspace(-1, 1, 36).reshape(4, 3, 3).to(self.device)
        self.field = Field().to(self.device)
        self.opt = torch.optim.SGD(self.field.parameters(), lr=0.05)

    def step(self, idx):
        pix = torch.randint(low=0, high=3, size=[5], device=self.device)
        rays = self.poses[idx, None, :3, 2].expand(5, 3) + self.poses[idx][pix]
        near = torch.zeros(5, 1, device=self.device) + torch.rand([5, 1], device='cuda:0')
        loss = (self.field(rays * near) ** 2).mean()
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()


if __name__ == '__main__':
    torch.set_default_tensor_type('torch.cuda.FloatTensor')
    torch.cuda.set_device(0)
    runner = Runner()
    perm = torch.randperm(4)
    for k in range(3):
        runner.step(perm[k])
'''


def test_script_placed_on_the_gpu_by_default_matches(tmp_path, capsys):
    converted, torch = converted_run(tmp_path, capsys, SCRIPT)
    assert "set_default_tensor_type" not in converted and "set_device" not in converted, converted
    # the script calls no torch.empty: the layers' own allocations are torch's, not the script's
    assert not any("uninitialised" in n for n in torch.meta["notes"]), torch.meta["notes"]
