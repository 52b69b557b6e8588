"""Load, validate and model a set of record files in one call."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from generator.errors import Issue, has_errors
from generator.load import SourceDoc, discover, display_path, load_file
from generator.model import Catalog, build_catalog
from generator.validate import check_catalog, check_document

ENTRIES_DIR = "entries"
__all__ = ["ENTRIES_DIR", "Loaded", "discover", "display_path", "load_catalog"]


@dataclass(frozen=True)
class Loaded:
    """The catalog built from the valid records, and every issue found on the way."""

    catalog: Catalog
    issues: tuple[Issue, ...]

    @property
    def ok(self) -> bool:
        """Return True when no issue is an error."""
        return not has_errors(self.issues)


def load_catalog(paths: Iterable[Path], root: Path | None = None, keep: list[SourceDoc] | None = None) -> Loaded:
    """Return the catalog of the records at ``paths`` with all their issues, sorted.

    The documents that went into the catalog are appended to ``keep`` when it is given.
    """
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
    if keep is not None:
        keep.extend(valid)
    issues.extend(check_catalog(catalog))
    return Loaded(catalog, tuple(sorted(set(issues))))
