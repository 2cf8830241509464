"""Sine-wave sequence prediction in the style of pytorch/examples/time_sequence_prediction:
two LSTMCells unrolled over time (plus future steps), MSELoss, the LBFGS optimizer with a
closure.  The waves are generated with numpy and saved to a file the script reads back."""
import argparse
import json
import os

import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim


class Sequence(nn.Module):
    def __init__(self, hidden=8):
        super(Sequence, self).__init__()
        self.hidden = hidden
        self.lstm1 = nn.LSTMCell(1, hidden)
        self.lstm2 = nn.LSTMCell(hidden, hidden)
        self.linear = nn.Linear(hidden, 1)

    def forward(self, input, future=0):
        outputs = []
        h_t = torch.zeros(input.size(0), self.hidden, dtype=torch.float32)
        c_t = torch.zeros(input.size(0), self.hidden, dtype=torch.float32)
        h_t2 = torch.zeros(input.size(0), self.hidden, dtype=torch.float32)
        c_t2 = torch.zeros(input.size(0), self.hidden, dtype=torch.float32)
        for input_t in input.split(1, dim=1):
            h_t, c_t = self.lstm1(input_t, (h_t, c_t))
            h_t2, c_t2 = self.lstm2(h_t, (h_t2, c_t2))
            output = self.linear(h_t2)
            outputs += [output]
        for _i in range(future):
            h_t, c_t = self.lstm1(output, (h_t, c_t))
            h_t2, c_t2 = self.lstm2(h_t, (h_t2, c_t2))
            output = self.linear(h_t2)
            outputs += [output]
        return torch.cat(outputs, dim=1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--init", required=True)
    parser.add_argument("--log", required=True)
    parser.add_argument("--ckpt", required=True)
    parser.add_argument("--steps", type=int, default=3)
    args = parser.parse_args()

    data_file = os.path.join(os.path.dirname(os.path.abspath(args.log)), "sine_traindata.npy")
    if not os.path.exists(data_file):
        rng = np.random.RandomState(2)
        T, L, N = 20, 12, 6
        x = np.empty((N, L), np.int64)
        x[:] = np.array(range(L)) + rng.randint(-4 * T, 4 * T, N).reshape(N, 1)
        np.save(data_file, np.sin(x / 1.0 / T).astype(np.float32))
    data = np.load(data_file)
    input = torch.from_numpy(data[2:, :-1])
    target = torch.from_numpy(data[2:, 1:])
    test_input = torch.from_numpy(data[:2, :-1])
    test_target = torch.from_numpy(data[:2, 1:])

    # seeded as pytorch/examples' time_sequence_prediction is: some unseeded draws make LBFGS's
    # fixed step overshoot (loss 160 at one evaluation), where float32 rounding differences of
    # 1e-7 between any two implementations grow to 5e-3 at the next evaluations (measured)
    np.random.seed(0)
    torch.manual_seed(0)
    seq = Sequence()
    if os.path.exists(args.init):
        seq.load_state_dict(torch.load(args.init))
    else:
        torch.save(seq.state_dict(), args.init)
    criterion = nn.MSELoss()
    optimizer = optim.LBFGS(seq.parameters(), lr=0.5, max_iter=4)

    log = {"closure": [], "test": []}
    for i in range(args.steps):
        def closure():
            optimizer.zero_grad()
            out = seq(input)
            loss = criterion(out, target)
            log["closure"].append(loss.item())
            loss.backward()
            return loss
        optimizer.step(closure)
        with torch.no_grad():
            future = 3
            pred = seq(test_input, future=future)
            loss = criterion(pred[:, :-future], test_target)
            log["test"].append(loss.item())
            print("STEP:", i, "test loss:", loss.item())

    torch.save(seq.state_dict(), args.ckpt)
    seq2 = Sequence()
    seq2.load_state_dict(torch.load(args.ckpt))
    with torch.no_grad():
        log["reloaded"] = criterion(seq2(test_input), test_target).item()
    with open(args.log, "w") as f:
        json.dump(log, f)


if __name__ == "__main__":
    main()
