"""The coverage corpus: real failure reports sampled from public trackers, and which ones we answer right.

`coverage-first.txt` lists, exactly, the cases whose labelled record comes first today. A case
that stops coming first fails the test with its name; a case that starts coming first fails it
too, until it is added, so the list (and the table of `python -m tests.coverage_report`) stays true.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from generator.records.pipeline import load_catalog

from .coverage_report import also_initiating, answers
from .realworld import CORPUS, FAMILIES, load_coverage

ROOT = Path(__file__).resolve().parent.parent
CASES = load_coverage()
EXPECTED_FILE = CORPUS / "coverage-first.txt"
# Records other than the label that a case's log also shows as initiating: a sticky kernel fault
# beside a device-side assert is real, a new record firing on another family's case is a loss of
# precision; the file lists them exactly, so each new one names itself.
ALSO_FILE = CORPUS / "coverage-also.txt"
SLUG = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*\Z")
THREAD = re.compile(r"https://github\.com/[\w.-]+/[\w.-]+/(issues|pull|discussions)/[0-9]+\Z")


def expected_first() -> list[str]:
    lines = EXPECTED_FILE.read_text(encoding="utf-8").splitlines()
    return sorted(line.strip() for line in lines if line.strip() and not line.startswith("#"))


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_case_is_a_labelled_thread_excerpt(case) -> None:  # type: ignore[no-untyped-def]
    assert THREAD.match(case.source), case.source
    assert case.family in FAMILIES
    assert SLUG.match(case.label)
    assert case.cause is None or len(case.cause) > 10
    assert 1 <= len(case.log.strip().splitlines()) <= 60
    assert case.sample in ("first", "heldout-2", "heldout-3", "heldout-4")


def test_every_thread_is_sampled_once() -> None:
    sources = [case.source for case in CASES]
    assert sorted({s for s in sources if sources.count(s) > 1}) == []


def test_right_first_exactly_as_recorded() -> None:
    catalog = load_catalog([ROOT / "entries"], ROOT).catalog
    firsts = answers(CASES, catalog)
    right = sorted(case.name for case in CASES if firsts[case.name] == case.label)
    expected = expected_first()
    lost = [f"{name} (now {firsts.get(name)})" for name in expected if name not in right]
    gained = [name for name in right if name not in expected]
    assert (lost, gained) == ([], []), f"update {EXPECTED_FILE.name} only for gains"


def test_other_records_initiate_only_where_recorded() -> None:
    catalog = load_catalog([ROOT / "entries"], ROOT).catalog
    found = also_initiating(CASES, catalog)
    lines = ALSO_FILE.read_text(encoding="utf-8").splitlines()
    expected = sorted(line for line in lines if line.strip() and not line.startswith("#"))
    new = [pair for pair in found if pair not in expected]
    gone = [pair for pair in expected if pair not in found]
    assert (new, gone) == ([], []), f"check each pair, then update {ALSO_FILE.name}"
