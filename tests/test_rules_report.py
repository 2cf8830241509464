"""Every form the rules cannot convert faithfully is reported with its code and a reason.

Each snippet is one idiom real repos use; the test checks the finding (code, API, line) so a
rule that starts guessing, or stops reporting, fails here.
"""
import pytest

from porter import convert_source

CASES = [
    # (snippet, code, api, kind) -- kind: "unsupported" or "warning"
    ("import torch\n"
     "def f(y, x, v):\n"
     "    return torch.autograd.grad(y, x, v, is_grads_batched=True)\n", "JT103", "torch.autograd.grad",
     "unsupported"),
    ("import torch\n"
     "def f(outs, x, gos):\n"
     "    return torch.autograd.grad(outs, x, grad_outputs=[gos[0], gos[1]])\n", "JT103",
     "torch.autograd.grad", "unsupported"),
    ("import torch\n"
     "def f(y, x):\n"
     "    return torch.autograd.grad(y, x, allow_unused=True)\n", "JT103", "torch.autograd.grad", "warning"),
    ("import torch\n"
     "class F(torch.autograd.Function):\n"
     "    @staticmethod\n"
     "    def forward(ctx, x):\n"
     "        ctx.mark_dirty(x)\n"
     "        return x\n", "JT103", "torch.autograd.function.FunctionCtx.mark_dirty", "unsupported"),
    ("import torch\n"
     "class F(torch.autograd.Function):\n"
     "    def forward(self, x):\n"
     "        return x\n", "JT103", "torch.autograd.Function", "unsupported"),
    ("import torch\n"
     "def f(optimizer, ckpt):\n"
     "    optimizer.load_state_dict(ckpt['opt'])\n", "JT105", "load_state_dict", "warning"),
]


@pytest.mark.parametrize("source, code, api, kind", CASES, ids=[f"{c[1]}-{c[2]}-{i}" for i, c in enumerate(CASES)])
def test_unconvertible_form_is_reported(source, code, api, kind):
    report = convert_source(source, "case.py").report
    assert report.error is None, report.error
    findings = report.unsupported if kind == "unsupported" else report.warnings
    hits = [f for f in findings if f.code == code and f.api == api]
    assert hits, f"no {code} {api} in {[(f.code, f.api) for f in report.unsupported + report.warnings]}"
    assert hits[0].reason and source.splitlines()[hits[0].line - 1].strip()
    code_text = convert_source(source, "case.py").code
    assert any(f"# jtport: {code} {api}:" in line or f"; {code} {api}:" in line
               for line in code_text.splitlines()), code_text


# Forms earlier versions could not convert (JT102/JT101): the gradient store (shims.autograd)
# runs them as written, so they convert with no finding.
CONVERTIBLE = [
    "import torch\n"
    "import torch.nn as nn\n"
    "def f(t, flag):\n"
    "    return nn.Parameter(t, requires_grad=flag)\n",  # shims.nn.parameter decides at run time
    "import torch\n"
    "def f(loss, opt, net):\n"
    "    loss.backward()\n"
    "    for p in net.parameters():\n"
    "        p.grad.nan_to_num_()\n"
    "    opt.step()\n",
    "import torch\n"
    "def f(loss, params, opt_a, opt_b):\n"
    "    loss.backward()\n"
    "    torch.nn.utils.clip_grad_norm_(params, 1.0)\n"
    "    opt_a.step()\n"
    "    opt_b.step()\n",
    "import torch\n"
    "def f(x, flag):\n"
    "    return x.detach().requires_grad_(flag)\n",
    "import torch\n"
    "def f(loss, x, net):\n"
    "    h = x.register_hook(lambda g: g.clamp(-1, 1))\n"
    "    loss.backward(inputs=[x], retain_graph=True)\n"
    "    net.zero_grad(set_to_none=False)\n"
    "    h.remove()\n"
    "    return x.grad, x.is_leaf, x.requires_grad\n",
]


@pytest.mark.parametrize("source", CONVERTIBLE, ids=[f"convertible-{i}" for i in range(len(CONVERTIBLE))])
def test_gradient_forms_convert_without_findings(source):
    report = convert_source(source, "case.py").report
    assert report.error is None, report.error
    assert not report.unsupported and not report.warnings, \
        [(f.code, f.api, f.reason) for f in report.unsupported + report.warnings]
