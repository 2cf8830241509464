"""Recurrent layers, cells and packed sequences: built in ``setup`` (torch's ``state_dict`` loaded
by key into the converted module), run over a sequence, outputs and final states compared,
gradients w.r.t. the input, the initial states and every weight."""
from ..case import case

A = "recurrent"
# Each step is a few matmuls of <=16 products, then sigmoid/tanh; 5-7 steps compound the
# float32 rounding of the state (measured below 2e-6 abs): 1e-4 relative is comfortable.
RNN_TOL = dict(rtol=1e-4, atol=1e-5, why="float32 matmuls and sigmoid/tanh over 5-7 recurrent steps")
SEQ = {"x": "f32[5,3,4]"}        # (T, B, F)
SEQ_BF = {"x": "f32[3,5,4]"}     # (B, T, F)


def rnn(name, ctor, inputs=SEQ, variant="", call="out = m(x)", **kw):
    return case(A, f"torch.nn.{name}", call, inputs, variant=variant, setup=f"m = nn.{ctor}", **{**RNN_TOL, **kw})


CASES = [
    rnn("LSTM", "LSTM(4, 6)"),
    rnn("LSTM", "LSTM(4, 6, batch_first=True)", SEQ_BF, variant="batch_first"),
    rnn("LSTM", "LSTM(4, 6, num_layers=2, bidirectional=True)", variant="2layers_bidir"),
    rnn("LSTM", "LSTM(4, 6, 2, batch_first=True, bidirectional=True)", SEQ_BF, variant="bidir_batch_first_positional"),
    rnn("LSTM", "LSTM(4, 6, bias=False)", variant="nobias"),
    rnn("LSTM", "LSTM(4, 6, proj_size=3)", variant="proj"),
    rnn("LSTM", "LSTM(4, 6, num_layers=2, dropout=0.5)", variant="dropout_eval", call="m.eval()\nout = m(x)"),
    rnn("LSTM", "LSTM(4, 6)", {**SEQ, "h": "f32[1,3,6]", "c": "f32[1,3,6]"}, variant="initial_state",
        call="out = m(x, (h, c))"),
    rnn("LSTM", "LSTM(4, 6, batch_first=True)", {"x": "f32[3,5,4]", "h": "f32[1,3,6]", "c": "f32[1,3,6]"},
        variant="initial_state_batch_first", call="y, (hn, cn) = m(x, (h, c))\nout = (y, hn, cn)"),
    rnn("LSTM", "LSTM(4, 6)", {"x": "f32[5,4]"}, variant="unbatched"),
    rnn("LSTM", "LSTM(4, 6)", variant="flatten_parameters", call="m.flatten_parameters()\nout = m(x)"),
    rnn("LSTM", "LSTM(4, 6, num_layers=2)", variant="param_names",
        call="out = [ord(ch) for n, _ in m.named_parameters() for ch in n + '|']", grad=False),
    rnn("LSTM", "LSTM(4, 6, num_layers=2)", variant="weights_shapes",
        call="out = [tuple(w.shape) for layer in m.all_weights for w in layer]", grad=False),
    rnn("LSTM", "LSTM(4, 6, num_layers=2, dropout=0.3)", variant="train_shape",
        call="m.train()\ny, (h, c) = m(x)\nout = (y.shape, h.shape, c.shape)", grad=False),
    rnn("GRU", "GRU(4, 6)"),
    rnn("GRU", "GRU(4, 6, num_layers=2, batch_first=True, bidirectional=True)", SEQ_BF, variant="2layers_bidir_bf"),
    rnn("GRU", "GRU(4, 6)", {**SEQ, "h": "f32[1,3,6]"}, variant="initial_state", call="out = m(x, h)"),
    rnn("GRU", "GRU(4, 6, bias=False)", {"x": "f32[5,4]"}, variant="unbatched_nobias"),
    rnn("RNN", "RNN(4, 6)"),
    rnn("RNN", "RNN(4, 6, 2, 'relu', batch_first=True)", SEQ_BF, variant="relu_positional"),
    rnn("RNN", "RNN(4, 6, nonlinearity='relu', bidirectional=True)", {**SEQ, "h": "f32[2,3,6]"},
        variant="relu_bidir_state", call="out = m(x, h)"),
    rnn("LSTMCell", "LSTMCell(4, 6)", {"x": "f32[3,4]"}),
    rnn("LSTMCell", "LSTMCell(4, 6)", {"x": "f32[3,4]", "h": "f32[3,6]", "c": "f32[3,6]"}, variant="state_loop",
        call="out = []\nfor _ in range(3):\n    h, c = m(x, (h, c))\n    out.append(h)"),
    rnn("LSTMCell", "LSTMCell(4, 6, bias=False)", {"x": "f32[4]"}, variant="unbatched_nobias"),
    rnn("GRUCell", "GRUCell(4, 6)", {"x": "f32[3,4]", "h": "f32[3,6]"}, call="out = m(x, h)"),
    rnn("GRUCell", "GRUCell(4, 6)", {"x": "f32[3,4]"}, variant="no_state"),
    rnn("RNNCell", "RNNCell(4, 6)", {"x": "f32[3,4]", "h": "f32[3,6]"}, call="out = m(x, h)"),
    rnn("RNNCell", "RNNCell(4, 6, nonlinearity='relu')", {"x": "f32[3,4]"}, variant="relu"),
    case(A, "torch.nn.utils.rnn.pad_sequence",
         "out = torch.nn.utils.rnn.pad_sequence([a, b[:2], c[:1]])",
         {"a": "f32[3,4]", "b": "f32[3,4]", "c": "f32[3,4]"}),
    case(A, "torch.nn.utils.rnn.pad_sequence",
         "from torch.nn.utils.rnn import pad_sequence\n"
         "out = pad_sequence([a[:1], b], batch_first=True, padding_value=-1.0)",
         {"a": "f32[3,4]", "b": "f32[3,4]"}, variant="batch_first"),
    case(A, "torch.nn.utils.rnn.pack_padded_sequence",
         "from torch.nn.utils.rnn import pack_padded_sequence\n"
         "p = pack_padded_sequence(x, [5, 3, 2])\nout = (p.data, p.batch_sizes)", SEQ),
    case(A, "torch.nn.utils.rnn.pack_padded_sequence",
         "from torch.nn.utils.rnn import pack_padded_sequence\n"
         "p = pack_padded_sequence(x, torch.tensor([2, 5, 3]), batch_first=True, enforce_sorted=False)\n"
         "out = (p.data, p.batch_sizes, p.sorted_indices, p.unsorted_indices)", SEQ_BF, variant="unsorted"),
    case(A, "torch.nn.utils.rnn.pad_packed_sequence",
         "from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence\n"
         "p = pack_padded_sequence(x, [3, 5, 2], batch_first=True, enforce_sorted=False)\n"
         "out = pad_packed_sequence(p, batch_first=True)", SEQ_BF),
    case(A, "torch.nn.utils.rnn.pack_sequence",
         "out = torch.nn.utils.rnn.pack_sequence([a, b[:2]]).data", {"a": "f32[3,4]", "b": "f32[3,4]"}),
    rnn("LSTM", "LSTM(4, 6, bidirectional=True)", SEQ, variant="packed",
        call="from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence\n"
             "p = pack_padded_sequence(x, [5, 3, 2])\n"
             "y, (h, c) = m(p)\nout = (pad_packed_sequence(y)[0], h, c)"),
    rnn("GRU", "GRU(4, 6, batch_first=True)", SEQ_BF, variant="packed_unsorted",
        call="from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence\n"
             "p = pack_padded_sequence(x, [2, 5, 3], batch_first=True, enforce_sorted=False)\n"
             "y, h = m(p)\nout = (pad_packed_sequence(y, batch_first=True)[0], h)"),
    case(A, "torch.nn.utils.rnn.unpad_sequence",
         "from torch.nn.utils.rnn import unpad_sequence\nout = unpad_sequence(x * 1, torch.tensor([5, 2, 3]))", SEQ),
    case(A, "torch.nn.utils.rnn.unpack_sequence",
         "from torch.nn.utils.rnn import pack_sequence, unpack_sequence\n"
         "out = unpack_sequence(pack_sequence([a[:2], b, c[:1]], enforce_sorted=False))",
         {"a": "f32[3,4]", "b": "f32[3,4]", "c": "f32[3,4]"}),
    case(A, "torch.nn.utils.rnn.PackedSequence",
         "from torch.nn.utils.rnn import PackedSequence, pack_padded_sequence\n"
         "p = pack_padded_sequence(x, [5, 3, 2])\nout = (isinstance(p, PackedSequence), p[0], p[1])", SEQ),
    rnn("RNNBase", "GRU(4, 6)", call="out = (isinstance(m, nn.RNNBase), m(x)[0])"),
    rnn("RNNCellBase", "LSTMCell(4, 6)", {"x": "f32[3,4]"}, call="out = (isinstance(m, nn.RNNCellBase), m(x)[1])"),
]
