"""Torch side of ``parity_tests/test_non_tensor_receivers.py``: the corpus's values under torch."""
import argparse
import json
from pathlib import Path

import numpy as np

from parity_tests.corpus.non_tensor_idioms import results


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    out = Path(ap.parse_args().out)
    out.mkdir(parents=True, exist_ok=True)
    values = {k: {"value": np.asarray(v).tolist(), "dtype": str(np.asarray(v).dtype)} for k, v in results().items()}
    (out / "values.json").write_text(json.dumps(values, sort_keys=True))


if __name__ == "__main__":
    main()
