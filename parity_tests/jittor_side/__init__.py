"""Jittor-side scripts: slow parity computations a test runs in their own process (in the
background, see ``parity_tests/background.py``) and then compares with torch's."""
