"""Comparison hubs: side-by-side tables defined as data in hubs/<id>.yaml.

A hub is validated by schema/hub.schema.json and against the catalog (the records it
names exist, its cells use its own column keys). Cells a row leaves out are filled from
the row's record when the column says how (``from_record``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import Any

from generator.records.errors import Issue, Location, has_errors
from generator.records.load import load_file
from generator.records.locate import find_mark
from generator.records.model import Catalog, Entry, freeze
from generator.records.source import SourceDoc, discover, display_path
from generator.records.validate import check_document

HUB_SCHEMA = "hub.schema.json"
HUBS_DIR = "hubs"


@dataclass(frozen=True)
class Hub:
    """One comparison page, read-only."""

    id: str
    title: str
    summary: str
    columns: tuple[Mapping[str, Any], ...]
    sections: tuple[Mapping[str, Any], ...]
    references: tuple[Mapping[str, Any], ...]
    path: str

    def nav_title(self) -> str:
        """Return the title for the navigation: the part before its first colon."""
        return self.title.split(":", 1)[0].strip()

    def records(self) -> list[str]:
        """Return the record ids the hub names, in order."""
        return [row["record"] for section in self.sections for row in section["rows"] if "record" in row]


def build_hub(doc: SourceDoc) -> Hub:
    """Return the Hub of a schema-valid document."""
    data = freeze(doc.data)
    return Hub(
        data["id"], data["title"], data["summary"], data["columns"], data["sections"], data["references"], doc.path
    )


def hub_issues(doc: SourceDoc, catalog: Catalog) -> list[Issue]:
    """Return reference problems of one hub: unknown records, unknown cell keys, wrong id."""
    data = doc.data
    found = []

    def add(pointer: str, code: str, message: str) -> None:
        found.append(Issue(Location(doc.path, *find_mark(pointer, doc.value_locs)), pointer, code, message))

    if PurePath(doc.path).stem != data["id"]:
        add("/id", "hub.id-mismatch", f"id {data['id']!r} differs from the file name")
    keys = {column["key"] for column in data["columns"]}
    for s_index, section in enumerate(data["sections"]):
        for r_index, row in enumerate(section["rows"]):
            base = f"/sections/{s_index}/rows/{r_index}"
            if "record" in row and row["record"] not in catalog.by_id:
                add(f"{base}/record", "hub.unknown-record", f"no record has id {row['record']!r}")
            for key in sorted(set(row.get("cells", {})) - keys):
                add(f"{base}/cells/{key}", "hub.unknown-column", f"no column has key {key!r}")
            if not row.get("record") and not row.get("cells"):
                add(base, "hub.empty-row", "a row needs a record or cells")
    return found


def load_hubs(paths: Iterable[Path], catalog: Catalog, root: Path) -> tuple[list[Hub], list[Issue]]:
    """Return the valid hubs at ``paths`` and every issue found in them."""
    hubs, issues = [], []
    for path in discover(paths):
        doc = load_file(path, display_path(path, root))
        doc_issues = check_document(doc, HUB_SCHEMA)
        if not has_errors(doc_issues):
            doc_issues += hub_issues(doc, catalog)
        issues += doc_issues
        if not has_errors(doc_issues):
            hubs.append(build_hub(doc))
    return sorted(hubs, key=lambda hub: hub.id), sorted(issues)


def derived_cell(kind: str, entry: Entry) -> str:
    """Return a cell taken from a record, as plain text with `code` marks."""
    data = entry.data
    if kind == "summary":
        return entry.summary
    if kind == "causes":
        return "; ".join(cause["title"] for cause in data["causes"][:2])
    if kind == "log_line":
        specific = [sig for sig in entry.signatures if sig.strength == "specific"] or list(entry.signatures)
        return specific[0].match[0]
    if kind == "env":
        return ", ".join(f"`{var['name']}`" for var in data.get("env", ()))
    if kind == "nccl_code":
        return str(data["nccl"]["code"]) if data.get("nccl") else ""
    if kind == "nccl_name":
        return data["nccl"]["name"] if data.get("nccl") else ""
    if kind == "versions":
        return "; ".join(f"{v['component']} {v['range']}: {v['note']}" for v in data.get("versions", ()))
    return entry.severity if kind == "severity" else ""
