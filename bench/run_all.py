"""``make bench``: every Jittor-vs-torch benchmark in one run, summarised in one table.

Runs, one Jittor process at a time (each also starts its torch side in ``.venv-torch``):

* ``bench_micro.py``: conv, VGG-19 features, matmul; forward and forward+backward, paired and
  interleaved;
* ``bench_stylegan2.py``: G and D forward and forward+backward (``paper256``: 256x256, up to 512
  channels, batch 2) and the live-variable count over ``--sg-iters`` training iterations;
* ``bench_mccnet.py``: ``Net`` forward and forward+backward (full VGG-19 encoder, 256x256, batch 2);
* ``bench_hisd.py``: one ``HiSD_Trainer.update`` and one ``sample`` (upstream's celeba-hq networks:
  128x128, batch 2);
* ``bench_arithmetic.py``: Jittor's kernels at jtport's ``-O2`` (IEEE arithmetic) against its
  ``-Ofast``, on elementwise, reduction, softmax and conv/norm workloads;

and prints each one's Jittor/torch time ratio and the peak resident memory of the Jittor
process running the converted code (``ru_maxrss`` of that process alone, its torch child
excluded).  The machine is not assumed idle: ratios are measured in one run, side by side.
Writes ``build/bench/summary.json``.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "build" / "bench"
# runs a bench file as __main__ and reports this process's own peak RSS on the last line
PEAK_WRAPPER = ("import resource, runpy, sys; sys.argv = sys.argv[1:]\n"
                "try:\n    runpy.run_path(sys.argv[0], run_name='__main__')\n"
                "except SystemExit as e:\n    code = e.code\nelse:\n    code = 0\n"
                "print('PEAK_RSS_KB', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, flush=True)\n"
                "sys.exit(code or 0)")


def run_bench(script: str, *args: str) -> tuple:
    """Run ``bench/<script>`` under the peak wrapper; return (stdout, peak MiB)."""
    cmd = [sys.executable, "-c", PEAK_WRAPPER, str(ROOT / "bench" / script), *args]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{script} failed ({proc.returncode}):\n{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}")
    peak = re.search(r"PEAK_RSS_KB (\d+)", proc.stdout)
    return proc.stdout, int(peak.group(1)) / 1024 if peak else float("nan")


def main(argv=None) -> int:
    """Run everything and print the summary table."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sg-iters", type=int, default=50, help="StyleGAN2 training iterations for lived vars")
    args = ap.parse_args(argv)
    OUT.mkdir(parents=True, exist_ok=True)
    rows = []  # (benchmark, what, torch s, jittor s, peak MiB)

    micro_json = OUT / "micro.json"
    out, peak = run_bench("bench_micro.py", "--json", str(micro_json))
    print(out.split("PEAK_RSS_KB")[0].rstrip())
    for r in json.loads(micro_json.read_text()):
        rows.append((r["case"], r["mode"], r["torch_s"], r["jittor_s"], peak))

    out, peak = run_bench("bench_stylegan2.py", "--iters", str(args.sg_iters))
    print(out.split("PEAK_RSS_KB")[0].rstrip())
    for net, what, t, j in re.findall(r"^(G|D)\s+(fwd\+bwd|fwd)\s+([\d.]+)\s+([\d.]+)", out, re.M):
        rows.append((f"StyleGAN2 {net}", f"{what} b2 256x256", float(t), float(j), peak))

    out, peak = run_bench("bench_mccnet.py")
    print(out.split("PEAK_RSS_KB")[0].rstrip())
    m = json.loads((OUT / "mccnet.json").read_text())
    rows.append(("MCCNet Net", "fwd b2 256x256", m["torch"]["forward_median_s"], m["jittor"]["forward_median_s"],
                 peak))
    rows.append(("MCCNet Net", "fwd+bwd b2 256x256", m["torch"]["median_s"], m["jittor"]["median_s"], peak))

    out, peak = run_bench("bench_hisd.py", "--graph-iters", "50")
    print(out.split("PEAK_RSS_KB")[0].rstrip())
    h = json.loads((OUT / "hisd.json").read_text())
    rows.append(("HiSD gen_test", "sample b2 128x128", h["torch"]["forward_median_s"],
                 h["jittor"]["forward_median_s"], peak))
    rows.append(("HiSD trainer", "update b2 128x128", h["torch"]["median_s"], h["jittor"]["median_s"], peak))

    print(f"\nuse_mkl={os.environ.get('use_mkl', '1')}  (jittor/torch time; peak = Jittor process RSS)")  # noqa: SIM112 (Jittor's own variable name)
    print(f"{'benchmark':<14} {'what':<20} {'torch s':>9} {'jittor s':>9} {'ratio':>7} {'peak MiB':>9}")
    for name, what, t, j, peak in rows:
        print(f"{name:<14} {what:<20} {t:>9.4f} {j:>9.4f} {j / t:>7.2f} {peak:>9.0f}")
    (OUT / "summary.json").write_text(json.dumps(
        [dict(zip(("benchmark", "what", "torch_s", "jittor_s", "peak_mib"), r)) for r in rows], indent=1))

    # what IEEE arithmetic (jtport's -O2 kernels) costs against Jittor's -Ofast, same workloads
    out, _ = run_bench("bench_arithmetic.py", "--json", str(OUT / "arithmetic.json"))
    print("\n" + out.split("PEAK_RSS_KB")[0].rstrip())
    return 0


if __name__ == "__main__":
    sys.exit(main())
