import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class TransformerModel(nn.Module):
    """The word-level language model of pytorch/examples, transformer variant."""

    def __init__(self, ntoken, ninp, nhead, nhid, nlayers, dropout=0.5):
        super().__init__()
        self.pos_drop = nn.Dropout(p=dropout)
        layer = nn.TransformerEncoderLayer(ninp, nhead, nhid, dropout)
        self.transformer_encoder = nn.TransformerEncoder(layer, nlayers)
        self.encoder = nn.Embedding(ntoken, ninp)
        self.decoder = nn.Linear(ninp, ntoken)
        self.attn = nn.MultiheadAttention(ninp, nhead, batch_first=True)
        self.ninp = ninp

    def forward(self, src, has_mask=True):
        mask = nn.Transformer.generate_square_subsequent_mask(len(src)) if has_mask else None
        self.src_mask = mask  # a plain attribute in torch: never a parameter
        src = self.pos_drop(self.encoder(src) * math.sqrt(self.ninp))
        out = self.transformer_encoder(src, mask)
        out, weights = self.attn(out, out, out, need_weights=True)
        return F.log_softmax(self.decoder(out), dim=-1)


class Heads(nn.Module):
    def __init__(self):
        super().__init__()
        self.pool = nn.MaxPool1d(2)
        self.avg = nn.AdaptiveAvgPool1d(1)
        self.drop = nn.Dropout2d(0.2)
        self.loss = nn.NLLLoss(ignore_index=0, reduction="sum")
        self.act = nn.LogSoftmax()
        self.full = nn.Transformer(d_model=16, nhead=2, num_encoder_layers=1, num_decoder_layers=1)

    def forward(self, x, target):
        y = self.avg(self.pool(x)).squeeze(-1)
        y = self.drop(y)  # 2-D input: element-wise, as torch
        return self.loss(self.act(y), target) + F.dropout(y, 0.1).sum()


def inspect(model):
    h = model.decoder.register_forward_pre_hook(lambda mod, args: None)
    model.double()
    w = model.get_parameter("decoder.weight")
    h.remove()
    return w
