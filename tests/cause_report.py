"""How often the cause a real thread establishes is the first cause `diagnose` shows.

Every real-world case (tests/realworld/failures/) and coverage case (tests/realworld/coverage/)
whose thread was read carries `cause_title`: the title of the record's cause the thread
establishes, or null when the thread establishes none. A thread that establishes a cause the record
does not list carries `cause_unlisted` (what the thread found) instead: such a case counts as
labelled and can never be answered right, so a gap in a record's causes shows as a miss. Over the
cases with a cause whose record comes first, this counts those whose first judged cause is it. A
failures case whose excerpt shows an earlier failure first (`top`, e.g. the watchdog timeout before
the aborted communicator it causes) counts its record's own finding, when `top` comes first.
`python -m tests.cause_report` prints the table; tests/test_causes_corpus.py holds the exact
set of cases answered right (tests/realworld/cause-first.txt).
"""

from __future__ import annotations

import io
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import yaml

from generator.diagnosis.diagnose import diagnose
from generator.diagnosis.logread import Source
from generator.records.model import Catalog
from generator.records.pipeline import load_catalog
from generator.signatures.facts import diagnosis_signatures
from generator.signatures.match import Matcher

from .realworld import CORPUS

ROOT = Path(__file__).resolve().parent.parent
UNREAD = object()  # a case whose thread nobody has read for its cause yet
UNLISTED = "(not a cause of the record) "  # prefix of a label the record's causes lack


@dataclass(frozen=True)
class CauseCase:
    """A corpus case with the record it names and the cause its thread establishes."""

    name: str  # "<kind>/<file stem>"
    record: str | None
    cause_title: object  # a title, None (thread read, no cause established) or UNREAD
    log: str
    top: str | None = None  # the record that rightly comes first, when it is not `record`


def load_cause_cases() -> list[CauseCase]:
    """Return every failures and coverage case, with its record and its cause label."""
    cases = []
    for kind, key in (("failures", "expect"), ("coverage", "label")):
        for path in sorted((CORPUS / kind).glob("*.yaml")):
            data = yaml.safe_load(path.read_text(encoding="utf-8"))
            title = data.get("cause_title", UNREAD)
            if "cause_unlisted" in data:
                title = UNLISTED + data["cause_unlisted"]
            cases.append(CauseCase(f"{kind}/{path.stem}", data.get(key), title, data["log"], data.get("top")))
    return cases


def first_cause(case: CauseCase, matcher: Matcher, catalog: Catalog) -> tuple[str | None, str | None]:
    """Return the first finding's record id and the title of its first judged cause.

    When the case's `top` comes first, the finding of the case's record stands in for it.
    """
    report = diagnose([Source("log", io.BytesIO(case.log.encode("utf-8")))], matcher, catalog)
    findings = report.findings
    if not findings:
        return None, None
    if case.top is not None and findings[0].entry.id == case.top:
        findings = [f for f in findings if f.entry.id == case.record] or findings
    finding = findings[0]
    return finding.entry.id, finding.causes[0].title if finding.causes else None


def labelled(cases: list[CauseCase]) -> list[CauseCase]:
    """Return the cases whose thread establishes a cause."""
    return [case for case in cases if isinstance(case.cause_title, str)]


def answers(cases: list[CauseCase], catalog: Catalog) -> dict[str, tuple[str | None, str | None]]:
    """Return, per labelled case, the first record and its first cause."""
    matcher = Matcher(diagnosis_signatures(catalog))
    return {case.name: first_cause(case, matcher, catalog) for case in labelled(cases)}


def right_first(cases: list[CauseCase], firsts: dict[str, tuple[str | None, str | None]]) -> list[str]:
    """Return the labelled cases whose record comes first with the labelled cause first."""
    return sorted(case.name for case in labelled(cases) if firsts[case.name] == (case.record, case.cause_title))


def table(cases: list[CauseCase], firsts: dict[str, tuple[str | None, str | None]]) -> list[str]:
    """Return the report lines: per record, cases read, with a cause, record first, cause first."""
    read, known, on_top, right = Counter[str](), Counter[str](), Counter[str](), Counter[str]()
    for case in cases:
        if case.cause_title is UNREAD:
            continue
        for key in (case.record or "-", "all"):
            read[key] += 1
            if isinstance(case.cause_title, str):
                known[key] += 1
                on_top[key] += firsts[case.name][0] == case.record
                right[key] += firsts[case.name] == (case.record, case.cause_title)
    rows = [f"{'record':<40} {'read':>4} {'cause':>5} {'first':>5} {'right':>5} {'share':>6}"]
    for key in [*sorted(k for k in read if k != "all" and known[k]), "all"]:
        share = f"{right[key] / on_top[key]:.0%}" if on_top[key] else "-"
        rows.append(f"{key:<40} {read[key]:>4} {known[key]:>5} {on_top[key]:>5} {right[key]:>5} {share:>6}")
    return rows


def main() -> None:
    catalog = load_catalog([ROOT / "entries"], ROOT).catalog
    cases = load_cause_cases()
    print("\n".join(table(cases, answers(cases, catalog))))
    unread = sum(case.cause_title is UNREAD and case.record in catalog.by_id for case in cases)
    print(f"cases with a record whose thread is not read yet: {unread}")


if __name__ == "__main__":
    main()
