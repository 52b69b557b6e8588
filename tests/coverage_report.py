"""How often the right record comes first on the coverage corpus, overall and per family.

`python -m tests.coverage_report` prints the table; tests/test_coverage.py holds the exact
set of cases answered right, so a record that regresses names itself.
"""

from __future__ import annotations

import io
from collections import Counter
from pathlib import Path

from generator.diagnosis.diagnose import diagnose
from generator.diagnosis.logread import Source
from generator.records.model import Catalog
from generator.records.pipeline import load_catalog
from generator.signatures.match import Matcher

from .realworld import CoverageCase, load_coverage

ROOT = Path(__file__).resolve().parent.parent


def first_record(log: str, matcher: Matcher, catalog: Catalog) -> str | None:
    """Return the id of the first finding for a log, or None when nothing matched."""
    report = diagnose([Source("log", io.BytesIO(log.encode("utf-8")))], matcher, catalog)
    return report.findings[0].entry.id if report.findings else None


def also_initiating(cases: list[CoverageCase], catalog: Catalog) -> list[str]:
    """Return "case: record" for every initiating finding of a record other than the case's label."""
    matcher = Matcher(catalog.signatures)
    found = []
    for case in cases:
        report = diagnose([Source("log", io.BytesIO(case.log.encode("utf-8")))], matcher, catalog)
        found += [
            f"{case.name}: {f.entry.id}" for f in report.findings if f.role == "initiating" and f.entry.id != case.label
        ]
    return sorted(found)


def answers(cases: list[CoverageCase], catalog: Catalog) -> dict[str, str | None]:
    """Return each case's first record."""
    matcher = Matcher(catalog.signatures)
    return {case.name: first_record(case.log, matcher, catalog) for case in cases}


def table(cases: list[CoverageCase], firsts: dict[str, str | None], catalog: Catalog) -> list[str]:
    """Return the report lines: per family, cases, with a record, right first."""
    total, known, right = Counter[str](), Counter[str](), Counter[str]()
    for case in cases:
        for key in (case.family, "all"):
            total[key] += 1
            known[key] += case.label in catalog.by_id
            right[key] += firsts[case.name] == case.label
    rows = [f"{'family':<20} {'cases':>5} {'record':>7} {'first':>6} {'share':>6}"]
    for key in [*sorted(k for k in total if k != "all"), "all"]:
        rows.append(f"{key:<20} {total[key]:>5} {known[key]:>7} {right[key]:>6} {right[key] / total[key]:>6.0%}")
    return rows


def main() -> None:
    catalog = load_catalog([ROOT / "entries"], ROOT).catalog
    cases = load_coverage()
    firsts = answers(cases, catalog)
    print("\n".join(table(cases, firsts, catalog)))
    for sample in sorted({case.sample for case in cases}):
        print(f"\nsample {sample}:")
        print("\n".join(table([case for case in cases if case.sample == sample], firsts, catalog)))


if __name__ == "__main__":
    main()
