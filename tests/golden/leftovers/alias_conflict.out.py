import shims
torch = shims.unported("torch")
from jittor import nn
x = torch.nn.NoSuchLayer(3)  # jtport: JT001 torch.nn.NoSuchLayer: no Jittor mapping for this torch API
y = nn.Conv2d(1, 1, 1)
