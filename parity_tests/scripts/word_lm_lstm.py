"""Word-level language model in the style of pytorch/examples/word_language_model: Embedding +
LSTM (sequence-first) + tied decoder, truncated BPTT with repackaged hidden state,
clip_grad_norm_ and the manual SGD update through p.data / p.grad."""
import argparse
import json
import os

import numpy as np
import torch
import torch.nn as nn

NTOKENS = 20


def batchify(data, bsz):
    nbatch = data.size(0) // bsz
    data = data.narrow(0, 0, nbatch * bsz)
    return data.view(bsz, -1).t().contiguous()


def get_batch(source, i, bptt):
    seq_len = min(bptt, len(source) - 1 - i)
    data = source[i:i + seq_len]
    target = source[i + 1:i + 1 + seq_len].view(-1)
    return data, target


class RNNModel(nn.Module):
    def __init__(self, ntoken, ninp, nhid, nlayers, dropout=0.0, tie_weights=True):
        super(RNNModel, self).__init__()
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = nn.LSTM(ninp, nhid, nlayers, dropout=dropout)
        self.decoder = nn.Linear(nhid, ntoken)
        if tie_weights:
            self.decoder.weight = self.encoder.weight
        self.nhid, self.nlayers = nhid, nlayers

    def forward(self, input, hidden):
        emb = self.drop(self.encoder(input))
        output, hidden = self.rnn(emb, hidden)
        output = self.drop(output)
        decoded = self.decoder(output).view(-1, self.decoder.out_features)
        return nn.functional.log_softmax(decoded, dim=1), hidden

    def init_hidden(self, bsz):
        weight = next(self.parameters())
        return (weight.new_zeros(self.nlayers, bsz, self.nhid),
                weight.new_zeros(self.nlayers, bsz, self.nhid))


def repackage_hidden(h):
    if isinstance(h, torch.Tensor):
        return h.detach()
    return tuple(repackage_hidden(v) for v in h)


def main():
    parser = argparse.ArgumentParser(description="PyTorch word-level LSTM language model")
    parser.add_argument("--init", required=True)
    parser.add_argument("--log", required=True)
    parser.add_argument("--ckpt", required=True)
    parser.add_argument("--lr", type=float, default=2.0)
    parser.add_argument("--clip", type=float, default=0.25)
    parser.add_argument("--bptt", type=int, default=5)
    parser.add_argument("--epochs", type=int, default=2)
    args = parser.parse_args()

    rng = np.random.RandomState(0)
    corpus = torch.tensor(rng.randint(0, NTOKENS, size=64), dtype=torch.long)
    train_data = batchify(corpus, 4)
    model = RNNModel(NTOKENS, 8, 8, 2)
    if os.path.exists(args.init):
        model.load_state_dict(torch.load(args.init))
    else:
        torch.save(model.state_dict(), args.init)
    criterion = nn.NLLLoss()

    losses = []
    lr = args.lr
    for epoch in range(1, args.epochs + 1):
        model.train()
        hidden = model.init_hidden(4)
        for _batch, i in enumerate(range(0, train_data.size(0) - 1, args.bptt)):
            data, targets = get_batch(train_data, i, args.bptt)
            model.zero_grad()
            hidden = repackage_hidden(hidden)
            output, hidden = model(data, hidden)
            loss = criterion(output, targets)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), args.clip)
            for p in model.parameters():
                p.data.add_(p.grad, alpha=-lr)
            losses.append(loss.item())
        lr /= 4.0
        print("| epoch {:3d} | loss {:5.2f}".format(epoch, losses[-1]))

    with open(args.ckpt, "wb") as f:
        torch.save(model.state_dict(), f)
    with open(args.ckpt, "rb") as f:
        state = torch.load(f)
    model = RNNModel(NTOKENS, 8, 8, 2)
    model.load_state_dict(state)
    model.eval()
    with torch.no_grad():
        data, targets = get_batch(train_data, 0, args.bptt)
        output, _ = model(data, model.init_hidden(4))
        reloaded = criterion(output, targets).item()
    with open(args.log, "w") as f:
        json.dump({"train": losses, "reloaded": reloaded}, f)


if __name__ == "__main__":
    main()
