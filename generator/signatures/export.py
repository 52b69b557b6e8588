"""Exporters: the signature library in the formats other log tools read.

Each exporter returns a Bundle: file names with their bytes, and the signatures it could
not express exactly (reported by id, never silently dropped). EXPORTERS is the registry.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field

import yaml

from generator.patterns.translate import Untranslatable, to_ere, to_rust
from generator.records.model import Catalog, Entry, Signature
from generator.signatures.library import dump, read_lock, record_url, signature_library

SIGMA_NAMESPACE = uuid.UUID("6f0c9f1e-5d2a-4c1b-9a7e-3b8d2f4e6a10")
SIGMA_STATUS = {"draft": "experimental", "reviewed": "test", "verified": "test", "deprecated": "deprecated"}
SIGMA_LEVEL = {"fatal": "high", "error": "medium", "warning": "low"}


@dataclass(frozen=True)
class ExportOptions:
    """Settings shared by the exporters."""

    site_url: str = ""
    loki_selector: str = '{job=~".+"}'
    loki_range: str = "5m"


@dataclass
class Bundle:
    """Exported files by name, which one goes to stdout, and what could not be exported."""

    files: dict[str, bytes]
    stdout: str
    problems: list[str] = field(default_factory=list)


def export_json(catalog: Catalog, options: ExportOptions) -> Bundle:
    """Return the signature library as JSON."""
    library = signature_library(catalog, read_lock()["version"], options.site_url)
    return Bundle({"signatures.json": dump(library)}, "signatures.json")


def yaml_text(document: object) -> str:
    """Return block-style YAML with keys in the given order."""
    return yaml.safe_dump(document, sort_keys=False, allow_unicode=True, width=1_000_000)


def sigma_rule(entry: Entry, options: ExportOptions) -> dict[str, object]:
    """Return the Sigma rule of one record: a selection per signature."""
    selections: dict[str, object] = {}
    for sig in entry.signatures:
        key = "message|re|i" if sig.ignore_case else "message|re"
        selections[f"sel_{sig.index}"] = {key: sig.pattern}
    references = [record_url(entry.id, options.site_url)] + [ref["url"] for ref in entry.get("references", ())]
    return {
        "title": entry.title,
        "id": str(uuid.uuid5(SIGMA_NAMESPACE, entry.id)),
        "status": SIGMA_STATUS[entry.status],
        "description": entry.summary,
        "references": references,
        "author": "Failpedia",
        "logsource": {"product": "ml-training", "service": "training-log"},
        "detection": {**selections, "condition": "1 of sel_*"},
        "fields": ["message"],
        "falsepositives": ["Lines quoted in documentation or tests"],
        "level": SIGMA_LEVEL[entry.severity],
    }


def export_sigma(catalog: Catalog, options: ExportOptions) -> Bundle:
    """Return one Sigma rule file per record (and all of them as a multi-document stream)."""
    files = {f"{entry.id}.yml": yaml_text(sigma_rule(entry, options)).encode() for entry in catalog.entries}
    stream = "---\n".join(text.decode() for _, text in sorted(files.items())).encode()
    return Bundle({**files, "all.yml": stream}, "all.yml")


def go_string(text: str) -> str:
    """Return ``text`` as a double-quoted LogQL (Go) string."""
    return json.dumps(text)


def record_regex(entry: Entry) -> str:
    """Return one RE2 alternation of a record's signatures, keeping per-signature case flags."""
    parts = [f"(?i:{sig.pattern})" if sig.ignore_case else f"(?:{sig.pattern})" for sig in entry.signatures]
    return "|".join(parts)


def alert_name(entry: Entry) -> str:
    """Return a Prometheus-style alert name for a record."""
    return "Failpedia_" + re.sub(r"[^A-Za-z0-9]+", "_", entry.id)


def loki_rule(entry: Entry, options: ExportOptions) -> dict[str, object]:
    """Return the Loki ruler alert of one record."""
    expr = f"count_over_time({options.loki_selector} |~ {go_string(record_regex(entry))} [{options.loki_range}]) > 0"
    return {
        "alert": alert_name(entry),
        "expr": expr,
        "labels": {"failpedia_id": entry.id, "category": entry.category, "severity": entry.severity},
        "annotations": {
            "summary": entry.title,
            "description": entry.summary,
            "runbook_url": record_url(entry.id, options.site_url),
        },
    }


def export_loki(catalog: Catalog, options: ExportOptions) -> Bundle:
    """Return a Loki ruler rules file: one alert per record."""
    rules = [loki_rule(entry, options) for entry in catalog.entries]
    document = {"groups": [{"name": "failpedia", "rules": rules}]}
    return Bundle({"failpedia-loki-rules.yaml": yaml_text(document).encode()}, "failpedia-loki-rules.yaml")


def translated(signatures: tuple[Signature, ...], convert: Callable[[str, bool], str]) -> tuple[list[str], list[str]]:
    """Return (lines "pattern<TAB>sig<TAB>record", problems) for a pattern converter."""
    lines, problems = [], []
    for sig in signatures:
        try:
            lines.append(f"{convert(sig.pattern, sig.ignore_case)}\t{sig.id}\t{sig.entry_id}")
        except (Untranslatable, ValueError, IndexError) as exc:
            problems.append(f"{sig.id}: {exc}")
    return lines, problems


def export_grep(catalog: Catalog, options: ExportOptions) -> Bundle:
    """Return pattern files for GNU grep -E and ripgrep, with maps from line to signature."""
    signatures = tuple(sorted(catalog.signatures, key=lambda s: s.id))
    files: dict[str, bytes] = {}
    problems: list[str] = []
    for name, convert in (("failpedia.ere", to_ere), ("failpedia.rg", to_rust)):
        lines, found = translated(signatures, convert)
        problems += [f"{name}: {problem}" for problem in found]
        files[name] = "".join(line.split("\t")[0] + "\n" for line in lines).encode()
        mapping = "".join(f"{n}\t{line.split(chr(9), 1)[1]}\n" for n, line in enumerate(lines, 1))
        files[f"{name}.map.tsv"] = ("line\tsignature\trecord\n" + mapping).encode()
    return Bundle(files, "failpedia.ere", problems)


EXPORTERS: dict[str, Callable[[Catalog, ExportOptions], Bundle]] = {
    "json": export_json,
    "sigma": export_sigma,
    "loki": export_loki,
    "grep": export_grep,
}
