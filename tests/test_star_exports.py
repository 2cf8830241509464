"""Star imports of a tree's own modules pass torch names on (``porter/star_exports.py``)."""
from porter import convert_path
from porter.convert.star_exports import apply_prelude, star_preludes


def test_prelude_follows_star_imports_transitively():
    sources = [
        ("pkg/__init__.py", ""),
        ("pkg/layers/base.py", "import torch\nfrom torch import nn as nn\nimport numpy as np\n"),
        ("pkg/layers/acts.py", "from .base import *\nimport torch.nn.functional as F\n"),
        ("pkg/layers/create.py", "import torch\nfrom .acts import *  # re-exports\nfrom os import *\n"),
        ("pkg/other.py", "from pkg.layers.acts import *\n"),
    ]
    out = star_preludes(sources, "pkg")
    # create.py binds torch itself; nn (from base through acts) and F (acts) are added
    assert out["pkg/layers/create.py"] == {1: "import torch.nn.functional as F; from torch import nn as nn"}
    assert out["pkg/other.py"] == {0: "import torch.nn.functional as F; import torch; from torch import nn as nn"}
    assert "pkg/layers/base.py" not in out
    text = apply_prelude(sources[3][1], out["pkg/layers/create.py"])
    assert text.splitlines()[1] == ("from .acts import *; import torch.nn.functional as F; "
                                    "from torch import nn as nn  # re-exports")


def test_converted_tree_resolves_names_from_a_star_import(tmp_path):
    src = tmp_path / "pkg"
    (src / "layers").mkdir(parents=True)
    (src / "__init__.py").write_text("")
    (src / "layers" / "__init__.py").write_text("")
    (src / "layers" / "acts.py").write_text("import torch\nfrom torch import nn\n")
    (src / "layers" / "create.py").write_text(
        "from .acts import *\n\nHAS_SILU = 'silu' in dir(torch.nn.functional)\nLAYERS = dict(relu=nn.ReLU)\n")
    convert_path(src, tmp_path / "out")
    create = (tmp_path / "out" / "layers" / "create.py").read_text()
    assert "dir(shims.namespace(\"torch.nn.functional\"))" in create
    assert "relu=shims.namespace(\"torch.nn\").ReLU" in create
    assert create.splitlines()[1].startswith("from .acts import *")  # same line numbers
    assert len(create.splitlines()) == 4 + 1  # ``import shims`` is the one line added
