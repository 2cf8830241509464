"""Character-level language model with a small nn.TransformerEncoder (causal mask, sinusoidal
positional encoding kept in a buffer), AdamW + a LambdaLR warm-up."""
import argparse
import json
import math
import os

import numpy as np
import torch
import torch.nn as nn

TEXT = "the quick brown fox jumps over the lazy dog and the dog sleeps "


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, max_len=64):
        super().__init__()
        position = torch.arange(max_len).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
        pe = torch.zeros(max_len, 1, d_model)
        pe[:, 0, 0::2] = torch.sin(position * div_term)
        pe[:, 0, 1::2] = torch.cos(position * div_term)
        self.register_buffer("pe", pe)

    def forward(self, x):
        return x + self.pe[:x.size(0)]


class TransformerModel(nn.Module):
    def __init__(self, ntoken, d_model=16, nhead=2, d_hid=32, nlayers=2):
        super().__init__()
        self.pos_encoder = PositionalEncoding(d_model)
        layer = nn.TransformerEncoderLayer(d_model, nhead, d_hid, dropout=0.0)
        self.transformer_encoder = nn.TransformerEncoder(layer, nlayers)
        self.embedding = nn.Embedding(ntoken, d_model)
        self.d_model = d_model
        self.linear = nn.Linear(d_model, ntoken)

    def forward(self, src, src_mask):
        src = self.embedding(src) * math.sqrt(self.d_model)
        src = self.pos_encoder(src)
        output = self.transformer_encoder(src, src_mask)
        return self.linear(output)


def causal_mask(sz):
    return torch.triu(torch.full((sz, sz), float("-inf")), diagonal=1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--init", required=True)
    parser.add_argument("--log", required=True)
    parser.add_argument("--ckpt", required=True)
    parser.add_argument("--steps", type=int, default=6)
    args = parser.parse_args()

    chars = sorted(set(TEXT))
    stoi = {c: i for i, c in enumerate(chars)}
    data = torch.tensor([stoi[c] for c in TEXT], dtype=torch.long)
    seq_len, batch = 8, 4
    starts = np.random.RandomState(0).randint(0, len(TEXT) - seq_len - 1, size=(args.steps, batch))

    model = TransformerModel(len(chars))
    if os.path.exists(args.init):
        model.load_state_dict(torch.load(args.init))
    else:
        torch.save(model.state_dict(), args.init)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: min(1.0, (step + 1) / 3))
    criterion = nn.CrossEntropyLoss()
    mask = causal_mask(seq_len)

    losses = []
    model.train()
    for step in range(args.steps):
        x = torch.stack([data[s:s + seq_len] for s in starts[step]], dim=1)
        y = torch.stack([data[s + 1:s + 1 + seq_len] for s in starts[step]], dim=1)
        logits = model(x, mask)
        loss = criterion(logits.view(-1, len(chars)), y.reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
        optimizer.step()
        scheduler.step()
        losses.append(loss.item())
        print(f"step {step} loss {loss.item():.4f} lr {scheduler.get_last_lr()[0]:.5f}")

    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "chars": chars}, args.ckpt)
    ckpt = torch.load(args.ckpt)
    restored = TransformerModel(len(ckpt["chars"]))
    restored.load_state_dict(ckpt["model"])
    restored.eval()
    with torch.no_grad():
        logits = restored(x, mask)
        reloaded = criterion(logits.view(-1, len(chars)), y.reshape(-1)).item()
    with open(args.log, "w") as f:
        json.dump({"train": losses, "reloaded": reloaded}, f)


if __name__ == "__main__":
    main()
