"""Load, validate and model a set of record files in one call."""

from __future__ import annotations

import gc
import hashlib
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from generator.records.errors import Issue, Location, has_errors
from generator.records.ledger import ledger_issues, read_ledger
from generator.records.load import load_text, read_source
from generator.records.model import Catalog, build_catalog
from generator.records.source import SourceDoc, discover, display_path
from generator.records.validate import check_catalog, check_document, collision_issues, published_issues

HEALTHY_DIR = "tests/realworld/benign"
PUBLISHED_IDS = "schema/published-ids.txt"


def healthy_logs(root: Path) -> list[tuple[str, str]]:
    """Return (name, text) of every healthy log kept in the repository."""
    logs = []
    for path in sorted((root / HEALTHY_DIR).glob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        logs.append((path.name, str(data.get("log", ""))))
    return logs


def published_ids(root: Path) -> list[tuple[Location, str]]:
    """Return every id in the committed list of published ids, with its line."""
    path = root / PUBLISHED_IDS
    if not path.exists():
        return []
    lines = path.read_text(encoding="utf-8").splitlines()
    return [(Location(PUBLISHED_IDS, n, 1), line.strip()) for n, line in enumerate(lines, 1) if line.strip()]


def project_issues(catalog: Catalog, root: Path) -> list[Issue]:
    """Return the collision, published-id and verification-ledger problems of the project's catalog."""
    found = [*collision_issues(catalog, healthy_logs(root)), *published_issues(catalog, published_ids(root))]
    return [*found, *ledger_issues(catalog, read_ledger(root))]


ENTRIES_DIR = "entries"
__all__ = ["ENTRIES_DIR", "Loaded", "discover", "display_path", "load_catalog", "paused_gc"]


@contextmanager
def paused_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector while building acyclic data in bulk.

    Loading thousands of records allocates millions of objects that all stay alive, so every
    automatic collection rescans a growing heap for cycles that this data never has.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


@dataclass(frozen=True)
class Loaded:
    """The catalog built from the valid records, and every issue found on the way."""

    catalog: Catalog
    issues: tuple[Issue, ...]

    @property
    def ok(self) -> bool:
        """Return True when no issue is an error."""
        return not has_errors(self.issues)


def load_catalog(
    paths: Iterable[Path],
    root: Path | None = None,
    keep: list[SourceDoc] | None = None,
    project: bool = False,
    checked: Mapping[str, Any] | None = None,
) -> Loaded:
    """Return the catalog of the records at ``paths`` with all their issues, sorted.

    The documents that went into the catalog are appended to ``keep`` when it is given.
    With ``project``, the checks that need the project's own files run too: collisions with
    the healthy-log corpus and the list of published ids. ``checked`` maps the digest of a
    record file's bytes to its data, for records that passed every check before: those are
    neither parsed nor checked again, unless the catalog has an issue, which is then
    reported from a full run (recalled data has no positions to report it at).
    """
    files = discover(paths)
    base = root or Path.cwd()
    with paused_gc():
        loaded, docs = load_and_check(files, base, project, checked or {})
        if checked and loaded.issues:
            loaded, docs = load_and_check(files, base, project, {})
    if keep is not None:
        keep.extend(docs)
    return loaded


def claimed_id(doc: SourceDoc, path: Path) -> str:
    """Return the id a record that failed to load was meant to have: its own, else its file's."""
    data = doc.data
    own = data.get("id") if isinstance(data, dict) else None
    return own if isinstance(own, str) else path.stem


def load_or_recall(path: Path, name: str, checked: Mapping[str, Any]) -> SourceDoc:
    """Return the document of one file, its data recalled when ``checked`` knows its bytes."""
    raw = read_source(path, name)
    if isinstance(raw, SourceDoc):
        return raw
    digest = record_digest(raw)
    data = checked.get(digest)
    doc = SourceDoc(name, data, recalled=True) if data is not None else load_text(name, raw)
    doc.digest = digest
    return doc


def record_digest(raw: bytes) -> str:
    """Return the digest under which a record file's checked data is remembered."""
    return hashlib.sha256(raw).hexdigest()


def load_and_check(
    files: list[Path], base: Path, project: bool, checked: Mapping[str, Any]
) -> tuple[Loaded, list[SourceDoc]]:
    """Return the catalog of ``files`` with all their issues, and its documents (see load_catalog)."""
    issues: list[Issue] = []
    valid = []
    unreadable = set()
    for path in files:
        name = display_path(path, base)
        doc = load_or_recall(path, name, checked)
        doc_issues = [] if doc.recalled else check_document(doc)
        issues.extend(doc_issues)
        if not any(i.code.startswith(("yaml.", "schema.", "file.")) for i in doc_issues):
            valid.append(doc)
        else:
            unreadable.add(claimed_id(doc, path))
    catalog = build_catalog(valid)
    recalled = {doc.path for doc in valid if doc.recalled}
    issues.extend(check_catalog(catalog, unreadable, recalled))
    if project:
        issues.extend(project_issues(catalog, base))
    return Loaded(catalog, tuple(sorted(set(issues)))), valid
