"""The parity harness: torch references run in .venv-torch, Jittor ports in .venv, results meet in .npz."""
