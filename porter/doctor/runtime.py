"""``jtport doctor --runtime``: device memory, who holds GPU memory, Jittor's counters explained."""
from __future__ import annotations

from typing import Any, Dict

from .base import CheckContext, Finding, _package, _parse_probe

MEMORY_EXPLANATION = """\
What Jittor's memory counters mean (jt.display_memory_info(), jt.liveness_info()):
  hold_vars   Vars your Python code still references (every live jt.Var object).
  lived_vars  every Var alive in Jittor's graph, including results not computed yet:
              Jittor is lazy and runs an op only when something reads its result.
  lived_ops   operations recorded in the graph and not yet run or freed.
Typical causes of growth, step after step:
  * a lazily updated Var that is never read, such as an EMA copy of the weights updated
    with assign()/update() each step but read only when sampling: its whole update
    history stays in the graph (lived_vars/lived_ops grow, hold_vars does not; measured
    +48 vars per step, and the first read after 1000 steps compiled for 344 s).
    Fix: shims.ema_update, or jt.sync(ema_params) each step (every 10 is enough).
  * a Python list or dict keeping Vars alive (losses.append(loss)): hold_vars grows.
    Keep numbers instead: losses.append(loss.item()).
  * GPU memory "never freed" across runs: another process still holds it (see the
    processes listed by nvidia-smi), or the batch/sample size is simply too large for
    the card (a NeuS port fitted after lowering n_importance to 32).
    jt.gc() returns Jittor's cached blocks; jt.sync_all(True) runs what is pending.
A related message: "grads[i] 'name' doesn't have gradient. It will be set to zero" means that
parameter took no part in the loss being optimized (a discriminator step on detached
generator outputs reaches no generator parameter). It is harmless when intended; Jittor
prints it once per parameter name. Give each network its own optimizer over its own
parameters to avoid it."""


_RUNTIME_PROBE = r"""
import json
report, source = None, "shims.memory_report()"
try:
    import shims
    report = shims.memory_report()
except Exception:  # no shims, or no memory_report yet: Jittor's own counters
    source = "jt.liveness_info()"
    import jittor as jt
    report = dict(jt.liveness_info())
    report["number_of_lived_vars"] = jt.number_of_lived_vars()
if not isinstance(report, (dict, list, str, int, float)):
    report = str(report)
print("JTPORT_PROBE " + json.dumps({"source": source, "report": report}))
"""


def _host_memory(ctx: CheckContext) -> str:
    try:
        with open(ctx.meminfo) as f:
            fields = dict(line.split(":", 1) for line in f if ":" in line)
        total = int(fields["MemTotal"].split()[0]) / 2**20
        avail = int(fields["MemAvailable"].split()[0]) / 2**20
        return f"host memory {avail:.1f} GiB free of {total:.1f} GiB"
    except (OSError, KeyError, ValueError):
        return "host memory unknown"


def check_runtime(ctx: CheckContext) -> Finding:
    """Device memory, who holds GPU memory, and Jittor's own counters (``--runtime`` only)."""
    parts = [_host_memory(ctx)]
    status, fix = "ok", ""
    details: Dict[str, Any] = {"explanation": MEMORY_EXPLANATION}
    smi = ctx.which("nvidia-smi")
    if smi:
        rc, out = ctx.run([smi, "--query-gpu=index,name,memory.used,memory.total",
                           "--format=csv,noheader,nounits"], timeout=15)
        if rc == 0:
            for line in out.splitlines():
                cells = [c.strip() for c in line.split(",")]
                if len(cells) == 4:
                    parts.append(f"GPU {cells[0]} ({cells[1]}) {cells[2]} of {cells[3]} MiB used")
        rc, out = ctx.run([smi, "--query-compute-apps=pid,process_name,used_memory",
                           "--format=csv,noheader,nounits"], timeout=15)
        holders = []
        if rc == 0:
            for line in out.splitlines():
                cells = [c.strip() for c in line.split(",")]
                if len(cells) == 3 and cells[0].isdigit():
                    holders.append(f"pid {cells[0]} ({cells[1]}, {cells[2]} MiB)")
        if holders:
            status = "warning"
            parts.append("GPU memory held by running processes: " + ", ".join(holders))
            fix = ("GPU memory 'not freed' is usually one of these processes still running: end it "
                   "(kill PID) if it is a finished or stuck run")
    if _package(ctx, "jittor") is not None:
        timeout = ctx.timeout
        res = _parse_probe(*ctx.run([ctx.python, "-c", _RUNTIME_PROBE], timeout, ctx.jittor_environ()), timeout)
        if "error" in res:
            parts.append(f"Jittor's counters unavailable: {res['error']}")
        else:
            report = res["report"]
            shown = (", ".join(f"{k}={v}" for k, v in report.items()) if isinstance(report, dict)
                     else " ".join(str(report).split()).rstrip(". "))
            parts.append(f"{res['source']} in a fresh process: {shown}")
            details["report"] = report
    parts.append("in your own code call shims.memory_report() between steps; the counters are explained "
                 "below")
    return Finding("runtime", status, "; ".join(parts), fix, details=details)
