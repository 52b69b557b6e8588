"""Read the real-world corpus: log excerpts with their source and expected record."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import yaml

CORPUS = Path(__file__).resolve().parent / "realworld"


@dataclass(frozen=True)
class Case:
    name: str
    source: str
    expect: str | None
    log: str
    top: str | None = None  # the record ranked first, when an earlier cause is in the excerpt


def load_cases(kind: str) -> list[Case]:
    cases = []
    for path in sorted((CORPUS / kind).glob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        cases.append(Case(path.stem, data["source"], data.get("expect"), data["log"], data.get("top")))
    return cases
