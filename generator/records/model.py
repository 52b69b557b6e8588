"""The immutable model: entries, their signatures, and the catalog's derived views."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from types import MappingProxyType
from typing import Any

from generator.records.errors import Location
from generator.records.locate import find_mark
from generator.records.source import SourceDoc

CATEGORY_ORDER = (
    "communication",
    "launcher",
    "memory",
    "hardware",
    "numerical",
    "data",
    "compilation",
    "checkpoint",
    "sharding",
    "performance",
)


@dataclass(frozen=True)
class Example:
    """One match example line and where it came from ("" when a plain string gave no source)."""

    line: str
    origin: str = ""
    url: str = ""
    repro: str = ""
    versions: str = ""
    at: str = ""


@dataclass(frozen=True)
class PrintedBy:
    """Where a signature's message is printed: a package, files in its releases, the versions claimed."""

    package: str
    file: str
    text: tuple[str, ...]
    present: tuple[str, ...]
    absent: tuple[str, ...]

    def as_dict(self) -> dict[str, Any]:
        """Return the claim as plain JSON-ready data."""
        fields = {"package": self.package, "file": self.file, "present": list(self.present)}
        return {**fields, "text": list(self.text), "absent": list(self.absent)}


@dataclass(frozen=True)
class Signature:
    """One log signature of an entry."""

    id: str
    entry_id: str
    pattern: str
    ignore_case: bool
    description: str
    strength: str
    match: tuple[str, ...]
    no_match: tuple[str, ...]
    index: int
    examples: tuple[Example, ...] = ()
    printed_by: PrintedBy | None = None


@dataclass(frozen=True)
class Entry:
    """One failure record, read-only."""

    id: str
    title: str
    category: str
    severity: str
    status: str
    summary: str
    tags: tuple[str, ...]
    related: tuple[str, ...]
    downstream_of: tuple[str, ...]
    renamed_from: tuple[str, ...]
    signatures: tuple[Signature, ...]
    raw: Mapping[str, Any] = field(repr=False)  # the record as loaded, never changed; ``data`` is a read-only copy
    path: str
    locs: Mapping[str, tuple[int, int]]

    @cached_property
    def data(self) -> Mapping[str, Any]:
        """Return the whole record, read-only (copied on first use: a diagnosis reads only the records it found)."""
        frozen: Mapping[str, Any] = freeze(self.raw)
        return frozen

    def location(self, pointer: str) -> Location:
        """Return the source location of ``pointer`` in this entry's file."""
        return Location(self.path, *find_mark(pointer, self.locs))

    def get(self, key: str, default: Any = None) -> Any:
        """Return a top-level field of the record."""
        return self.data.get(key, default)


@dataclass(frozen=True)
class Catalog:
    """Every entry, sorted by id, with lookup views."""

    entries: tuple[Entry, ...]
    by_id: Mapping[str, Entry]
    by_tag: Mapping[str, tuple[Entry, ...]]
    by_category: Mapping[str, tuple[Entry, ...]]
    renames: Mapping[str, str]

    @property
    def signatures(self) -> tuple[Signature, ...]:
        """Return every signature, in entry order."""
        return tuple(sig for entry in self.entries for sig in entry.signatures)


def freeze(value: Any) -> Any:
    """Return a read-only deep copy of plain YAML data (the loader makes only dicts and lists)."""
    kind = type(value)
    if kind is dict:
        return MappingProxyType({key: freeze(item) for key, item in value.items()})
    if kind is list:
        return tuple([freeze(item) for item in value])
    return value


def build_signature(entry_id: str, index: int, raw: Mapping[str, Any]) -> Signature:
    """Return the Signature for one raw signature mapping."""
    examples = raw.get("examples", {})
    lines = tuple(build_example(item) for item in examples.get("match", ()))
    return Signature(
        id=raw["id"],
        entry_id=entry_id,
        pattern=raw["pattern"],
        ignore_case="i" in raw.get("flags", ()),
        description=raw["description"],
        strength=raw["strength"],
        match=tuple(example.line for example in lines),
        no_match=tuple(examples.get("no_match", ())),
        index=index,
        examples=lines,
        printed_by=build_printed_by(raw["printed_by"]) if "printed_by" in raw else None,
    )


def build_printed_by(raw: Mapping[str, Any]) -> PrintedBy:
    """Return the PrintedBy claim of one signature."""
    lists = {name: tuple(str(item) for item in raw.get(name, ())) for name in ("text", "present", "absent")}
    return PrintedBy(package=raw["package"], file=raw["file"], **lists)


def build_example(raw: str | Mapping[str, Any]) -> Example:
    """Return the Example for a plain line or a line with its provenance."""
    if isinstance(raw, str):
        return Example(raw)
    fields = ("url", "repro", "versions", "at")
    return Example(raw["line"], raw["from"], **{name: str(raw.get(name, "")) for name in fields})


def build_entry(doc: SourceDoc) -> Entry:
    """Return the Entry for a schema-valid document."""
    data = doc.data
    entry_id = data["id"]
    return Entry(
        id=entry_id,
        title=data["title"],
        category=data["category"],
        severity=data["severity"],
        status=data["status"],
        summary=data["summary"],
        tags=tuple(data.get("tags", ())),
        related=tuple(data.get("related", ())),
        downstream_of=tuple(data.get("downstream_of", ())),
        renamed_from=tuple(data.get("renamed_from", ())),
        signatures=tuple(build_signature(entry_id, i, raw) for i, raw in enumerate(data["signatures"])),
        raw=data,
        path=doc.path,
        locs=doc.value_locs,
    )


def group(entries: Iterable[Entry], keys_of: Any) -> Mapping[str, tuple[Entry, ...]]:
    """Return entries grouped by each key ``keys_of(entry)`` yields, keys sorted."""
    groups: dict[str, list[Entry]] = {}
    for entry in entries:
        for key in keys_of(entry):
            groups.setdefault(key, []).append(entry)
    return MappingProxyType({key: tuple(groups[key]) for key in sorted(groups)})


def build_catalog(docs: Iterable[SourceDoc]) -> Catalog:
    """Return the Catalog of schema-valid documents (duplicates stay for check_catalog)."""
    entries = tuple(sorted((build_entry(doc) for doc in docs), key=lambda e: (e.id, e.path)))
    by_id: dict[str, Entry] = {}
    for entry in entries:
        by_id.setdefault(entry.id, entry)
    renames = {old: entry.id for entry in entries for old in entry.renamed_from}
    return Catalog(
        entries=entries,
        by_id=MappingProxyType(by_id),
        by_tag=group(entries, lambda e: e.tags),
        by_category=group(entries, lambda e: (e.category,)),
        renames=MappingProxyType(dict(sorted(renames.items()))),
    )
