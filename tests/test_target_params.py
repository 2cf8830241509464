"""``porter/mapping/target_params.json`` (the keyword arguments each class row's target takes)
is what the targets' signatures say today: a stale file would let an argument a target lacks
through, or mark one it takes."""
import json

from porter.mapping import default_table
from porter.convert.generate_target_params import OUT, target_params


def test_target_params_file_is_current():
    assert json.loads(OUT.read_text()) == target_params(), \
        "stale: run .venv/bin/python -m porter.convert.generate_target_params"


def test_class_rows_know_the_arguments_their_targets_take():
    linear = default_table().get("torch.nn.Linear")
    assert linear.accepts == {"in_features", "out_features", "bias"}  # no device=, no dtype=
