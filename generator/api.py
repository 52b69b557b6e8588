"""The Python API: diagnose a log from a program, with the same answer as `failpedia diagnose --json`.

The findings are typed views of the ``--json`` shape (schema/diagnosis.schema.json), built
from it so the two cannot drift apart. The catalog is chosen as the CLI chooses it: an
explicit folder, else $FAILPEDIA_CATALOG, else ./entries, else the catalog packaged with
the installed tool.
"""

from __future__ import annotations

import io
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from generator.bundle import read_packaged
from generator.cache import cached_matcher, load_for_diagnosis, load_validated
from generator.diagnosis.diagnose import diagnose as diagnose_sources
from generator.diagnosis.diagnose import report_json
from generator.diagnosis.logread import Source, open_source
from generator.records.model import Catalog
from generator.signatures.match import Matcher

ENTRIES_DIR = "entries"


class CatalogError(Exception):
    """No catalog can answer: the folder named does not exist, its records are invalid, or none is installed."""


@dataclass(frozen=True)
class Answering:
    """The catalog that answers, its compiled matcher, and a label saying which it is."""

    label: str
    catalog: Catalog
    matcher: Matcher


def local_entries(catalog: str | os.PathLike[str] | None) -> Path | None:
    """Return the records folder to use: ``catalog`` or $FAILPEDIA_CATALOG, else ./entries, else None."""
    explicit = catalog or os.environ.get("FAILPEDIA_CATALOG")
    if explicit:
        folder = Path(explicit)
        return folder / ENTRIES_DIR if (folder / ENTRIES_DIR).is_dir() else folder
    return Path(ENTRIES_DIR) if Path(ENTRIES_DIR).is_dir() else None


def open_records(
    catalog: str | os.PathLike[str] | None = None, with_matcher: bool = True
) -> tuple[str, Catalog, Matcher | None]:
    """Return which catalog answers, its records and (when asked) its compiled matcher.

    Raises CatalogError, with the reason, when none can answer.
    """
    entries = local_entries(catalog)
    if entries is None:
        return packaged_records(with_matcher)
    if not entries.is_dir():
        raise CatalogError(f"no such catalog directory: {entries}")
    if with_matcher:
        loaded, records, matcher = load_for_diagnosis(entries, entries.resolve().parent)
    else:
        loaded, matcher = load_validated(entries, entries.resolve().parent)[1], None
        records = loaded.catalog
    if loaded is not None and not loaded.ok:
        raise CatalogError("the records are invalid; run failpedia validate")
    return f"local records in {entries}", records, matcher


def packaged_records(with_matcher: bool) -> tuple[str, Catalog, Matcher | None]:
    """Return the catalog packaged with the installed tool (raises CatalogError when there is none)."""
    packaged = read_packaged()
    if packaged is None:
        raise CatalogError(f"no {ENTRIES_DIR}/ directory here and no packaged catalog; use --catalog DIR")
    label = f"packaged catalog, library {packaged.library_version}, {len(packaged.catalog.entries)} records"
    matcher = cached_matcher(packaged.key, packaged.catalog, True) if with_matcher else None
    return label, packaged.catalog, matcher


def open_catalog(catalog: str | os.PathLike[str] | None = None) -> Answering:
    """Return the catalog that answers (raises CatalogError, with the reason, when none can)."""
    label, records, matcher = open_records(catalog)
    assert matcher is not None  # asked for
    return Answering(label, records, matcher)


@dataclass(frozen=True)
class Place:
    """Where a line is: file, line number, and its own timestamp when it has one."""

    file: str
    line: int
    timestamp: str | None


@dataclass(frozen=True)
class Evidence:
    """One matching line and the signature that matched it."""

    file: str
    line: int
    text: str
    signature: str


@dataclass(frozen=True)
class Cause:
    """A cause of the failure, as the log's evidence judged it, with the reasons."""

    title: str
    verdict: str
    reasons: tuple[str, ...]


@dataclass(frozen=True)
class Fix:
    """The record's first fix step, its command if any, and how to check that it worked."""

    first_step: str
    command: str | None
    verify: str


@dataclass(frozen=True)
class Finding:
    """One known failure found in the log (the fields of one --json finding)."""

    id: str
    title: str
    url: str
    role: str
    score: float
    lines: int
    signatures: tuple[str, ...]
    files: tuple[str, ...]
    ranks: tuple[int, ...]
    first: Place
    last: Place
    evidence: tuple[Evidence, ...]
    causes: tuple[Cause, ...]
    fix: Fix

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Finding:
        """Return the finding of one --json finding object."""
        return cls(
            **{key: data[key] for key in ("id", "title", "url", "role", "score", "lines")},
            signatures=tuple(data["signatures"]),
            files=tuple(data["files"]),
            ranks=tuple(data["ranks"]),
            first=Place(**data["first"]),
            last=Place(**data["last"]),
            evidence=tuple(Evidence(**e) for e in data["evidence"]),
            causes=tuple(Cause(c["title"], c["verdict"], tuple(c["reasons"])) for c in data["causes"]),
            fix=Fix(**data["fix"]),
        )


@dataclass(frozen=True)
class Diagnosis:
    """The findings, best first; the bytes read; which catalog answered; and the --json object itself."""

    findings: tuple[Finding, ...]
    scanned_bytes: int
    problems: tuple[str, ...]
    catalog: str
    json: Mapping[str, Any]


LogInput = str | bytes | os.PathLike[str]


def sources(logs: LogInput | Sequence[LogInput]) -> list[Source]:
    """Return one Source per log: a path (an os.PathLike, or a one-line str naming a file), else the text itself."""
    items: list[LogInput] = list(logs) if isinstance(logs, (list, tuple)) else [logs]  # type: ignore[list-item]
    return [log_source(number, item) for number, item in enumerate(items, start=1)]


def log_source(number: int, item: LogInput) -> Source:
    """Return the Source of one log given as bytes, a path, or text (named ``<log N>`` unless a file)."""
    if isinstance(item, bytes):
        return Source(f"<log {number}>", io.BytesIO(item))
    if isinstance(item, os.PathLike):
        return open_source(os.fspath(item), None)
    if "\n" not in item and Path(item).is_file():
        return open_source(item, None)
    return Source(f"<log {number}>", io.BytesIO(item.encode("utf-8")))


def diagnose(
    logs: LogInput | Sequence[LogInput],
    *,
    catalog: str | os.PathLike[str] | None = None,
    top: int = 10,
    site_url: str = "",
) -> Diagnosis:
    """Diagnose one log or several (ranks' files): text, bytes, or paths; return the findings, best first.

    A ``str`` is read as a path when it is one line naming an existing file, else as the
    log's text; pass a ``pathlib.Path`` to mean a path always. Raises CatalogError when no
    catalog can answer, and ValueError when ``top`` is below 1.
    """
    if top < 1:
        raise ValueError(f"top must be at least 1, not {top}")
    answering = open_catalog(catalog)
    report = diagnose_sources(sources(logs), answering.matcher, answering.catalog)
    data: dict[str, Any] = {**report_json(report, top, site_url), "catalog": answering.label}
    problems = tuple(f"{s.name}: {note}" for s in report.sources for note in s.notes)
    findings = tuple(Finding.from_json(f) for f in data["findings"])
    return Diagnosis(findings, sum(s.bytes_read for s in report.sources), problems, answering.label, data)
