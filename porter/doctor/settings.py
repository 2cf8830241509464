"""The settings the doctor explains: ``shims/env.py``, loaded by path.

``shims/env.py`` decides the environment variables Jittor needs on this machine (one place, used
by the Makefile, the tests, ``import shims`` and the doctor).  The doctor loads that file on its
own, without running ``shims/__init__`` (which imports Jittor): the doctor probes Jittor only in
subprocesses of the interpreter being checked.
"""
from __future__ import annotations

import importlib.util
import os
import sys
from types import ModuleType

_ENV_MODULE = "_jtport_env"  # the name conftest.py registers shims/env.py under, too


def env_module() -> ModuleType:
    """``shims/env.py`` loaded by path (without running ``shims/__init__``, which imports Jittor)."""
    if _ENV_MODULE in sys.modules:
        return sys.modules[_ENV_MODULE]
    spec = importlib.util.find_spec("shims")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("jtport doctor: the `shims` package is not installed next to `porter`")
    path = os.path.join(list(spec.submodule_search_locations)[0], "env.py")
    env_spec = importlib.util.spec_from_file_location(_ENV_MODULE, path)
    module = importlib.util.module_from_spec(env_spec)
    sys.modules[_ENV_MODULE] = module
    env_spec.loader.exec_module(module)
    return module
