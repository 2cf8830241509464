"""``torch.multiprocessing.set_start_method`` in a converted script (``shims.distributed``)."""
import multiprocessing
import subprocess
import sys
import textwrap

import pytest

SCRIPT = textwrap.dedent("""
    import multiprocessing
    import jittor  # noqa: F401  (fixes Python's start method, as every port's import does)
    import shims.distributed as dist
    assert multiprocessing.get_start_method(allow_none=True) is not None
    dist.set_start_method("spawn")  # the script's first call: torch accepts it
    assert multiprocessing.get_start_method() == "spawn"
    try:
        dist.set_start_method("fork")
    except RuntimeError as e:
        print("second:", e)
    dist.set_start_method("fork", force=True)
    print("forced:", multiprocessing.get_start_method())
""")


@pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(), reason="needs fork")
def test_first_call_succeeds_second_raises_as_torch():
    """StyleGAN2-ADA's ``train.py`` calls ``torch.multiprocessing.set_start_method('spawn')`` once;
    under Jittor, Python's method is already fixed by the import, which must not fail the call."""
    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "second: context has already been set" in out.stdout
    assert "forced: fork" in out.stdout
