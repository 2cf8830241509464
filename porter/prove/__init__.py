"""The prove flow (``jtport parity``, the parity harness): torch references run in .venv-torch
(:mod:`.torch_side`), Jittor ports in .venv, results meet in .npz."""
