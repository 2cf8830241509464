"""``torch.nn`` layers and functions of ``shims/nn`` (losses, activations, pooling1d, ...), ``dropouts.py`` and
``transformer.py`` (rows in ``porter/mapping/nn_layers.toml``): activations, softmax with the
implicit dim, losses, 1-D pools, padding of every rank and mode, dropout (statistics and mask
structure: the draws are Jittor's own), attention and transformers (torch's state_dict loaded by
key)."""
from ..case import case

A = "nn_layers"
IMG = {"x": "f32[2,4,6,6]"}
SEQ = {"x": "f32[3,5,6]"}
VEC = {"x": "f32[4,6]"}
ULP = dict(rtol=2e-5, atol=2e-6, why="float32 transcendental: a few ulps between libm implementations")
# attention: scores are sums of 4-8 products, then softmax and another matmul; a transformer
# stacks 2 layers of that with layer norms (measured below 2e-6 abs)
ATT = dict(rtol=1e-4, atol=1e-5, why="float32 matmuls, softmax and layer norms in a different order")
LOSS = dict(rtol=2e-5, atol=2e-6, why="float32 sums of 24 terms with exp/log")


def layer(name, ctor, inputs=IMG, variant="", call="out = m(x)", **kw):
    return case(A, f"torch.nn.{name}", call, inputs, variant=variant, setup=f"m = nn.{ctor}", **kw)


def f(name, src, inputs=VEC, variant="", **kw):
    return case(A, f"torch.nn.functional.{name}", src, inputs, variant=variant, **kw)


# a dropout output's mask: fraction zeroed near p, and zeros only in whole slices along ``dims``
def drop_stats(expr, p=0.5, n=6000, tol=0.05):
    return (f"y = {expr}\nz = (y == 0).float()\n"
            f"out = (abs(z.mean().item() - {p}) < {tol}, bool(((y == 0) | ((y - 1 / (1 - {p})).abs() < 1e-5)).all()))")


KPM = "kpm = torch.tensor([[False, False, False, False, False], [False, False, False, True, True], " \
      "[False, False, False, False, True]])\n"
CAUSAL = "causal = torch.triu(torch.ones(4, 4, dtype=torch.bool), 1)\n"
QKV = {"q": "f32[4,3,8]", "k": "f32[5,3,8]", "v": "f32[5,3,8]"}
TR = "d_model=8, nhead=2, dim_feedforward=16, dropout=0.0"

CASES = [
    # softmax family, implicit dim
    layer("Softmax", "Softmax()", {"x": "f32[3,4,5]"}, variant="implicit_dim_3d"),
    layer("Softmax", "Softmax()", {"x": "f32[2,3,4,5]"}, variant="implicit_dim_4d"),
    layer("LogSoftmax", "LogSoftmax()", {"x": "f32[4,6]"}, variant="implicit_dim", **ULP),
    layer("Softmin", "Softmin(dim=1)", VEC),
    layer("Softmin", "Softmin()", {"x": "f32[6]"}, variant="implicit_dim"),
    f("softmax", "out = F.softmax(x)", {"x": "f32[3,4,5]"}, variant="implicit_dim_3d"),
    f("softmax", "out = F.softmax(x, dim=-1, dtype=torch.float64)", variant="dtype"),
    f("log_softmax", "out = F.log_softmax(x)", variant="implicit_dim_2d", **ULP),
    f("log_softmax", "out = F.log_softmax(x, 0)", {"x": "f32[5]"}, variant="positional", **ULP),
    f("softmin", "out = F.softmin(x)", {"x": "f32[2,3,4,5]"}, variant="implicit_dim_4d"),
    # activations
    layer("GLU", "GLU()", {"x": "f32[4,8]"}),
    layer("GLU", "GLU(dim=1)", variant="dim1"),
    layer("Hardtanh", "Hardtanh(min_val=-2.0, max_val=0.5)", variant="kw", call="out = m(x * 2)"),
    layer("Threshold", "Threshold(0.5, -1.0, inplace=True)", variant="inplace", call="out = m(x * 1.0)"),
    layer("CELU", "CELU(alpha=2.0)", variant="alpha", **ULP),
    layer("SELU", "SELU(inplace=True)", variant="inplace", call="out = m(x * 1.0)", **ULP),
    layer("Mish", "Mish()", variant="vec", inputs=VEC, **ULP),
    f("hardtanh", "out = F.hardtanh(x, min_val=-0.3, max_val=0.2)", variant="kw"),
    # dropout: statistics of Jittor's draws and torch's mask structure
    layer("Dropout", "Dropout(0.5)", {}, variant="training_by_default", call=drop_stats("m(torch.ones(6000))"), grad=False),
    layer("Dropout", "Dropout(p=0.2)", {}, variant="train_eval",
          call="m.train()\na = m(torch.ones(6000))\nm.eval()\nb = m(torch.ones(6000))\n"
               "out = (abs((a == 0).float().mean().item() - 0.2) < 0.05, bool((b == 1).all()))", grad=False),
    layer("Dropout1d", "Dropout1d(0.5)", {}, call=drop_stats("m(torch.ones(40, 150, 7))") +
          "\nout = out + (bool((y.std(dim=-1) < 1e-5).all()),)", grad=False),
    layer("Dropout1d", "Dropout1d(0.5)", {"x": "f32[4,5]"}, variant="eval_unbatched", call="m.eval()\nout = m(x)"),
    layer("Dropout2d", "Dropout2d(0.5)", {}, variant="channels_4d", call=drop_stats("m(torch.ones(40, 150, 3, 4))") +
          "\nout = out + (bool((y.flatten(2).std(dim=-1) < 1e-5).all()),)", grad=False),
    layer("Dropout2d", "Dropout2d(0.5)", {}, variant="input_3d_is_NCL", call=drop_stats("m(torch.ones(40, 150, 7))") +
          "\nout = out + (bool((y.std(dim=-1) < 1e-5).all()),)", grad=False),
    layer("Dropout2d", "Dropout2d(0.5)", {}, variant="input_2d_elementwise", call=drop_stats("m(torch.ones(60, 100))") +
          "\nout = out + (bool((y.std(dim=-1) > 0).all()),)", grad=False),
    layer("Dropout3d", "Dropout3d(0.5)", {}, call=drop_stats("m(torch.ones(30, 200, 2, 2, 2))") +
          "\nout = out + (bool((y.flatten(2).std(dim=-1) < 1e-5).all()),)", grad=False),
    layer("Dropout3d", "Dropout3d()", {"x": "f32[2,3,2,2]"}, variant="eval_unbatched", call="m.eval()\nout = m(x)"),
    layer("AlphaDropout", "AlphaDropout(0.2)", {"x": "f32[20000]"}, variant="train_moments",
          call="y = m(x)\nout = (abs(y.mean().item()) < 0.05, abs(y.std().item() - 1) < 0.05)", grad=False),
    layer("FeatureAlphaDropout", "FeatureAlphaDropout(0.2)", {"x": "f32[2,3,4]"}, call="m.eval()\nout = m(x)"),
    layer("FeatureAlphaDropout", "FeatureAlphaDropout(0.2)", {}, variant="train_structure",
          call="y = m(torch.zeros(200, 50, 6))\nout = bool((y.std(dim=-1) < 1e-5).all())", grad=False),
    f("dropout", drop_stats("F.dropout(torch.ones(6000), 0.5)"), {}, variant="training_by_default", grad=False),
    f("dropout", "out = F.dropout(x, p=0.3, training=False)", variant="not_training"),
    f("dropout1d", "out = F.dropout1d(x, 0.5, training=False)", SEQ),
    f("dropout2d", drop_stats("F.dropout2d(torch.ones(40, 150, 7))") + "\nout = out + (bool((y.std(dim=-1) < 1e-5).all()),)",
      {}, variant="input_3d", grad=False),
    f("dropout2d", "out = F.dropout2d(x, training=False)", IMG, variant="not_training"),
    f("dropout3d", "out = F.dropout3d(x, 0.4, False)", {"x": "f32[1,2,2,3,3]"}),
    f("alpha_dropout", "out = F.alpha_dropout(x, 0.3)", variant="default_not_training"),
    f("feature_alpha_dropout", "out = F.feature_alpha_dropout(x, 0.3, training=False)", SEQ),
    # losses
    layer("NLLLoss", "NLLLoss(weight=torch.tensor([1.0, 2.0, 0.5, 1.5, 1.0, 3.0]), ignore_index=2)",
          {"x": "f32[8,6]", "t": "i64<0,6>[8]"}, variant="weight_ignore", call="out = m(x.log_softmax(1), t)", **LOSS),
    layer("NLLLoss", "NLLLoss(reduction='sum')", {"x": "f32[8,6]", "t": "i64<0,6>[8]"}, variant="sum",
          call="out = m(x.log_softmax(1), t)", **LOSS),
    layer("NLLLoss", "NLLLoss(reduction='none', ignore_index=0)", {"x": "f32[8,6]", "t": "i64<0,6>[8]"}, variant="none",
          call="out = m(x.log_softmax(1), t)", **LOSS),
    layer("NLLLoss", "NLLLoss()", {"x": "f32[2,4,3,3]", "t": "i64<0,4>[2,3,3]"}, variant="spatial",
          call="out = m(F.log_softmax(x, dim=1), t)", **LOSS),
    layer("HuberLoss", "HuberLoss(reduction='sum')", {"x": "f32[4,6]", "y": "f32[4,6]"}, variant="sum", call="out = m(x, y)"),
    layer("SmoothL1Loss", "SmoothL1Loss(reduction='none', beta=0.3)", {"x": "f32[4,6]", "y": "f32[4,6]"},
          variant="none", call="out = m(x, y)"),
    layer("MarginRankingLoss", "MarginRankingLoss(margin=0.2, reduction='sum')", {"x": "f32[6]", "y": "f32[6]", "t": "f32[6]"},
          variant="sum", call="out = m(x, y, t.sign())"),
    layer("SoftMarginLoss", "SoftMarginLoss()", {"x": "f32[4,6]", "t": "f32[4,6]"}, call="out = m(x, t.sign())",
          const=("t",), **LOSS),
    layer("CosineEmbeddingLoss", "CosineEmbeddingLoss(margin=0.1)", {"x": "f32[5,6]", "y": "f32[5,6]", "t": "f32[5]"},
          call="out = m(x, y, t.sign())", **LOSS),
    layer("HingeEmbeddingLoss", "HingeEmbeddingLoss(margin=0.5)", {"x": "f32[4,6]", "t": "f32[4,6]"},
          call="out = m(x, t.sign())"),
    layer("TripletMarginLoss", "TripletMarginLoss(margin=0.5, p=2.0)", {"a": "f32[5,6]", "p": "f32[5,6]", "n": "f32[5,6]"},
          call="out = m(a, p, n)", **LOSS),
    layer("TripletMarginLoss", "TripletMarginLoss(p=1, swap=True, reduction='none')",
          {"a": "f32[5,6]", "p": "f32[5,6]", "n": "f32[5,6]"}, variant="swap_l1", call="out = m(a, p, n)", **LOSS),
    layer("GaussianNLLLoss", "GaussianNLLLoss()", {"x": "f32[4,6]", "y": "f32[4,6]", "v": "pos[4,6]"},
          call="out = m(x, y, v)", **LOSS),
    layer("GaussianNLLLoss", "GaussianNLLLoss(full=True, eps=0.9, reduction='sum')", {"x": "f32[4,6]", "y": "f32[4,6]", "v": "pos[4]"},
          variant="full_clamped_vector_var", call="out = m(x, y, v)", **LOSS),
    layer("PoissonNLLLoss", "PoissonNLLLoss()", {"x": "f32[4,6]", "y": "pos[4,6]"}, call="out = m(x, y)", **LOSS),
    layer("PoissonNLLLoss", "PoissonNLLLoss(log_input=False, full=True)", {"x": "pos[4,6]", "y": "gt1[4,6]"},
          variant="full", call="out = m(x, y * 2)", **LOSS),
    layer("MultiLabelSoftMarginLoss", "MultiLabelSoftMarginLoss(weight=torch.linspace(0.5, 2, 6))",
          {"x": "f32[4,6]", "t": "bool[4,6]"}, call="out = m(x, t.float())", **LOSS),
    layer("MultiMarginLoss", "MultiMarginLoss()", {"x": "f32[5,6]", "t": "i64<0,6>[5]"}, call="out = m(x, t)", **LOSS),
    layer("MultiMarginLoss", "MultiMarginLoss(p=2, margin=0.5, weight=torch.linspace(0.5, 2, 6), reduction='none')",
          {"x": "f32[5,6]", "t": "i64<0,6>[5]"}, variant="p2_weight", call="out = m(x, t)", **LOSS),
    f("margin_ranking_loss", "out = F.margin_ranking_loss(x, y, t.sign(), margin=0.1)", {"x": "f32[6]", "y": "f32[6]", "t": "f32[6]"}),
    f("soft_margin_loss", "out = F.soft_margin_loss(x, t.sign(), reduction='sum')", {"x": "f32[4,6]", "t": "f32[4,6]"},
      const=("t",), **LOSS),
    f("cosine_embedding_loss", "out = F.cosine_embedding_loss(x, y, t.sign(), reduction='none')",
      {"x": "f32[5,6]", "y": "f32[5,6]", "t": "f32[5]"}, **LOSS),
    f("hinge_embedding_loss", "out = F.hinge_embedding_loss(x, t.sign())", {"x": "f32[4,6]", "t": "f32[4,6]"}),
    f("triplet_margin_loss", "out = F.triplet_margin_loss(a, p, n, margin=0.3)", {"a": "f32[5,6]", "p": "f32[5,6]", "n": "f32[5,6]"},
      **LOSS),
    f("gaussian_nll_loss", "out = F.gaussian_nll_loss(x, y, v, reduction='none')", {"x": "f32[4,6]", "y": "f32[4,6]", "v": "pos[4,1]"},
      **LOSS),
    f("poisson_nll_loss", "out = F.poisson_nll_loss(x, y)", {"x": "f32[4,6]", "y": "pos[4,6]"}, **LOSS),
    f("multilabel_soft_margin_loss", "out = F.multilabel_soft_margin_loss(x, t.float(), reduction='none')",
      {"x": "f32[4,6]", "t": "bool[4,6]"}, **LOSS),
    f("multi_margin_loss", "out = F.multi_margin_loss(x, t, margin=2.0)", {"x": "f32[5,6]", "t": "i64<0,6>[5]"}, **LOSS),
    f("local_response_norm", "out = F.local_response_norm(x, 3, alpha=0.01, beta=0.5, k=2.0)", IMG, **LOSS),
    f("adaptive_max_pool1d", "out = F.adaptive_max_pool1d(x, 3)", SEQ),
    # pooling and padding
    layer("MaxPool1d", "MaxPool1d(3, stride=2, padding=1, ceil_mode=True)", SEQ, variant="ceil_pad"),
    layer("AvgPool1d", "AvgPool1d(2, count_include_pad=False, padding=1)", SEQ, variant="exclude_pad"),
    layer("AdaptiveAvgPool1d", "AdaptiveAvgPool1d(4)", SEQ, variant="nondivisible"),
    layer("AdaptiveMaxPool1d", "AdaptiveMaxPool1d((2,))", SEQ, variant="tuple"),
    layer("ConstantPad3d", "ConstantPad3d((1, 0, 2, 1, 0, 1), 0.25)", {"x": "f32[1,2,3,3,3]"}),
    layer("ZeroPad1d", "ZeroPad1d((2, 1))", SEQ),
    layer("ZeroPad3d", "ZeroPad3d(1)", {"x": "f32[1,2,2,2,2]"}),
    layer("ReflectionPad3d", "ReflectionPad3d(1)", {"x": "f32[1,2,3,3,3]"}),
    layer("ReplicationPad1d", "ReplicationPad1d((3, 1))", SEQ),
    layer("ReplicationPad3d", "ReplicationPad3d((1, 1, 0, 2, 1, 0))", {"x": "f32[1,2,3,3,3]"}),
    layer("CircularPad1d", "CircularPad1d(2)", SEQ),
    layer("CircularPad2d", "CircularPad2d((1, 2, 2, 0))"),
    layer("CircularPad3d", "CircularPad3d(1)", {"x": "f32[1,2,3,3,3]"}),
    layer("Fold", "Fold(output_size=(4, 5), kernel_size=2)", {"x": "f32[2,12,12]"}),
    layer("Unfold", "Unfold(kernel_size=(2, 3), padding=1, stride=2)"),
    # parameter containers
    case(A, "torch.nn.ParameterList", "out = [p * 1 for p in m] + [len(m), m[1] * x]", {"x": "f32[3]"},
         setup="m = nn.ParameterList([nn.Parameter(torch.randn(3)) for _ in range(3)])"),
    case(A, "torch.nn.ParameterDict", "out = (m['a'] * x, m['b'].sum(), len(m), 'a' in m)", {"x": "f32[3]"},
         setup="m = nn.ParameterDict({'a': nn.Parameter(torch.randn(3)), 'b': nn.Parameter(torch.randn(2, 2))})"),
    # attention
    layer("MultiheadAttention", "MultiheadAttention(8, 2)", QKV, call="out = m(q, k, v)", **ATT),
    layer("MultiheadAttention", "MultiheadAttention(8, 2, batch_first=True)", {"x": "f32[3,5,8]"},
          variant="self_batch_first_kpm", call=KPM + "out = m(x, x, x, key_padding_mask=kpm)", **ATT),
    layer("MultiheadAttention", "MultiheadAttention(8, 4, bias=False)", {"q": "f32[4,3,8]"}, variant="causal_bool_mask",
          call=CAUSAL + "out = m(q, q, q, attn_mask=causal, need_weights=False)", **ATT),
    layer("MultiheadAttention", "MultiheadAttention(8, 2)", {**QKV, "fm": "f32[4,5]"}, variant="float_mask_per_head",
          call=KPM + "out = m(q, k, v, attn_mask=fm, key_padding_mask=kpm, average_attn_weights=False)", **ATT),
    layer("MultiheadAttention", "MultiheadAttention(8, 2, kdim=6, vdim=4, add_bias_kv=True, add_zero_attn=True)",
          {"q": "f32[4,3,8]", "k": "f32[5,3,6]", "v": "f32[5,3,4]"}, variant="kdim_vdim_bias_kv_zero_attn",
          call="out = m(q, k, v)", **ATT),
    layer("MultiheadAttention", "MultiheadAttention(8, 2)", {"q": "f32[4,8]", "k": "f32[5,8]"}, variant="unbatched",
          call="out = m(q, k, k)", **ATT),
    f("scaled_dot_product_attention", "out = F.scaled_dot_product_attention(q, k, v)",
      {"q": "f32[2,3,4,8]", "k": "f32[2,3,5,8]", "v": "f32[2,3,5,8]"}, **ATT),
    f("scaled_dot_product_attention", "out = F.scaled_dot_product_attention(q, k, v, is_causal=True, scale=0.5)",
      {"q": "f32[2,3,4,8]", "k": "f32[2,3,4,8]", "v": "f32[2,3,4,8]"}, variant="causal_scale", **ATT),
    f("scaled_dot_product_attention", "m = torch.tril(torch.ones(4, 5, dtype=torch.bool))\n"
      "out = F.scaled_dot_product_attention(q, k, v, attn_mask=m)",
      {"q": "f32[2,4,8]", "k": "f32[2,5,8]", "v": "f32[2,5,8]"}, variant="bool_mask", **ATT),
    f("scaled_dot_product_attention", "out = F.scaled_dot_product_attention(q, k, v, attn_mask=fm, enable_gqa=True)",
      {"q": "f32[1,4,3,8]", "k": "f32[1,2,5,8]", "v": "f32[1,2,5,8]", "fm": "f32[3,5]"}, variant="float_mask_gqa", **ATT),
    f("multi_head_attention_forward",
      "out = F.multi_head_attention_forward(q, k, v, 8, 2, w, b, None, None, False, 0.0, ow, ob, training=False)",
      {**QKV, "w": "f32[24,8]", "b": "f32[24]", "ow": "f32[8,8]", "ob": "f32[8]"}, **ATT),
    layer("TransformerEncoderLayer", f"TransformerEncoderLayer({TR})", {"x": "f32[5,2,8]"}, **ATT),
    layer("TransformerEncoderLayer", "TransformerEncoderLayer(8, 2, 16, dropout=0.1, activation='gelu', norm_first=True, "
          "batch_first=True)", {"x": "f32[3,5,8]"}, variant="gelu_norm_first_kpm_eval",
          call=KPM + "m.eval()\nout = m(x, src_key_padding_mask=kpm)", **ATT),
    layer("TransformerEncoderLayer", "TransformerEncoderLayer(8, 2, 16, 0.0, F.gelu, bias=False)", {"x": "f32[4,2,8]"},
          variant="callable_activation_causal_nobias",
          call="mask = nn.Transformer.generate_square_subsequent_mask(4)\nout = m(x, src_mask=mask, is_causal=True)", **ATT),
    layer("TransformerDecoderLayer", f"TransformerDecoderLayer({TR})", {"x": "f32[4,2,8]", "mem": "f32[5,2,8]"},
          call="out = m(x, mem)", **ATT),
    layer("TransformerDecoderLayer", f"TransformerDecoderLayer({TR}, norm_first=True, batch_first=True)",
          {"x": "f32[3,4,8]", "mem": "f32[3,5,8]"}, variant="norm_first_masks",
          call=KPM + "out = m(x, mem, tgt_mask=nn.Transformer.generate_square_subsequent_mask(4), "
                     "memory_key_padding_mask=kpm)", **ATT),
    layer("TransformerEncoder", f"TransformerEncoder(nn.TransformerEncoderLayer({TR}), num_layers=2, norm=nn.LayerNorm(8))",
          {"x": "f32[5,3,8]"}, call=KPM + "out = m(x, src_key_padding_mask=kpm)", **ATT),
    layer("TransformerDecoder", f"TransformerDecoder(nn.TransformerDecoderLayer({TR}), 2)",
          {"x": "f32[4,2,8]", "mem": "f32[5,2,8]"}, call="out = m(x, mem)", **ATT),
    layer("Transformer", f"Transformer({TR}, num_encoder_layers=2, num_decoder_layers=2)",
          {"src": "f32[5,2,8]", "tgt": "f32[4,2,8]"},
          call="out = m(src, tgt, tgt_mask=nn.Transformer.generate_square_subsequent_mask(4))", **ATT),
    layer("Transformer", f"Transformer({TR}, num_encoder_layers=1, num_decoder_layers=1, batch_first=True, "
          "norm_first=True, activation='gelu')", {"src": "f32[3,5,8]", "tgt": "f32[3,4,8]"}, variant="batch_first_kpm",
          call=KPM + "out = m(src, tgt, src_key_padding_mask=kpm, memory_key_padding_mask=kpm)", **ATT),
    layer("Transformer", f"Transformer({TR}, num_encoder_layers=1, num_decoder_layers=1)", {}, variant="square_mask",
          call="out = m.generate_square_subsequent_mask(5)", grad=False),
]

# torch.NAME, Tensor.NAME and F.NAME calls of this topic, with inputs and tolerances of their own
X45 = {"x": "f32[4,5]"}
SEQ247 = {"x": "f32[2,4,7]"}
SUM30 = dict(rtol=2e-5, atol=2e-6, why="float32 sums/products of <= 30 terms in a different order")
CONV72 = dict(rtol=1e-4, atol=1e-5, why="float32 sums of <= 72 products in a different order")

CASES += [
    layer("RMSNorm", "RMSNorm(6)", {"x": "f32[3,6]"}, **SUM30),
    layer("RMSNorm", "RMSNorm([6, 6], eps=1e-3, elementwise_affine=False)", variant="2d", **SUM30),
    layer("RReLU", "RReLU(0.1, 0.2)", call="m.eval()\nout = m(x)"),
    layer("LPPool1d", "LPPool1d(2, 3)", SEQ247, call="out = m(x.abs())", **SUM30),
    layer("LPPool2d", "LPPool2d(1, (2, 3), stride=2)", call="out = m(x)", **SUM30),
    layer("ConvTranspose1d", "ConvTranspose1d(4, 6, 3, stride=2, padding=1, groups=2)", SEQ247, **CONV72),
    layer("ConvTranspose1d", "ConvTranspose1d(4, 2, 4, bias=False, dilation=2)", SEQ247, variant="dilation_nobias", **CONV72),
    layer("ChannelShuffle", "ChannelShuffle(2)"),
    layer("TripletMarginWithDistanceLoss", "TripletMarginWithDistanceLoss(margin=0.3)",
          {"a": "f32[5,6]", "p": "f32[5,6]", "n": "f32[5,6]"}, call="out = m(a, p, n)", **SUM30),
    layer("MultiLabelMarginLoss", "MultiLabelMarginLoss(reduction='sum')", X45,
          call="out = m(x, torch.tensor([[0, 1, -1, 3, 3], [4, 3, 2, 1, 0], [2, -1, 0, 0, 0], [1, 4, -1, 0, 0]]))"),
    layer("InstanceNorm3d", "InstanceNorm3d(2, affine=True)", {"x": "f32[2,2,3,4,4]"}, rtol=1e-4, atol=1e-5,
          why="float32 mean/var over 48 values, then a division"),
    layer("ConvTranspose3d", "ConvTranspose3d(2, 3, 2, stride=2)", {"x": "f32[1,2,3,3,3]"}, **CONV72),
    layer("AdaptiveAvgPool3d", "AdaptiveAvgPool3d(2)", {"x": "f32[1,2,4,4,4]"}),
    layer("AdaptiveMaxPool3d", "AdaptiveMaxPool3d((2, 2, 1))", {"x": "f32[1,2,4,4,4]"}),
    case(A, "torch.nn.Buffer", "out = (m(x), len(list(m.parameters())), len(m.state_dict()), m.total)", {"x": "f32[4]"},
         setup="class Counter(nn.Module):\n"
               "    def __init__(self):\n"
               "        super().__init__()\n"
               "        self.scale = nn.Parameter(torch.ones(4))\n"
               "        self.total = nn.Buffer(torch.zeros(4))\n"
               "        self.tmp = nn.Buffer(torch.ones(1), persistent=False)\n\n"
               "    def forward(self, x):\n"
               "        return x * self.scale + self.total + self.tmp\n\n\n"
               "m = Counter()"),
]
