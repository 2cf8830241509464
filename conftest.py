"""Test configuration shared by tests/ and parity_tests/.

Jittor's import-time settings for this machine come from :mod:`porter.machine.env` (the one
place that decides them; a standard-library leaf, so converter-only tests do not pay for
importing Jittor); they are applied before any test module imports Jittor.
"""
from porter.machine import env

env.apply()


def pytest_report_header(config):
    """Free disk where the suites write (build outputs, Jittor's kernel cache), stated in the
    header: the machine's disk is shared, and a run that fills it can end without a summary."""
    import shutil
    from pathlib import Path

    places = {"checkout": Path(config.rootpath), "kernel cache": Path.home() / ".cache"}
    free = {name: shutil.disk_usage(p).free / 2**30 for name, p in places.items() if p.exists()}
    return "free disk: " + ", ".join(f"{name} {gib:.1f} GiB" for name, gib in free.items())
