"""torch.distributed on Jittor's MPI (``shims.distributed``, ``shims.data.DistributedSampler``).

* the sampler's shards are torch's, index for index, per rank and epoch (no MPI needed);
* launching errors name the ``mpirun`` command; one-process use works without MPI;
* under ``mpirun -np 2`` (skipped, with the reason, where OpenMPI is missing): the collectives'
  semantics (``parity_tests/distributed/collectives_check.py``), and a torch DDP training script
  converted unmodified ends with the weights torch's own two-process run ends with, and with
  those of a one-process run on the same global batches.
"""
import os
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

import shims
import jittor as jt
from porter import convert_path
from parity_tests.distributed.distributed_cases import shard_table
from porter.prove.processes import run_tracked
from porter.prove.torchside import TorchSide
from shims import distributed as dist
from shims.data import DistributedSampler

pytestmark = pytest.mark.unfused  # see parity_tests/conftest.py

ROOT = Path(__file__).resolve().parents[1]
HERE = ROOT / "parity_tests" / "distributed"
TORCH_SIDE = TorchSide(ROOT / "parity_tests" / "torch_side" / "distributed.py", "distributed",
                       (HERE / "ddp_train.py", HERE / "distributed_cases.py"))
MPIRUN = shutil.which("mpirun")
needs_mpi = pytest.mark.skipif(MPIRUN is None, reason="OpenMPI's mpirun is not installed "
                               "(make test installs openmpi-bin when run as root)")


@pytest.fixture(scope="module")
def torch_out():
    return TORCH_SIDE.run()


def test_sampler_shards_are_torchs(torch_out):
    want = np.load(torch_out / "sampler.npz")
    got = shard_table(DistributedSampler)
    assert sorted(got) == sorted(want.files)
    for key, indices in got.items():
        np.testing.assert_array_equal(np.array(indices, dtype=np.int64), want[key], err_msg=key)


def test_sampler_rejects_a_rank_outside_the_world():
    with pytest.raises(ValueError, match="Invalid rank 2"):
        DistributedSampler(list(range(4)), num_replicas=2, rank=2)


def test_launch_errors_name_the_mpirun_command():
    with pytest.raises(dist.LaunchError, match=r"mpirun.* -np 4 "):
        dist.init_process_group("nccl", world_size=4, rank=0)
    with pytest.raises(dist.LaunchError, match=r"mpirun.* -np 2 "):
        dist.spawn(lambda rank: None, nprocs=2)
    assert not dist.is_initialized()


def test_one_process_world_without_mpi():
    with pytest.raises(RuntimeError, match="init_process_group"):
        dist.get_rank()
    ran = []
    dist.spawn(lambda rank, tag: ran.append((rank, tag)), args=("x",), nprocs=1)
    assert ran == [(0, "x")]
    dist.init_process_group("gloo", init_method="tcp://127.0.0.1:1", world_size=1, rank=0)
    try:
        assert (dist.get_rank(), dist.get_world_size(), dist.is_initialized()) == (0, 1, True)
        t = jt.array(np.array([1.0, -2.0], dtype=np.float32))
        for op in (dist.ReduceOp.SUM, dist.ReduceOp.AVG, dist.ReduceOp.MAX, dist.ReduceOp.PRODUCT):
            dist.all_reduce(t, op=op)
        dist.broadcast(t, src=0)
        dist.barrier()
        np.testing.assert_array_equal(t.numpy(), [1.0, -2.0])
        objs = [None]
        dist.all_gather_object(objs, {"a": 1})
        assert objs == [{"a": 1}]
    finally:
        dist.destroy_process_group()


def test_wrappers_keep_torchs_module_attribute_and_state_dict_keys():
    inner = jt.nn.Linear(3, 2)
    for wrapper in (dist.DistributedDataParallel(inner), dist.DataParallel(inner)):
        assert wrapper.module is inner
        assert sorted(wrapper.state_dict()) == ["module.bias", "module.weight"]
        x = jt.ones((1, 3))
        np.testing.assert_allclose(wrapper(x).numpy(), inner(x).numpy())


def _mpirun(args, cwd, nprocs=2):
    cmd = [MPIRUN, "--oversubscribe", "-np", str(nprocs)]
    if os.geteuid() == 0:
        cmd.insert(1, "--allow-run-as-root")
    # without PYTHONUNBUFFERED (make sets it): each rank's print(..., flush=True) is then one
    # write, so mpirun cannot splice the two ranks' lines together ("seenseen 1 1 1 2 2")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    env.update(PYTHONPATH=str(ROOT), OMP_NUM_THREADS="1")
    proc = run_tracked([*cmd, sys.executable, *args], cwd, env, timeout=900)
    assert proc.returncode == 0, f"{' '.join(map(str, args))} failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-6000:]}"
    return proc


def test_torchrun_environment_comes_from_openmpis():
    ompi = {"OMPI_COMM_WORLD_SIZE": "4", "OMPI_COMM_WORLD_RANK": "3", "OMPI_COMM_WORLD_LOCAL_RANK": "1",
            "OMPI_COMM_WORLD_LOCAL_SIZE": "2"}
    assert dist.torchrun_environment(ompi) == {"RANK": "3", "WORLD_SIZE": "4", "LOCAL_RANK": "1",
                                               "LOCAL_WORLD_SIZE": "2", "MASTER_ADDR": "127.0.0.1",
                                               "MASTER_PORT": "29500"}
    # not under OpenMPI (Jittor would run a world of one): nothing to set
    assert dist.torchrun_environment({"PMI_RANK": "1", "PMI_SIZE": "2"}) == {}


TORCHRUN_SCRIPT = """\
import os

import torch.distributed as dist

local_rank = int(os.environ["LOCAL_RANK"])
dist.init_process_group("gloo", init_method=f"tcp://{os.environ['MASTER_ADDR']}:{os.environ['MASTER_PORT']}")
print("seen", dist.get_rank(), local_rank, os.environ["RANK"], os.environ["WORLD_SIZE"],
      os.environ["LOCAL_WORLD_SIZE"], flush=True)
"""


@needs_mpi
def test_torchrun_style_script_runs_under_mpirun(tmp_path):
    """A script written for torchrun reads LOCAL_RANK, RANK, WORLD_SIZE, MASTER_ADDR/PORT from
    the environment; under mpirun `import shims` sets them from OpenMPI's (a KeyError before)."""
    (tmp_path / "torchrun_style.py").write_text(TORCHRUN_SCRIPT)
    report = convert_path(tmp_path / "torchrun_style.py", tmp_path / "converted.py")
    assert any("torchrun's environment" in note for note, _ in report.how_to_run()), report.how_to_run()
    proc = _mpirun([tmp_path / "converted.py"], tmp_path)
    seen = sorted(line for line in proc.stdout.splitlines() if line.startswith("seen"))
    assert seen == ["seen 0 0 0 2 2", "seen 1 1 1 2 2"], proc.stdout


@needs_mpi
def test_collectives_and_ddp_semantics_under_mpirun(tmp_path):
    proc = _mpirun([HERE / "collectives_check.py"], tmp_path)
    assert proc.stdout.count("all checks passed") == 2, proc.stdout


@needs_mpi
def test_converted_ddp_script_matches_torch_ddp(torch_out, tmp_path):
    report = convert_path(HERE / "ddp_train.py", tmp_path / "ddp_train.py")
    assert not report.unsupported, [f.where() for f in report.unsupported]
    assert any("mpirun -np N" in note for note, _ in report.how_to_run()), report.how_to_run()
    assert "to run: " in report.format_table()
    common = ["--data", torch_out / "data.npz", "--init", torch_out / "init.pt"]
    _mpirun([tmp_path / "ddp_train.py", *common, "--out", tmp_path / "two.pt"], tmp_path)
    one = run_tracked([sys.executable, tmp_path / "ddp_train.py", *common, "--out", tmp_path / "one.pt"],
                      tmp_path, dict(os.environ, PYTHONPATH=str(ROOT)), timeout=600)
    assert one.returncode == 0, one.stderr[-4000:]
    want = shims.load(str(torch_out / "torch2.pt"))
    init = shims.load(str(torch_out / "init.pt"))
    for run in ("two.pt", "one.pt"):
        got = shims.load(str(tmp_path / run))
        assert sorted(got) == sorted(want)
        for k in want:
            w, g = want[k].numpy(), got[k].numpy()
            assert np.abs(w - init[k].numpy()).max() > 1e-2, f"{k} did not train"
            # 6 SGD+momentum steps on float32 batch means; summation order differs
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6, err_msg=f"{run}: {k}")
    for rank in (0, 1):
        np.testing.assert_array_equal(np.load(tmp_path / f"two.pt.seen{rank}.npy"),
                                      np.load(torch_out / f"torch2.pt.seen{rank}.npy"))
