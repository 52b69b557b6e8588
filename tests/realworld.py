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


FAMILIES = (
    "cuda-runtime",
    "cublas-cudnn",
    "extensions-install",
    "kernels-compilers",
    "hardware",
    "native-crash",
    "nccl",
    "launcher",
    "memory",
    "numerical",
    "autograd-model",
    "data-tokenizer",
    "checkpoint",
    "config",
    "distributed-other",
    "hang",
    "serving",
    "other",
)


@dataclass(frozen=True)
class CoverageCase:
    """A failure report sampled from a public tracker, labelled with the record that should come first."""

    name: str
    source: str
    project: str
    family: str
    label: str
    cause: str | None
    log: str
    sample: str = "first"  # "heldout-2": the second, held-out sample (new words, built after the records)


def load_coverage() -> list[CoverageCase]:
    """Return the coverage corpus (tests/realworld/coverage/), sorted by file name."""
    cases = []
    for path in sorted((CORPUS / "coverage").glob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        fields = ("source", "project", "family", "label", "cause", "log")
        sample = data.get("sample", "first")
        cases.append(CoverageCase(path.stem, *(data.get(name) for name in fields), sample))
    return cases
