"""The catalog that ships inside the package: validated records and the schemas, for use outside a checkout.

A wheel build writes them into ``generator/catalog/`` (build_backend.py); an installed
`failpedia` reads them when no checkout, ``--catalog DIR`` or ``$FAILPEDIA_CATALOG`` names
local records.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from generator.records.model import Catalog, build_catalog
from generator.records.source import SourceDoc

BUNDLE_DIR = Path(__file__).resolve().parent / "catalog"
RECORDS_FILE = "records.json"


class BundleError(Exception):
    """The records cannot be packaged: they do not validate."""


@dataclass(frozen=True)
class Packaged:
    """The packaged catalog and what identifies it."""

    catalog: Catalog
    key: str
    library_version: str


def bundle_files(entries: Path, root: Path) -> dict[Path, bytes]:
    """Return the files to write into the package: the validated records and every schema (raises BundleError)."""
    from generator.records.pipeline import load_catalog

    docs: list[SourceDoc] = []
    loaded = load_catalog([entries], root, keep=docs, project=True)
    errors = [str(issue) for issue in loaded.issues if issue.severity == "error"]
    if errors:
        raise BundleError("records do not validate:\n" + "\n".join(errors[:20]))
    records = [{"path": doc.path, "data": doc.data} for doc in sorted(docs, key=lambda d: d.path)]
    files = {BUNDLE_DIR / RECORDS_FILE: json.dumps(records, sort_keys=True, ensure_ascii=False).encode("utf-8")}
    for schema in sorted((root / "schema").glob("*.json")):
        files[BUNDLE_DIR / "schema" / schema.name] = schema.read_bytes()
    return files


def read_packaged() -> Packaged | None:
    """Return the catalog shipped in the package, or None when this is a checkout without one."""
    path = BUNDLE_DIR / RECORDS_FILE
    if not path.is_file():
        return None
    payload = path.read_bytes()
    docs = json.loads(payload)
    lock_path = BUNDLE_DIR / "schema" / "library.lock.json"
    version = (
        json.loads(lock_path.read_text(encoding="utf-8")).get("version", "0.0.0") if lock_path.is_file() else "0.0.0"
    )
    catalog = build_catalog(SourceDoc(doc["path"], doc["data"]) for doc in docs)
    return Packaged(catalog, hashlib.sha256(payload).hexdigest()[:32], version)
