"""Load, validate and model a set of record files in one call."""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from generator.errors import Issue, has_errors
from generator.load import load_file
from generator.model import Catalog, build_catalog
from generator.validate import check_catalog, check_document

ENTRIES_DIR = "entries"


@dataclass(frozen=True)
class Loaded:
    """The catalog built from the valid records, and every issue found on the way."""

    catalog: Catalog
    issues: tuple[Issue, ...]

    @property
    def ok(self) -> bool:
        """Return True when no issue is an error."""
        return not has_errors(self.issues)


def discover(paths: Iterable[Path]) -> list[Path]:
    """Return the record files named by ``paths`` (directories are searched), sorted."""
    found: set[Path] = set()
    for path in paths:
        if path.is_dir():
            found.update(p for p in path.rglob("*") if p.suffix in (".yaml", ".yml") and p.is_file())
        else:
            found.add(path)
    return sorted(found)


def display_path(path: Path, root: Path) -> str:
    """Return ``path`` relative to ``root`` when it is inside it, with forward slashes."""
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return os.fspath(path)


def load_catalog(paths: Iterable[Path], root: Path | None = None) -> Loaded:
    """Return the catalog of the records at ``paths`` with all their issues, sorted."""
    base = root or Path.cwd()
    issues: list[Issue] = []
    valid = []
    for path in discover(paths):
        doc = load_file(path, display_path(path, base))
        doc_issues = check_document(doc)
        issues.extend(doc_issues)
        if not any(i.code.startswith(("yaml.", "schema.", "file.")) for i in doc_issues):
            valid.append(doc)
    catalog = build_catalog(valid)
    issues.extend(check_catalog(catalog))
    return Loaded(catalog, tuple(sorted(set(issues))))
