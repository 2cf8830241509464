"""``docs/API_COVERAGE.md`` and ``docs/api_coverage.json`` are generated and up to date."""
import json

from porter.prove import coverage_doc
from porter.mapping import load_table


def test_committed_docs_are_up_to_date():
    """The committed files equal what the table + the last parity results generate."""
    stale = coverage_doc.stale(coverage_doc.generate())
    assert not stale, f"out of date: {[str(p) for p in stale]}: run `make docs`"


def test_json_rows_have_the_documented_keys():
    """One object per table row with api/status/target/forward/gradient/reason."""
    rows = json.loads(coverage_doc.JSON.read_text())
    assert len(rows) == len(load_table())
    for r in rows:
        assert set(r) == {"api", "status", "target", "forward", "gradient", "reason"}
        assert r["forward"] in ("pass", "fail", "n/a") and r["gradient"] in ("pass", "fail", "n/a")


def test_generation_uses_results(tmp_path):
    """A row's outcome and harness notes reach the document; rows without cases are n/a."""
    table = load_table()
    res = tmp_path / "r.json"
    res.write_text(json.dumps({"cases": 1, "rows": {"torch.var": {
        "forward": "pass", "gradient": "fail", "cases": 1, "failed_cases": ["reduce:torch.var"],
        "notes": ["0-d as (1,)"]}}}))
    files = coverage_doc.generate(table, res)
    rows = {r["api"]: r for r in json.loads(files[coverage_doc.JSON])}
    assert rows["torch.var"]["forward"] == "pass" and rows["torch.var"]["gradient"] == "fail"
    assert "shape (1,)" in rows["torch.var"]["reason"] and "failing cases: torch.var" in rows["torch.var"]["reason"]
    assert rows["torch.save"]["forward"] == "n/a"
    assert "| `torch.var` | shim |" in files[coverage_doc.MD]
