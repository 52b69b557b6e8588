"""Valid and invalid fixture records, each with its exact expected diagnostics."""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.pipeline import load_catalog

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
