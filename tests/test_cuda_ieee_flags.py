"""CUDA kernels compute IEEE arithmetic as the CPU ones do: Jittor 1.3.11 adds ``--use_fast_math``
to every nvcc command whatever ``cc_flags`` says (measured on an H200: 29 of the 41 IEEE cases
failed with it), so ``shims`` drops it from ``jt.flags.nvcc_flags`` unless the CPU kernels are
``-Ofast`` too (``JTPORT_FAST_MATH=1``)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from porter.machine import env

ROOT = Path(__file__).resolve().parents[1]
JITTOR_FLAGS = ('-x cu --cudart=shared -ccbin="/usr/bin/g++" --use_fast_math  -w  '
                '-I"/opt/jittor/extern/cuda/inc" -std=c++14 -Xcompiler -O2')


def test_fast_math_flag_is_dropped_under_ieee_cpu_flags():
    got = env.ieee_nvcc_flags(JITTOR_FLAGS, " -Wall -std=c++14 -O2 -lstdc++")
    assert env.CUDA_FAST_MATH_FLAG not in got
    assert got.replace(" ", "") == JITTOR_FLAGS.replace(env.CUDA_FAST_MATH_FLAG, "").replace(" ", "")


def test_fast_math_flag_stays_when_the_cpu_kernels_are_fast_math():
    assert env.ieee_nvcc_flags(JITTOR_FLAGS, " -Wall -Ofast -lstdc++") == JITTOR_FLAGS


def test_importing_shims_leaves_no_fast_math_in_jittors_nvcc_flags():
    """In a Jittor process: shims sets ``jt.flags.nvcc_flags`` (a flag Jittor reads at each
    kernel compile); on a machine without CUDA it is empty, so a planted flag checks the path."""
    code = ("import shims, jittor as jt\n"
            "from porter.machine import env\n"
            "assert env.CUDA_FAST_MATH_FLAG not in jt.flags.nvcc_flags, jt.flags.nvcc_flags\n"
            f"jt.flags.nvcc_flags = {JITTOR_FLAGS!r}\n"
            "jt.flags.nvcc_flags = env.ieee_nvcc_flags(jt.flags.nvcc_flags, jt.flags.cc_flags)\n"
            "print(repr(jt.flags.nvcc_flags))\n")
    run_env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=run_env, timeout=900)
    assert out.returncode == 0, out.stderr[-2000:]
    assert env.CUDA_FAST_MATH_FLAG not in out.stdout and "-ccbin" in out.stdout
