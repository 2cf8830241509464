"""torch 0.4-1.x idioms torch 2.x still runs: ``Variable``, typed tensor classes as constructors,
dtypes and ``isinstance`` classes (``torch.cuda.*`` ones on a CPU: casts and isinstance)."""
from ..case import case

A = "legacy"
X = {"x": "f32[2,3]"}
PRE = "from torch.autograd import Variable\n"

CASES = [
    case(A, "torch.autograd.Variable", "out = Variable(x) * 2", X, extra_prelude=PRE),
    case(A, "torch.autograd.Variable", "v = Variable(x.detach(), requires_grad=True)\nout = (v * v).sum(0)", X,
         variant="requires_grad", extra_prelude=PRE, grad=False),
    case(A, "torch.autograd.Variable", "v = Variable(x * 3, requires_grad=True)\n(v * v).sum().backward()\n"
         "out = v.grad", X, variant="leaf_grad", extra_prelude=PRE, grad=False),
    case(A, "torch.autograd.Variable", "out = Variable(x, volatile=True) + 1", X, variant="volatile",
         extra_prelude=PRE),
    case(A, "torch.autograd.Variable", "out = isinstance(x, Variable)", X, variant="isinstance", extra_prelude=PRE,
         grad=False),
    case(A, "torch.autograd.variable.Variable", "out = torch.autograd.variable.Variable(x).requires_grad", X,
         grad=False),
    case(A, "torch.DoubleTensor", "out = torch.DoubleTensor([1.5, 2.25])"),
    case(A, "torch.HalfTensor", "out = torch.HalfTensor(2, 3)", compare="shape",
         why="torch leaves the memory uninitialised"),
    case(A, "torch.BFloat16Tensor", "out = isinstance(x, torch.BFloat16Tensor)", X, grad=False),
    case(A, "torch.ByteTensor", "out = torch.ByteTensor([1, 0, 255])"),
    case(A, "torch.ByteTensor", "out = x.type(torch.ByteTensor)", {"x": "u8<0,9>[5]"}, variant="type"),
    case(A, "torch.CharTensor", "out = torch.CharTensor([-3, 4])"),
    case(A, "torch.ShortTensor", "out = torch.ShortTensor(3)", compare="shape",
         why="torch leaves the memory uninitialised"),
    case(A, "torch.IntTensor", "out = torch.IntTensor([1, 2])"),
    case(A, "torch.BoolTensor", "out = torch.BoolTensor([True, False])"),
    case(A, "torch.BoolTensor", "out = isinstance(x > 0, torch.BoolTensor)", X, variant="isinstance", grad=False),
    case(A, "torch.FloatTensor", "out = torch.FloatTensor(x.detach().numpy())", X, variant="numpy", grad=False),
    case(A, "torch.FloatTensor", "out = torch.FloatTensor(2, 3)", variant="sizes", compare="shape",
         why="torch leaves the memory uninitialised"),
    case(A, "torch.FloatTensor", "out = isinstance(x, torch.FloatTensor)", X, variant="isinstance", grad=False),
    case(A, "torch.LongTensor", "out = isinstance(x, torch.LongTensor)", X, variant="isinstance", grad=False),
    case(A, "torch.cuda.FloatTensor", "T = torch.cuda.FloatTensor if torch.cuda.is_available() else torch.FloatTensor\n"
         "out = Variable(T(x.detach().numpy()))", X, extra_prelude=PRE, grad=False),
    case(A, "torch.cuda.FloatTensor", "out = isinstance(x, torch.cuda.FloatTensor)", X, variant="isinstance", grad=False),
]
for _name in ("Long", "Double", "Half", "BFloat16", "Byte", "Char", "Short", "Int", "Bool"):
    CASES.append(case(A, f"torch.cuda.{_name}Tensor", f"out = isinstance(x, torch.cuda.{_name}Tensor)", X,
                      variant="isinstance", grad=False))

# module paths torch defines a public class at (torch_members.json "aliases"): the public row's port
CASES += [
    case(A, "torch.nn.modules.linear.Linear", "out = m(x)", {"x": "f32[4,3]"},
         setup="from torch.nn.modules.linear import Linear\nm = Linear(3, 2)",
         extra_prelude="from torch.nn.modules.linear import Linear\n"),
    case(A, "torch.nn.modules.module.Module", "out = m(x)", X,
         setup="from torch.nn.modules.module import Module\nclass Twice(Module):\n    def forward(self, x):\n"
               "        return x * 2\nm = Twice()",
         extra_prelude="from torch.nn.modules.module import Module\n", grad=False),
]

SPARSE = {"i": "i64<0,3>[2,4]", "v": "f32[4]"}
CASES += [
    case(A, "torch.sparse.FloatTensor", "out = torch.sparse.FloatTensor(i, v, torch.Size([3, 3])).to_dense()", SPARSE),
    case(A, "torch.sparse.DoubleTensor", "out = torch.sparse.DoubleTensor(i, v.double(), (3, 3)).to_dense()", SPARSE,
         grad=False),
    case(A, "torch.sparse.LongTensor", "out = torch.sparse.LongTensor(i, v.long(), (3, 3)).to_dense()", SPARSE,
         grad=False),
]

# the idioms of 2017-2020 GAN training scripts (eriklindernoren/PyTorch-GAN and its kind), as written there:
# a device-conditional tensor class, label tensors filled through it, numpy noise through it, casts to it
TENSOR = ("Tensor = torch.cuda.FloatTensor if torch.cuda.is_available() else torch.FloatTensor\n"
          "LongTensor = torch.cuda.LongTensor if torch.cuda.is_available() else torch.LongTensor\n")
CASES += [
    case(A, "torch.autograd.Variable", TENSOR + "out = Variable(Tensor(4, 1).fill_(1.0), requires_grad=False)",
         variant="filled_labels", extra_prelude=PRE, grad=False),
    case(A, "torch.autograd.Variable", TENSOR + "out = Variable(Tensor(z.numpy()))", {"z": "f64[4,3]"},
         variant="numpy_noise", extra_prelude=PRE, grad=False),
    case(A, "torch.autograd.Variable", TENSOR + "out = Variable(LongTensor(y.numpy()))", {"y": "i64<0,10>[6]"},
         variant="numpy_labels", extra_prelude=PRE, grad=False),
    case(A, "torch.autograd.Variable", TENSOR + "out = Variable(x.type(Tensor))", {"x": "u8<0,255>[2,3]"},
         variant="type_alias", extra_prelude=PRE, grad=False),
    case(A, "torch.autograd.Variable", TENSOR + "v = Variable(x.type(Tensor), requires_grad=True)\n"
         "(v * v).sum().backward()\nout = v.grad", X, variant="type_alias_grad", extra_prelude=PRE, grad=False),
    case(A, "torch.autograd.Variable", "with torch.no_grad():\n    v = Variable(x, volatile=True)\n"
         "    out = (v * 2, v.requires_grad)", {"x": "f32[3]"}, variant="volatile_no_grad",
         outputs=("out",), extra_prelude=PRE, grad=False),
    case(A, "torch.Tensor.data", "out = x.data[0]", {"x": "f32[3,2]"}, variant="index0", grad=False),
    case(A, "torch.Tensor.data", "out = float(x.data[0])", {"x": "f32[3]"}, variant="index0_scalar", grad=False),
    case(A, "torch.ByteTensor", "out = x[(x > 0).type(torch.ByteTensor)]", {"x": "f32[6]"}, variant="mask_index"),
    case(A, "torch.ByteTensor", "m = (x > 0).type(torch.ByteTensor)\ny = x * 1\ny[m] = y[m] * 0.5\nout = y", {"x": "f32[6]"},
         variant="mask_assign"),
]
