"""The signature library: every signature with its record, as one versioned JSON document.

The library version follows semver for consumers who pin it: a removed signature or a
changed pattern is a major change, a new signature a minor one, any other change a patch.
``schema/library.lock.json`` records the version with a fingerprint of each pattern, so a
change that needs a new version is caught by a test and written by ``failpedia lock``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from generator.patterns.translate import needles, to_js
from generator.records.model import Catalog, Entry, Signature
from generator.records.schema import schema_path
from generator.signatures.facts import FACT_NAMES, FACT_PATTERNS, condition_patterns

LIBRARY_SCHEMA = "signatures.schema.json"
LIBRARY_SCHEMA_VERSION = "1.3.0"
LOCK_FILE = "library.lock.json"
NORMALIZATION = "ANSI escape codes and leading rank, timestamp and host:pid:tid prefixes are removed before matching"


def record_url(entry_id: str, site_url: str) -> str:
    """Return the URL of a record's page (site-relative when no site URL is set)."""
    return f"{site_url.rstrip('/')}/entries/{entry_id}/"


def signature_item(sig: Signature, entry: Entry, site_url: str) -> dict[str, Any]:
    """Return one signature as a library item."""
    return {
        "id": sig.id,
        "record": entry.id,
        "title": entry.title,
        "category": entry.category,
        "severity": entry.severity,
        "strength": sig.strength,
        "pattern": sig.pattern,
        "flags": "i" if sig.ignore_case else "",
        "description": sig.description,
        "url": record_url(entry.id, site_url),
        "js": to_js(sig.pattern),
        "needles": needles(sig.pattern),
        "examples": {"match": list(sig.match), "no_match": list(sig.no_match)},
    }


def record_item(entry: Entry, site_url: str) -> dict[str, Any]:
    """Return what a diagnosis shows and ranks by for one record."""
    data = entry.data
    return {
        "title": entry.title,
        "category": entry.category,
        "severity": entry.severity,
        "url": record_url(entry.id, site_url),
        "downstream_of": list(entry.downstream_of),
        "signatures": [sig.id for sig in entry.signatures],
        "cause": data["causes"][0]["title"],
        "causes": [cause_item(cause) for cause in data["causes"]],
        "confirm": data["confirm"][0],
        "fix": data["fix"]["steps"][0]["text"],
    }


def cause_item(cause: Mapping[str, Any]) -> dict[str, Any]:
    """Return what the page's judge needs of one cause: its title and its conditions."""
    conditions = {key: [dict(item) for item in cause[key]] for key in ("when", "unless") if key in cause}
    return {"title": cause["title"], **conditions}


def fact_items() -> dict[str, dict[str, Any]]:
    """Return the facts a page reads from a log (the version lines), with the name it shows."""
    return {
        name: {"pattern": pattern, "needles": needles(pattern), "label": FACT_NAMES[name]}
        for name, pattern in FACT_PATTERNS.items()
    }


def fingerprint(sig: Signature) -> str:
    """Return what decides which lines a signature matches, hashed."""
    text = json.dumps([sig.pattern, sig.ignore_case])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def fingerprints(catalog: Catalog) -> dict[str, str]:
    """Return the fingerprint of every signature, by id."""
    return {sig.id: fingerprint(sig) for sig in sorted(catalog.signatures, key=lambda s: s.id)}


def signature_library(catalog: Catalog, version: str, site_url: str = "") -> dict[str, Any]:
    """Return the library document (sorted, so the same records give the same bytes)."""
    items = [signature_item(sig, entry, site_url) for entry in catalog.entries for sig in entry.signatures]
    return {
        "schema": LIBRARY_SCHEMA,
        "schema_version": LIBRARY_SCHEMA_VERSION,
        "library_version": version,
        "normalization": NORMALIZATION,
        "renames": dict(catalog.renames),
        "facts": fact_items(),
        "conditions": [{"pattern": p, "needles": needles(p)} for p in condition_patterns(catalog)],
        "records": {entry.id: record_item(entry, site_url) for entry in catalog.entries},
        "signatures": sorted(items, key=lambda item: item["id"]),
    }


def dump(document: Any) -> bytes:
    """Return deterministic JSON bytes."""
    return (json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8")


def content_hash(catalog: Catalog) -> str:
    """Return a hash of the whole library apart from its version."""
    return hashlib.sha256(dump(signature_library(catalog, "0.0.0"))).hexdigest()[:16]


def read_lock() -> dict[str, Any]:
    """Return the committed lock (version, fingerprints, content hash)."""
    path = schema_path(LOCK_FILE)
    if not path.exists():
        return {"version": "0.0.0", "fingerprints": {}, "content": ""}
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def required_bump(lock: dict[str, Any], catalog: Catalog) -> str:
    """Return "major", "minor", "patch" or "" for the change since the lock."""
    old, new = lock["fingerprints"], fingerprints(catalog)
    if any(key not in new or new[key] != value for key, value in old.items()):
        return "major"
    if set(new) - set(old):
        return "minor"
    return "patch" if content_hash(catalog) != lock.get("content") else ""


def bumped(version: str, kind: str) -> str:
    """Return ``version`` raised by one ``kind`` step."""
    major, minor, patch = (int(part) for part in version.split("."))
    if kind == "major":
        return f"{major + 1}.0.0"
    if kind == "minor":
        return f"{major}.{minor + 1}.0"
    return f"{major}.{minor}.{patch + 1}" if kind == "patch" else version


def new_lock(lock: dict[str, Any], catalog: Catalog) -> dict[str, Any]:
    """Return the lock for the current catalog, with the version raised as required."""
    return {
        "version": bumped(lock["version"], required_bump(lock, catalog)),
        "fingerprints": fingerprints(catalog),
        "content": content_hash(catalog),
    }
