import torch

x = torch.randn(3, 4)
a = torch.randn(2, 3)
b = torch.randn(3, 5)
n = torch.empty(3)
m = torch.empty(2, 5)
torch.norm(x, 2, 1, False, n)  # out as torch's 5th positional
torch.tensordot(a, b, 1, m)  # out as torch's 4th positional
k = torch.norm(x, 2, 1, False, n, torch.float32)  # dtype after it
torch.tensordot(a, b, 1, out=m)  # the keyword form, for comparison
