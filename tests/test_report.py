"""Report renderings: totals, rate, unsupported APIs sorted by frequency with file:line."""
import json

from porter.convert.report import FileReport, Finding, Report


def make_report():
    a = FileReport("a.py", found=10, converted=7, changed=True,
                   unsupported=[Finding("a.py", 3, 1, "torch.x", "JT001", "why x"),
                                Finding("a.py", 9, 5, "torch.y", "JT001", "why y"),
                                Finding("a.py", 12, 1, "torch.x", "JT001", "why x")])
    b = FileReport("b.py", found=5, converted=4,
                   unsupported=[Finding("b.py", 1, 1, "torch.x", "JT001", "why x")])
    c = FileReport("c.py", error=Finding("c.py", 2, 4, "", "JT900", "syntax error: bad"))
    return Report([a, b, c])


def test_totals_and_rate():
    r = make_report()
    assert (r.found, r.converted, len(r.unsupported), len(r.errors)) == (15, 11, 4, 1)
    assert abs(r.rate - 11 / 15) < 1e-12


def test_unsupported_sorted_by_frequency_with_places():
    by_api = make_report().unsupported_by_api()
    assert [(api, n) for api, n, _ in by_api] == [("torch.x", 3), ("torch.y", 1)]
    assert by_api[0][2] == ["a.py:3", "a.py:12", "b.py:1"]


def test_json_and_markdown():
    r = make_report()
    data = json.loads(r.to_json())
    assert data["totals"] == {"files": 3, "found": 15, "converted": 11, "unsupported": 4,
                              "errors": 1, "rate": round(11 / 15, 4)}
    assert data["unsupported_by_api"][0] == {"api": "torch.x", "count": 3,
                                             "places": ["a.py:3", "a.py:12", "b.py:1"]}
    md = r.to_markdown()
    assert "**11/15**" in md and "| `torch.x` | 3 |" in md and "c.py:2:4 JT900" in md
    table = r.format_table()
    assert "TOTAL" in table and "torch.x" in table and "error: c.py:2:4" in table
