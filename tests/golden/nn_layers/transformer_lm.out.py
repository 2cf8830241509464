import math

import shims
from jittor import nn


class TransformerModel(shims.nn.Module):
    """The word-level language model of pytorch/examples, transformer variant."""

    def __init__(self, ntoken, ninp, nhead, nhid, nlayers, dropout=0.5):
        super().__init__()
        self.pos_drop = shims.nn.Dropout(p=dropout)
        layer = shims.nn.TransformerEncoderLayer(ninp, nhead, nhid, dropout)
        self.transformer_encoder = shims.nn.TransformerEncoder(layer, nlayers)
        self.encoder = nn.Embedding(ntoken, ninp)
        self.decoder = nn.Linear(ninp, ntoken)
        self.attn = shims.nn.MultiheadAttention(ninp, nhead, batch_first=True)
        self.ninp = ninp

    def execute(self, src, has_mask=True):
        mask = shims.nn.Transformer.generate_square_subsequent_mask(len(src)) if has_mask else None
        self.src_mask = mask  # a plain attribute in torch: never a parameter
        src = self.pos_drop(self.encoder(src) * math.sqrt(self.ninp))
        out = self.transformer_encoder(src, mask)
        out, weights = self.attn(out, out, out, need_weights=True)
        return shims.nn.log_softmax(self.decoder(out), dim=-1)


class Heads(shims.nn.Module):
    def __init__(self):
        super().__init__()
        self.pool = shims.nn.MaxPool1d(2)
        self.avg = shims.nn.AdaptiveAvgPool1d(1)
        self.drop = shims.nn.Dropout2d(0.2)
        self.loss = shims.nn.NLLLoss(ignore_index=0, reduction="sum")
        self.act = shims.nn.LogSoftmax()
        self.full = shims.nn.Transformer(d_model=16, nhead=2, num_encoder_layers=1, num_decoder_layers=1)

    def execute(self, x, target):
        y = shims.squeeze(self.avg(self.pool(x)), -1)
        y = self.drop(y)  # 2-D input: element-wise, as torch
        return self.loss(self.act(y), target) + shims.sum(shims.nn.dropout(y, 0.1))


def inspect(model):
    h = model.decoder.register_forward_pre_hook(lambda mod, args: None)
    model.double()
    w = model.get_parameter("decoder.weight")
    h.remove()
    return w
