"""Causes on the real corpus: labels name real causes, and the first cause shown is right as recorded.

`cause-first.txt` lists, exactly, the labelled cases whose record comes first with the labelled
cause as its first judged cause. A case that loses it fails with its name; a case that gains it
fails too until it is added, so the list (and `python -m tests.cause_report`) stays true.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.records.pipeline import load_catalog

from .cause_report import UNLISTED, UNREAD, answers, labelled, load_cause_cases, right_first
from .realworld import CORPUS

ROOT = Path(__file__).resolve().parent.parent
CATALOG = load_catalog([ROOT / "entries"], ROOT).catalog
CASES = load_cause_cases()
EXPECTED_FILE = CORPUS / "cause-first.txt"


def expected_first() -> list[str]:
    lines = EXPECTED_FILE.read_text(encoding="utf-8").splitlines()
    return sorted(line.strip() for line in lines if line.strip() and not line.startswith("#"))


@pytest.mark.parametrize("case", [c for c in CASES if c.cause_title is not UNREAD], ids=lambda c: c.name)
def test_a_label_names_a_cause_of_the_cases_record(case) -> None:  # type: ignore[no-untyped-def]
    if case.cause_title is None or case.cause_title.startswith(UNLISTED):
        return
    assert case.record in CATALOG.by_id, f"{case.name}: labelled, but {case.record} is no record"
    titles = [cause["title"] for cause in CATALOG.by_id[case.record].data["causes"]]
    assert case.cause_title in titles, f"{case.name}: {case.cause_title!r} is not a cause of {case.record}"


def test_the_labelled_cases_are_real_threads() -> None:
    assert len(labelled(CASES)) >= 10


def test_first_cause_right_exactly_as_recorded() -> None:
    right = right_first(CASES, answers(CASES, CATALOG))
    expected = expected_first()
    lost = [name for name in expected if name not in right]
    gained = [name for name in right if name not in expected]
    assert (lost, gained) == ([], []), f"update {EXPECTED_FILE.name} only for gains"
