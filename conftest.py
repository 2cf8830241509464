"""Test configuration shared by tests/ and parity_tests/.

Jittor's import-time settings for this machine come from ``shims/env.py`` (the one place that
decides them); they are applied before any test module imports Jittor.  The file is loaded on
its own so that converter-only tests do not pay for importing Jittor.
"""
import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("_jtport_env", ROOT / "shims" / "env.py")
_env = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = _env  # dataclasses look their module up in sys.modules
_spec.loader.exec_module(_env)
_env.apply()
