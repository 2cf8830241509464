"""torch's whole public surface, from torch itself (``torch_members.json``: ``surface`` and
``aliases``, written by ``porter/mapping/generate_members.py`` in .venv-torch), against the table."""
from porter.prove.coverage_doc import namespace_coverage, render_namespaces
from porter.mapping import default_table

TABLE = default_table()


def test_surface_lists_every_namespace_the_table_must_cover():
    expected = {"torch", "torch.Tensor", "torch.nn", "torch.nn.functional", "torch.nn.init", "torch.autograd",
                "torch.optim", "torch.optim.lr_scheduler", "torch.utils.data", "torch.serialization", "torch.cuda",
                "torch.backends.cudnn", "torchvision.transforms", "torchvision.datasets", "torchvision.utils",
                "torchvision.models"}
    assert expected <= set(TABLE.surface)
    assert all(TABLE.surface[ns] for ns in expected)
    # deprecated aliases torch 2.x still accepts are part of the surface
    for ns, name in [("torch.autograd", "Variable"), ("torch", "ByteTensor"), ("torch.nn.functional", "upsample"),
                     ("torch.nn.init", "normal"), ("torch.backends.cudnn", "benchmark")]:
        assert name in TABLE.surface[ns], (ns, name)


def test_rows_of_surface_namespaces_name_real_members():
    """A row keyed in a surface namespace names something torch has there (a misspelt row never matches)."""
    wrong = [e.api for e in TABLE if e.api.rpartition(".")[0] in TABLE.surface
             and e.api.rpartition(".")[2] not in TABLE.surface[e.api.rpartition(".")[0]]
             and not e.api.rpartition(".")[2].startswith("_") and e.kind != "module"
             and e.api != "torch.Assert"]  # (torch.Assert: see test_mapping_table)
    assert not wrong, wrong


def test_module_paths_get_the_public_rows():
    """``torch.nn.modules.linear.Linear`` is ``torch.nn.Linear``: same status and target."""
    for alias, public in [("torch.nn.modules.linear.Linear", "torch.nn.Linear"),
                          ("torch.nn.modules.module.Module", "torch.nn.Module"),
                          ("torch.utils.data.dataloader.DataLoader", "torch.utils.data.DataLoader"),
                          ("torch.optim.adam.Adam", "torch.optim.Adam")]:
        a, p = TABLE.get(alias), TABLE.get(public)
        assert a is not None and (a.status, a.target, a.params) == (p.status, p.target, p.params), alias


def test_coverage_per_namespace_counts_every_name_once():
    spaces = {sp["namespace"]: sp for sp in namespace_coverage(TABLE)}
    for ns, sp in spaces.items():
        assert sp["converted"] + sp["unsupported"] + len(sp["no_row"]) == sp["names"] == len(TABLE.surface[ns])
    assert "Variable" not in spaces["torch.autograd"]["no_row"]  # legacy idioms have rows
    assert "is_xpu" not in spaces["torch.Tensor"]["no_row"]
    assert "safe_globals" not in spaces["torch.serialization"]["no_row"]
    lines = render_namespaces(list(spaces.values()))
    assert any(line.startswith("| `torch.nn` |") for line in lines)
