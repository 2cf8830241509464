"""The page ``jtport parity --run --html FILE`` writes: self-contained (inline SVG, no script, no
network).  Two plots and the verdict:

* the loss of every backward call, torch's and the port's curves over the calls;
* the first step's module outputs in call order, one pair of bars each on a log scale: the
  port's error relative to torch's output, and torch's own float32 error (its spread: the same
  script from weights one rounding away) beside it.

The plotted numbers are also in ``<script type="application/json" id="plot-data">`` (JSON, not
run), which the tests read back and check against the SVG.
"""
from __future__ import annotations

import html
import json
import math
from pathlib import Path
from typing import List, Sequence, Tuple

from .run_compare import Verdict

W, H, PAD = 720, 300, 48
FLOOR = 1e-10  # the log axis starts here: an exact match is drawn at the floor


def _polyline(values: Sequence[float], lo: float, hi: float, cls: str, color: str) -> str:
    n = max(len(values) - 1, 1)
    pts = []
    for i, y in enumerate(values):
        px = PAD + (W - 2 * PAD) * i / n
        py = H - PAD - (H - 2 * PAD) * ((y - lo) / (hi - lo) if hi > lo else 0.5)
        pts.append(f"{px:.2f},{py:.2f}")
    dots = "".join(f'<circle class="{cls}" cx="{p.split(",")[0]}" cy="{p.split(",")[1]}" r="2.5" fill="{color}"/>'
                   for p in pts)
    return f'<polyline class="{cls}" fill="none" stroke="{color}" stroke-width="2" points="{" ".join(pts)}"/>{dots}'


def loss_svg(torch: Sequence[float], port: Sequence[float]) -> str:
    """Both loss curves over the backward calls."""
    values = [v for v in list(torch) + list(port) if math.isfinite(v)] or [0.0]
    lo, hi = min(values), max(values)
    pad = (hi - lo) * 0.05 or 1.0
    lo, hi = lo - pad, hi + pad
    axis = (f'<text x="{PAD}" y="{PAD - 12}" font-size="12">loss ({lo:.4g} .. {hi:.4g}) over {len(torch)} backward '
            f'calls</text><line x1="{PAD}" y1="{H - PAD}" x2="{W - PAD}" y2="{H - PAD}" stroke="#888"/>'
            f'<line x1="{PAD}" y1="{PAD}" x2="{PAD}" y2="{H - PAD}" stroke="#888"/>')
    legend = (f'<text x="{W - 200}" y="{PAD - 12}" font-size="12" fill="#d62728">torch</text>'
              f'<text x="{W - 140}" y="{PAD - 12}" font-size="12" fill="#1f77b4">port (Jittor)</text>')
    return (f'<svg id="loss-plot" xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" '
            f'data-lo="{lo!r}" data-hi="{hi!r}">{axis}{legend}'
            f'{_polyline(torch, lo, hi, "torch", "#d62728")}{_polyline(port, lo, hi, "port", "#1f77b4")}</svg>')


def _log_y(v: float, lo: float, hi: float) -> float:
    v = max(v, FLOOR)
    return H - PAD - (H - 2 * PAD) * (math.log10(v) - lo) / (hi - lo)


def module_svg(rows: Sequence[Tuple[str, float, float, bool]]) -> str:
    """Per first-step module output: the port's relative error and torch's own, log scale."""
    values = [max(v, FLOOR) for _, a, b, _ in rows for v in (a, b) if math.isfinite(v)] or [1.0]
    lo, hi = math.floor(math.log10(min(values))), math.ceil(math.log10(max(values))) + (
        1 if math.log10(max(values)) == math.ceil(math.log10(max(values))) else 0)
    width = max(W, 2 * PAD + 26 * len(rows))
    bw = (width - 2 * PAD) / max(len(rows), 1) / 2.5
    parts = []
    for i, (name, port, own, ok) in enumerate(rows):
        x = PAD + i * 2.5 * bw
        for j, (cls, v, color) in enumerate((("port", port, "#1f77b4" if ok else "#d62728"), ("own", own, "#999"))):
            y = _log_y(v if math.isfinite(v) else 10.0 ** hi, lo, hi)
            parts.append(f'<rect class="{cls}" data-call="{html.escape(name)}" data-value="{v!r}" x="{x + j * bw:.2f}" '
                         f'y="{y:.2f}" width="{bw:.2f}" height="{H - PAD - y:.2f}" fill="{color}">'
                         f'<title>{html.escape(name)}: {cls} {v:.3g}</title></rect>')
    ticks = "".join(f'<text x="4" y="{_log_y(10.0 ** e, lo, hi) + 4:.2f}" font-size="10">1e{e}</text>'
                    f'<line x1="{PAD}" x2="{width - PAD}" y1="{_log_y(10.0 ** e, lo, hi):.2f}" '
                    f'y2="{_log_y(10.0 ** e, lo, hi):.2f}" stroke="#eee"/>' for e in range(lo, hi + 1))
    title = (f'<text x="{PAD}" y="{PAD - 12}" font-size="12">first step, module outputs in call order: relative '
             f'error of the port (blue, red where it differs) and torch\'s own float32 error (grey), log scale</text>')
    return (f'<svg id="module-plot" xmlns="http://www.w3.org/2000/svg" width="{width}" height="{H}" '
            f'data-log-lo="{lo}" data-log-hi="{hi}">{title}{ticks}{"".join(parts)}</svg>')


def module_rows(v: Verdict) -> List[Tuple[str, float, float, bool]]:
    """(output, port's relative error, torch's own relative error, ok) per first-step module output."""
    return [(c.name, c.rel, c.own_rel, c.ok) for c in v.checks if c.group == "forward"]


def page(v: Verdict) -> str:
    """The whole page."""
    rows = module_rows(v)
    data = {"verdict": "match" if v.ok else "different", "torch_losses": v.torch_losses, "port_losses": v.port_losses,
            "loss_spread": v.loss_spread, "modules": [{"call": n, "port_rel": p, "torch_own_rel": o, "ok": ok}
                                                      for n, p, o, ok in rows],
            "where": v.where(), "notes": v.notes}
    verdict = ("<p class='verdict ok'>MATCH: every compared loss, module output, gradient and parameter is "
               "within torch's own float32 error</p>" if v.ok else
               f"<p class='verdict bad'>DIFFERENT</p><pre>{html.escape(v.where())}</pre>")
    notes = "".join(f"<li>{html.escape(n)}</li>" for n in v.notes)
    blob = json.dumps(data).replace("</", "<\\/")
    return ("<!DOCTYPE html><html><head><meta charset='utf-8'><title>jtport parity --run</title><style>"
            "body{font-family:sans-serif;margin:2em}.ok{color:#2a7}.bad{color:#c22}.verdict{font-size:1.4em}"
            "</style></head><body><h1>jtport parity --run</h1>" + verdict
            + f"<h2>Loss per backward call</h2>{loss_svg(v.torch_losses, v.port_losses)}"
            + f"<h2>First step: module outputs</h2>{module_svg(rows)}"
            + (f"<h2>Notes</h2><ul>{notes}</ul>" if notes else "")
            + f"<script type='application/json' id='plot-data'>{blob}</script></body></html>")


def write(path: Path, v: Verdict) -> None:
    """Write the page for verdict ``v`` to ``path``."""
    Path(path).write_text(page(v), encoding="utf-8")
