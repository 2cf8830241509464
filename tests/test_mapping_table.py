"""The mapping table's own invariants (no Jittor, no torch needed)."""
from pathlib import Path

import pytest

from porter.mapping import TableError, load_table
from parity_tests.api.case import all_cases

ROOT = Path(__file__).resolve().parents[1]
TABLE = load_table()


def test_table_size_and_statuses():
    """At least 600 rows, every status present."""
    assert len(TABLE) >= 600
    assert {e.status for e in TABLE} == {"direct", "shim", "rewritten", "unsupported"}


def test_shim_targets_exist_in_shims_sources():
    """Every ``shims.X`` target names something defined in the shims package (read as text:
    this test must not import Jittor)."""
    import ast

    defined = {}
    methods = {}  # class name -> names its body defines (``shims.nn.Module.double``)
    for path in (ROOT / "shims").rglob("*.py"):
        tree = ast.parse(path.read_text())
        mod = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        mod = mod[: -len(".__init__")] if mod.endswith(".__init__") else mod
        names = set()
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, ast.Assign):
                names.update(t.id for t in node.targets if isinstance(t, ast.Name))
            elif isinstance(node, ast.ImportFrom) and node.level:  # a name re-exported from a sibling module
                names.update(a.asname or a.name for a in node.names if a.name != "*")
            if isinstance(node, ast.ClassDef):
                methods.setdefault(node.name, set()).update(
                    n.name for n in node.body if isinstance(n, (ast.FunctionDef, ast.ClassDef)))
        defined[mod] = names
    ops = set().union(*(names for k, names in defined.items() if k.startswith("shims.ops")))
    # names created in a loop (the in-place ops) are listed as keys of shims.ops.pointwise._INPLACE
    src = (ROOT / "shims" / "ops" / "pointwise.py").read_text()
    missing = []
    for e in TABLE:
        if not (e.target or "").startswith("shims."):
            continue
        mod, name = e.target.rsplit(".", 1)
        owner = mod.rsplit(".", 1)[-1]
        if e.kind == "method" and owner[:1].isupper():  # shims.<module>.<Class>.<method>
            ok = name in methods.get(owner, ())
        elif mod == "shims":
            ok = name in ops or f'"{name}":' in src or any(
                name in v for k, v in defined.items()
                if k in ("shims", "shims.checkpoint", "shims.memory", "shims.grad_mode", "shims.random_torch"))
        else:
            ok = any(name in names for k, names in defined.items() if k == mod or k.startswith(mod + "."))
        if not ok:
            missing.append(f"{e.api} -> {e.target}")
    assert not missing, f"shim targets not defined in shims/: {missing}"


def test_every_case_has_a_row():
    """A parity case names an API that the table maps."""
    orphans = sorted({c.api for c in all_cases() if TABLE.get(c.api) is None})
    assert not orphans, f"cases for APIs without a table row: {orphans}"


def test_method_rows_with_function_targets_take_the_receiver():
    """``x.var(1)`` can only become ``shims.var(x, 1)`` when the row says receiver = arg0."""
    bad = [e.api for e in TABLE if e.is_method and e.status in ("direct", "shim") and e.target
           and not e.target.startswith(".") and e.receiver != "arg0"]
    assert not bad, bad


def test_unsupported_and_rewritten_rows_explain_themselves():
    """Users read the reason: it must say something."""
    bad = [e.api for e in TABLE if e.status in ("unsupported", "rewritten") and len(e.reason) < 10]
    assert not bad, bad


def test_loader_rejects_bad_rows(tmp_path):
    """Malformed rows name their file and key."""
    (tmp_path / "x.toml").write_text('["torch.foo"]\nstatus = "direct"\n')
    with pytest.raises(TableError, match=r"x.toml: \['torch.foo'\]: a direct row needs a target"):
        load_table(tmp_path)
    (tmp_path / "x.toml").write_text('["torch.foo"]\nstatus = "shim"\ntarget = "jittor.foo"\n')
    with pytest.raises(TableError, match="must be in shims"):
        load_table(tmp_path)
    (tmp_path / "x.toml").write_text('["torch.foo"]\nstatus = "unsupported"\n')
    with pytest.raises(TableError, match="needs a reason"):
        load_table(tmp_path)


def test_rows_name_real_torch_members():
    """A row of ``torch``, ``torch.Tensor``, ``torch.nn`` or ``torch.nn.functional`` names a
    member torch has (``torch_members.json``, generated from torch): a misspelt row would
    never match, and the name it meant would pass as unknown."""
    members = TABLE.members
    assert len(members["torch.Tensor"]) > 500 and len(members["torch"]) > 900
    wrong = []
    for e in TABLE:
        space, _, name = e.api.rpartition(".")
        if space in members and name not in members[space] and not name.startswith("_") \
                and not (name.startswith("__") or e.api in ("torch.Assert",)):
            wrong.append(e.api)
    assert not wrong, wrong


def test_unknown_tensor_methods_are_marked_not_passed_through():
    """A tensor method torch has and the table does not know is marked (JT001), never left
    unmarked for a Jittor Var that lacks it."""
    from porter import convert_source

    result = convert_source("import torch\n\ndef f(x):\n    return x.geqrf(), x.q_scale()\n", "m.py")
    marked = {u.api for u in result.report.unsupported}
    assert marked == {"torch.Tensor.geqrf", "torch.Tensor.q_scale"}
    assert all("not in jtport's mapping table" in u.reason for u in result.report.unsupported)
