"""Valid and invalid fixture records, each with its exact expected diagnostics."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from generator.records.pipeline import load_catalog

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
INVALID = sorted((FIXTURES / "invalid").glob("*.yaml"))


def diagnostics(paths: list[Path]) -> list[str]:
    return [str(issue) for issue in load_catalog(paths, ROOT).issues]


def test_valid_fixtures_have_no_issues() -> None:
    loaded = load_catalog([FIXTURES / "valid"], ROOT)
    assert [str(i) for i in loaded.issues] == []
    assert [e.id for e in loaded.catalog.entries] == ["full-record", "minimal-record"]


@pytest.mark.parametrize("path", INVALID, ids=[p.stem for p in INVALID])
def test_invalid_fixture_diagnostics(path: Path, golden) -> None:
    lines = diagnostics([path])
    assert lines, "an invalid fixture must produce diagnostics"
    golden(path.with_suffix(".expected"), "\n".join(lines) + "\n")


def test_a_reference_to_a_record_that_failed_to_load_is_not_reported_again(tmp_path: Path) -> None:
    record = (FIXTURES / "valid" / "minimal-record.yaml").read_text(encoding="utf-8")
    (tmp_path / "minimal-record.yaml").write_text(record + "related: [bad-syntax, no-such-record]\n", encoding="utf-8")
    shutil.copy(FIXTURES / "invalid" / "bad-syntax.yaml", tmp_path)
    found = diagnostics([tmp_path])
    assert any("bad-syntax.yaml" in line and "error[yaml.syntax]" in line for line in found), found
    unknown = [line for line in found if "catalog.unknown-id" in line]
    assert len(unknown) == 1 and "'no-such-record'" in unknown[0], unknown
