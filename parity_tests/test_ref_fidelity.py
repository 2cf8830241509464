"""The torch references hold upstream's state-dict names and shapes, so upstream checkpoints
load into them (and, through them, into the ports).

``upstream_shapes.json`` was recorded from the upstream clones by
``python parity_tests/torch_side/state_shapes.py --upstream DIR --out ...`` (CI has no clones);
the torch side here records ``models_ref`` the same way.  Which upstream files each reference
follows: docs/models_ref.md.
"""
import json
from pathlib import Path

import pytest

from porter.prove.torchside import TorchSide

HERE = Path(__file__).resolve().parent
SHAPES = TorchSide(HERE / "torch_side" / "state_shapes.py", "ref_state_shapes",
                   (HERE.parent / "models_ref",))
UPSTREAM = json.loads((HERE / "upstream_shapes.json").read_text())


@pytest.mark.parametrize("network", sorted(UPSTREAM))
def test_reference_state_dict_matches_upstream(network):
    ours = json.loads((SHAPES.run() / "shapes.json").read_text())[network]
    theirs = UPSTREAM[network]
    assert sorted(ours) == sorted(theirs), (
        f"{network}: keys only in models_ref {sorted(set(ours) - set(theirs))[:5]}, "
        f"only upstream {sorted(set(theirs) - set(ours))[:5]}")
    wrong = {k: (ours[k], theirs[k]) for k in theirs if ours[k] != theirs[k]}
    assert not wrong, f"{network}: shapes (models_ref, upstream) differ: {dict(list(wrong.items())[:5])}"
