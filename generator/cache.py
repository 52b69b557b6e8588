"""A cache of the validated records and the compiled Hyperscan database, for fast start-up.

`failpedia diagnose` needs the records and every pattern compiled. Validating the YAML
and compiling Hyperscan take most of a second, so the result is kept in the user's cache
directory under a key made from the content of every record and schema file and the
versions of the code. A cache that cannot be read or written is simply not used.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from generator import __version__
from generator.load import SourceDoc, discover
from generator.match import Matcher, hyperscan
from generator.model import Catalog, build_catalog
from generator.output import write_atomically
from generator.paths import SCHEMA_DIR

if TYPE_CHECKING:
    from generator.pipeline import Loaded


# A damaged or foreign cache file is only a cache miss.
HYPERSCAN_ERRORS: tuple[type[Exception], ...] = (hyperscan.error,) if hyperscan is not None else ()
CACHE_ERRORS: tuple[type[Exception], ...] = (
    OSError,
    ValueError,
    TypeError,
    RuntimeError,
    AttributeError,
    *HYPERSCAN_ERRORS,
)


def cache_dir() -> Path:
    """Return the cache directory ($FAILPEDIA_CACHE_DIR, else the XDG cache home)."""
    explicit = os.environ.get("FAILPEDIA_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "failpedia"


def cache_key(files: list[Path]) -> str:
    """Return a key that changes when any record, schema or code version changes."""
    digest = hashlib.sha256(f"{__version__}|{getattr(hyperscan, '__version__', 'none')}".encode())
    for path in [*files, *sorted(SCHEMA_DIR.glob("*.json"))]:
        digest.update(str(path).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:32]


def read_cached(key: str) -> tuple[Catalog, Any] | None:
    """Return the cached catalog and database for ``key``, or None."""
    base = cache_dir() / key
    try:
        docs = json.loads(base.with_suffix(".json").read_text(encoding="utf-8"))
        database = load_database(base.with_suffix(".hs").read_bytes())
    except CACHE_ERRORS:
        return None
    catalog = build_catalog(SourceDoc(doc["path"], doc["data"]) for doc in docs)
    return catalog, database


def load_database(raw: bytes) -> Any:
    """Return a Hyperscan database read back from bytes, with its scratch space."""
    if hyperscan is None:
        return None
    database = hyperscan.loadb(raw, hyperscan.HS_MODE_BLOCK)
    database.scratch = hyperscan.Scratch(database)
    return database


def write_cached(key: str, docs: list[SourceDoc], matcher: Matcher) -> None:
    """Store the catalog's documents and the compiled database (best effort)."""
    if matcher.database is None:
        return
    base = cache_dir() / key
    payload = json.dumps([{"path": doc.path, "data": doc.data} for doc in docs]).encode()
    files = {base.with_suffix(".json"): payload, base.with_suffix(".hs"): hyperscan.dumpb(matcher.database)}
    with contextlib.suppress(OSError):  # a read-only home only costs the cache
        write_atomically(files)


def load_for_diagnosis(entries: Path, root: Path) -> tuple[Loaded | None, Catalog, Matcher]:
    """Return (Loaded when validated now, catalog, matcher), from the cache when it is current."""
    files = discover([entries])
    key = cache_key(files)
    cached = read_cached(key)
    if cached is not None:
        catalog, database = cached
        return None, catalog, Matcher(catalog.signatures, database)
    # Validation (and jsonschema) is imported only on a cache miss: start-up time matters here.
    from generator.pipeline import load_catalog

    docs: list[SourceDoc] = []
    loaded = load_catalog(files, root, keep=docs)
    matcher = Matcher(loaded.catalog.signatures)
    if loaded.ok:
        write_cached(key, docs, matcher)
    return loaded, loaded.catalog, matcher


def load_validated(entries: Path, root: Path) -> Loaded:
    """Return the validated catalog: from the cache when the records are unchanged since the
    last clean validation (so a build after `failpedia validate` does not validate twice)."""
    from generator.pipeline import Loaded

    loaded, catalog, _ = load_for_diagnosis(entries, root)
    return loaded if loaded is not None else Loaded(catalog, ())
