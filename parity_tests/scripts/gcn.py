"""Graph convolutional network (Kipf & Welling) on a small random graph: a dense normalised
adjacency D^-1/2 (A + I) D^-1/2, GraphConvolution layers with nn.Parameter weights and
torch.mm, log_softmax + NLL on the training nodes, Adam with weight decay."""
import argparse
import json
import math
import os

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.nn.parameter import Parameter


class GraphConvolution(nn.Module):
    def __init__(self, in_features, out_features, bias=True):
        super(GraphConvolution, self).__init__()
        self.weight = Parameter(torch.FloatTensor(in_features, out_features))
        if bias:
            self.bias = Parameter(torch.FloatTensor(out_features))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.weight.size(1))
        self.weight.data.uniform_(-stdv, stdv)
        if self.bias is not None:
            self.bias.data.uniform_(-stdv, stdv)

    def forward(self, input, adj):
        support = torch.mm(input, self.weight)
        output = torch.mm(adj, support)
        if self.bias is not None:
            return output + self.bias
        return output


class GCN(nn.Module):
    def __init__(self, nfeat, nhid, nclass):
        super(GCN, self).__init__()
        self.gc1 = GraphConvolution(nfeat, nhid)
        self.gc2 = GraphConvolution(nhid, nclass)

    def forward(self, x, adj):
        x = F.relu(self.gc1(x, adj))
        x = self.gc2(x, adj)
        return F.log_softmax(x, dim=1)


def normalize(mx):
    """Row-normalise a numpy matrix (pygcn's utils.normalize, dense)."""
    rowsum = np.array(mx.sum(1))
    r_inv = np.power(rowsum, -1.0).flatten()
    r_inv[np.isinf(r_inv)] = 0.0
    return np.diag(r_inv).dot(mx)


def normalize_adj(adj):
    """Symmetric normalisation D^-1/2 (A + I) D^-1/2 with torch ops."""
    adj = adj + torch.eye(adj.size(0))
    d_inv_sqrt = adj.sum(1).pow(-0.5)
    d_mat = torch.diag(d_inv_sqrt)
    return d_mat.mm(adj).mm(d_mat)


def accuracy(output, labels):
    preds = output.max(1)[1].type_as(labels)
    return preds.eq(labels).double().sum().item() / len(labels)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--init", required=True)
    parser.add_argument("--log", required=True)
    parser.add_argument("--ckpt", required=True)
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--weight_decay", type=float, default=5e-4)
    args = parser.parse_args()

    rng = np.random.RandomState(0)
    n, nfeat, nclass = 20, 6, 3
    labels_np = rng.randint(0, nclass, size=n)
    a = (rng.rand(n, n) < 0.15) | (labels_np[:, None] == labels_np[None, :]) & (rng.rand(n, n) < 0.3)
    a = np.triu(a, 1)
    adj = normalize_adj(torch.from_numpy((a | a.T).astype(np.float32)))
    features = normalize(np.abs(rng.randn(n, nfeat)) + 2 * np.eye(nclass, nfeat)[labels_np])
    features = torch.FloatTensor(features.astype(np.float32))
    labels = torch.LongTensor(labels_np)
    idx_train, idx_val = torch.LongTensor(range(12)), torch.LongTensor(range(12, 20))

    model = GCN(nfeat=nfeat, nhid=8, nclass=nclass)
    if os.path.exists(args.init):
        model.load_state_dict(torch.load(args.init))
    else:
        torch.save(model.state_dict(), args.init)
    optimizer = optim.Adam(model.parameters(), lr=args.lr, weight_decay=args.weight_decay)

    log = {"train": [], "val": [], "acc_val": []}
    for epoch in range(args.epochs):
        model.train()
        optimizer.zero_grad()
        output = model(features, adj)
        loss_train = F.nll_loss(output[idx_train], labels[idx_train])
        loss_train.backward()
        optimizer.step()
        model.eval()
        output = model(features, adj)
        loss_val = F.nll_loss(output[idx_val], labels[idx_val])
        log["train"].append(loss_train.item())
        log["val"].append(loss_val.item())
        log["acc_val"].append(accuracy(output[idx_val], labels[idx_val]))
        print("Epoch: {:04d} loss_train: {:.4f} loss_val: {:.4f}".format(epoch + 1, loss_train.item(), loss_val.item()))

    torch.save(model.state_dict(), args.ckpt)
    model = GCN(nfeat=nfeat, nhid=8, nclass=nclass)
    model.load_state_dict(torch.load(args.ckpt))
    model.eval()
    log["reloaded"] = F.nll_loss(model(features, adj)[idx_val], labels[idx_val]).item()
    with open(args.log, "w") as f:
        json.dump(log, f)


if __name__ == "__main__":
    main()
