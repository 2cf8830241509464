"""Test configuration shared by tests/ and parity_tests/.

Jittor's import-time settings for this machine come from :mod:`porter.machine.env` (the one
place that decides them; a standard-library leaf, so converter-only tests do not pay for
importing Jittor); they are applied before any test module imports Jittor.
"""
import os

import pytest

from porter.machine import env

env.apply()
# Jittor's parallel op compiler (threads compiling a batch of new kernels) segfaulted in
# VarRelayManager::get_relay_src while this suite compiled its kernels cold (2026-11-28); its
# segfault handler then exits 1, and with pytest holding stderr the run ends with no summary and
# no message (two runs died so at 39% and 44%). Kernels compile one at a time instead; children
# the tests start inherit it.  Users keep Jittor's default (a crash there is loud).
os.environ.setdefault("use_parallel_op_compiler", "0")


def pytest_report_header(config):
    """Free disk where the suites write (build outputs, Jittor's kernel cache), stated in the
    header: the machine's disk is shared, and a run that fills it can end without a summary."""
    import shutil
    from pathlib import Path

    places = {"checkout": Path(config.rootpath), "kernel cache": Path.home() / ".cache"}
    free = {name: shutil.disk_usage(p).free / 2**30 for name, p in places.items() if p.exists()}
    return "free disk: " + ", ".join(f"{name} {gib:.1f} GiB" for name, gib in free.items())


#: What the fast loop (``make test``) leaves out: node-id prefixes, each with why.  ``make test-full``
#: and CI (``.ci/run``) run everything.  Seconds are single runs on the 2-core development machine
#: with a warm kernel cache (docs/results.md#the-test-loop).  The per-API cases sample themselves
#: (``parity_tests/test_api_parity.py``: one case in eight runs in the fast loop).
SLOW = {
    # whole models, whole training scripts and their torch sides: minutes each suite
    "parity_tests/test_harness.py": "spec parity on reference models (self-test)",
    "parity_tests/test_harness_checkpoint.py": "HiSD checkpoint written by torch, loaded by the port (82 s)",
    "parity_tests/test_harness_checkpoint_parts.py": "MCCNet's per-part checkpoints (76 s)",
    "parity_tests/test_harness_loss.py": "StyleGAN2 R1 and second-order losses (86 s, 48 s, 39 s)",
    "parity_tests/test_harness_spec.py": "float64 judge on MCCNet (103 s), converted user model (26 s)",
    "parity_tests/test_harness_weight_norm.py": "a weight-normed model's spec judged against float64",
    "parity_tests/test_run_parity.py": "whole scripts through --run (35-90 s each)",
    "parity_tests/test_run_parity_corpus.py": "public scripts through --run",
    "parity_tests/test_run_parity_cuda_noise.py": "a whole script through --run",
    "parity_tests/test_scripts_parity.py": "fourteen whole training scripts",
    "parity_tests/test_stylegan2.py": "StyleGAN2 generator and discriminator (40-55 s a test)",
    "parity_tests/test_mccnet.py": "MCCNet (its torch side writes 1.2 GB)",
    "parity_tests/test_hisd.py": "HiSD training steps",
    "parity_tests/test_hisd_memory.py": "200 HiSD iterations (38 s)",
    "parity_tests/test_distributed.py": "mpirun with two ranks (28 s)",
    "parity_tests/test_vision_models.py": "36 torchvision architectures",
    "parity_tests/test_network_pickle.py": "StyleGAN2-ADA network pickles",
    "parity_tests/test_whole_module.py": "whole-module checkpoints of reference models",
    "parity_tests/test_rules_parity.py": "training loops of the statement rules",
    # the heaviest unit tests
    "tests/shims/test_float_sums.py": "float64-referenced sums at 2^20 terms (112 s, 42 s)",
    "tests/shims/test_broadcast_grad.py::test_bias_gradient_sums_like_float64": "4x16x128x128 bias sums (88 s)",
    "tests/shims/test_grad_store.py::test_gan_loop_editing_gradients_keeps_the_graph_flat": "a GAN loop (112 s)",
    "tests/shims/test_optim_adafactor_muon_swa.py::test_adafactor_state_dict_round_trip_keeps_factored_shapes":
        "Adafactor round trip (56 s)",
    "tests/shims/test_shims_memory_watch.py::test_norm_layer_counters_do_not_grow_the_graph": "graph growth (26 s)",
    "tests/test_stdlib.py": "the standard library converted and round-tripped (42 s)",
    "tests/test_wheel.py": "builds and installs the wheel in a fresh virtualenv",
    "tests/test_demo.py": "make demo end to end (26 s)",
}


@pytest.hookimpl(tryfirst=True)  # before pytest's own -m deselection sees the items
def pytest_collection_modifyitems(config, items):
    """Mark what :data:`SLOW` names as ``slow``."""
    for item in items:
        if any(item.nodeid == key or item.nodeid.startswith(key + "::") or item.nodeid.startswith(key + "[")
               for key in SLOW):
            item.add_marker(pytest.mark.slow)
