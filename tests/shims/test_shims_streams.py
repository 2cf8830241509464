"""``torch.cuda.Stream``/``stream``/``current_stream`` converted: HiSD's ``data_prefetcher``
(a copy on a second stream, then ``wait_stream``) runs under Jittor and hands out the loader's
batches in order, as torch does."""
from pathlib import Path

import jittor as jt
import numpy as np

from porter import convert_source

PREFETCH = Path(__file__).resolve().parents[1] / "golden" / "streams" / "prefetch.in.py"


def test_converted_prefetcher_yields_the_batches_in_order():
    result = convert_source(PREFETCH.read_text(), "prefetch.py")
    assert not result.report.unsupported, result.report.unsupported
    scope: dict = {}
    exec(compile(result.code, "prefetch.py", "exec"), scope)
    batches = [jt.array(np.full((2, 3), k, np.float32)) for k in range(4)]
    fetcher = scope["data_prefetcher"](batches + [jt.zeros((2, 3))])
    got = [fetcher.next() for _ in range(4)]
    assert [float(b[0, 0]) for b in got] == [0.0, 1.0, 2.0, 3.0]


def test_stream_methods_keep_torch_signatures():
    import shims

    s = shims.streams.Stream(priority=-1)
    assert s.query() is True and s.record_event() is None
    s.wait_stream(shims.streams.current_stream())
    with shims.streams.stream(s) as entered:
        assert entered is s
