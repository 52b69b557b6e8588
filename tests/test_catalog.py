"""Every real record: it validates, renders, meets the content bar, and its signatures hold."""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.patterns.dialect import compile_pattern
from generator.patterns.normalize import normalize_line
from generator.records.pipeline import load_catalog
from generator.site.render import render_site

from .realworld import load_cases

ROOT = Path(__file__).resolve().parent.parent
LOADED = load_catalog([ROOT / "entries"], ROOT, project=True)
ENTRIES = LOADED.catalog.entries
IDS = [e.id for e in ENTRIES]
FAILURES = load_cases("failures")
BENIGN = load_cases("benign")
COMPILED = {sig.id: compile_pattern(sig.pattern, sig.ignore_case) for sig in LOADED.catalog.signatures}


def test_catalog_has_no_issues() -> None:
    assert [str(issue) for issue in LOADED.issues] == []


def test_every_record_renders() -> None:
    paths = {page.path for page in render_site(LOADED.catalog)}
    assert {f"entries/{entry_id}.md" for entry_id in IDS} <= paths


@pytest.mark.parametrize("entry", ENTRIES, ids=IDS)
def test_content_bar(entry) -> None:
    e = entry.data
    assert len(e["symptoms"]) >= 2, "at least two symptoms"
    assert len(e["causes"]) >= 2, "at least two root causes"
    assert e.get("prevention") and e.get("affected") and e.get("related"), "prevention, affected, related"
    assert len(e["references"]) >= 2, "at least two references"
    assert any(ref["kind"] in ("source", "docs") for ref in e["references"]), "an upstream reference"
    for sig in entry.signatures:
        assert len(sig.match) >= 2 and len(sig.no_match) >= 2, f"{sig.id}: two match and two no_match examples"


def matching_signatures(text: str) -> set[str]:
    lines = [normalize_line(line) for line in text.splitlines()]
    return {sig_id for sig_id, rx in COMPILED.items() if any(rx.search(line) for line in lines)}


@pytest.mark.parametrize("case", FAILURES, ids=[c.name for c in FAILURES])
def test_failure_excerpt_matches_its_record(case) -> None:
    assert case.source.startswith("https://")
    assert case.expect in LOADED.catalog.by_id, f"no record {case.expect}"
    matched = matching_signatures(case.log)
    owners = {sig.entry_id for sig in LOADED.catalog.signatures if sig.id in matched}
    assert case.expect in owners


@pytest.mark.parametrize("case", BENIGN, ids=[c.name for c in BENIGN])
def test_benign_log_matches_nothing(case) -> None:
    assert case.source.startswith("https://")
    assert matching_signatures(case.log) == set()


def test_corpus_size() -> None:
    assert len(FAILURES) >= 40
    assert len(BENIGN) >= 8
    assert {c.expect for c in FAILURES} <= set(IDS)
