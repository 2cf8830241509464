import torch
import torch.nn as nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence, pad_sequence


class CharRNN(nn.Module):
    """A word-level language model: embedding, a 2-layer LSTM, a decoder."""

    def __init__(self, ntoken, ninp, nhid, nlayers, dropout=0.5):
        super().__init__()
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = nn.LSTM(ninp, nhid, nlayers, dropout=dropout, batch_first=True)
        self.decoder = nn.Linear(nhid, ntoken)
        self.nhid, self.nlayers = nhid, nlayers

    def forward(self, x, hidden):
        self.rnn.flatten_parameters()
        out, hidden = self.rnn(self.encoder(x), hidden)
        return self.decoder(out), hidden

    def init_hidden(self, bsz):
        weight = next(self.parameters())
        return (weight.new_zeros(self.nlayers, bsz, self.nhid),
                weight.new_zeros(self.nlayers, bsz, self.nhid))


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(8, 16, bidirectional=True)
        self.cell = nn.LSTMCell(32, 16)
        self.rnn = nn.RNN(16, 4, nonlinearity="relu")

    def forward(self, seqs, lengths):
        padded = pad_sequence(seqs)
        packed = pack_padded_sequence(padded, lengths, enforce_sorted=False)
        out, h = self.gru(packed)
        out, _ = pad_packed_sequence(out)
        hx, cx = self.cell(out[-1])
        return self.rnn(hx.unsqueeze(0))[0], h
