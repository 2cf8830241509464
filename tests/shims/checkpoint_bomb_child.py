"""Child of the bomb tests: load each given file under an address-space limit of the memory
this process already maps plus ``BUDGET_MIB``, and print what happened as JSON.

usage: checkpoint_bomb_child.py BUDGET_MIB PATH:TO [PATH:TO ...]   (TO: jittor or numpy)
"""
import json
import resource
import sys

import shims
from shims.checkpoint import CheckpointError


def mapped_bytes() -> int:
    """This process's current virtual memory size (VmSize)."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmSize")


def main() -> None:
    budget = int(sys.argv[1]) << 20
    resource.setrlimit(resource.RLIMIT_AS, (mapped_bytes() + budget, resource.RLIM_INFINITY))
    out = {}
    try:  # positive control: the limit is live
        bytearray(2 * budget)
        out["control"] = "allocated"
    except MemoryError:
        out["control"] = "MemoryError"
    for arg in sys.argv[2:]:
        path, to = arg.rsplit(":", 1)
        try:
            value = shims.load(path, to=to)
            if isinstance(value, dict):  # numpy arrays: how many came back as read-only views
                out[path] = {"ok": True, "items": len(value),
                             "read_only": sum(not v.flags.writeable for v in value.values())}
            else:
                out[path] = {"ok": True, "shape": list(getattr(value, "shape", ())),
                             "sum": float(value[:4].sum()) if getattr(value, "ndim", 0) == 1 else None}
        except CheckpointError as e:
            out[path] = {"ok": False, "type": type(e).__name__, "msg": str(e)}
        except BaseException as e:  # the test fails on any of these
            out[path] = {"ok": False, "type": type(e).__name__, "msg": str(e), "unclear": True}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
