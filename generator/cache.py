"""A cache of validated records, the compiled Hyperscan database and generated files.

`failpedia diagnose` needs the records and every pattern compiled. Validating the YAML
and compiling Hyperscan take most of a second, so the result is kept in the user's cache
directory under a key made from the content of every record and schema file and of the
generator's own files. Each record that passed every check is also kept by the digest of
its bytes, so that after an edit only the changed records are parsed and checked again. A
build also keeps the files it generated (pages and API files) under a key that adds the
hub files and the plugin's settings, so a rebuild of unchanged records renders nothing.
Only the latest file of each kind is kept. A cache that cannot be read is simply not used.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from generator import __version__
from generator.output import write_atomically
from generator.paths import SCHEMA_DIR
from generator.records.model import Catalog, build_catalog
from generator.records.source import SourceDoc, discover
from generator.signatures.facts import diagnosis_signatures
from generator.signatures.match import Matcher, hyperscan

if TYPE_CHECKING:
    from generator.records.pipeline import Loaded


# A damaged or foreign cache file is only a cache miss.
HYPERSCAN_ERRORS: tuple[type[Exception], ...] = (hyperscan.error,) if hyperscan is not None else ()
CACHE_ERRORS: tuple[type[Exception], ...] = (
    OSError,
    ValueError,
    TypeError,
    LookupError,
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


@functools.cache
def code_digest() -> str:
    """Return a digest of the generator's own files: an edited check or template is a new key."""
    digest = hashlib.sha256(f"{__version__}|{getattr(hyperscan, '__version__', 'none')}".encode())
    package = Path(__file__).resolve().parent
    for path in sorted(package.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            digest.update(path.relative_to(package).as_posix().encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def cache_key(files: list[Path]) -> str:
    """Return a key that changes when any record, schema or the code changes."""
    digest = hashlib.sha256(code_digest().encode())
    for path in [*files, *sorted(SCHEMA_DIR.glob("*.json"))]:
        digest.update(str(path).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:32]


def outputs_key(records_key: str, inputs: list[Path], settings: str) -> str:
    """Return the key of generated files: the records, other input files and settings."""
    digest = hashlib.sha256(f"{records_key}|{settings}".encode())
    for path in inputs:
        digest.update(str(path).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:32]


def read_cache_json(name: str) -> Any:
    """Return the JSON data of one cache file, or None when it is missing or damaged."""
    try:
        return json.loads((cache_dir() / name).read_text(encoding="utf-8"))
    except CACHE_ERRORS:
        return None


def read_outputs(key: str) -> dict[str, str] | None:
    """Return the files the last build generated, by path, when it had the same ``key``."""
    files = read_cache_json(f"outputs-{key}.json")
    if not isinstance(files, dict) or not all(isinstance(text, str) for text in files.values()):
        return None
    return files


def write_outputs(key: str, files: dict[str, str]) -> None:
    """Keep the generated files of this build only (older ones are removed)."""
    replace_cache_file("outputs", key, files)


def replace_cache_file(kind: str, key: str, data: Any) -> None:
    """Store ``data`` as JSON in ``<kind>-<key>.json``, removing that kind's other files."""
    replace_cache_bytes(f"{kind}-{key}.json", json.dumps(data, ensure_ascii=False).encode())


def replace_cache_bytes(name: str, payload: bytes) -> None:
    """Store ``payload`` as ``name`` (kind-key.suffix), removing the kind's files for other keys:
    the cache keeps the latest records, patterns and pages, and does not grow with each edit."""
    kind, suffix = name.split("-", 1)[0], Path(name).suffix
    for old in cache_dir().glob(f"{kind}-*{suffix}"):
        if old.name != name:
            with contextlib.suppress(OSError):
                old.unlink()
    write_cache_file(name, payload)


# Catalogs already read in this process, by key: `failpedia build` validates and then runs
# MkDocs in the same process, whose plugin asks for the same records.
READ: dict[str, Catalog] = {}


def read_records(key: str) -> Catalog | None:
    """Return the cached catalog of validated records for ``key``, or None."""
    if key in READ:
        return READ[key]
    docs = read_cache_json(f"records-{key}.json")
    if not isinstance(docs, list):
        return None
    try:
        catalog = build_catalog(SourceDoc(doc["path"], doc["data"]) for doc in docs)
    except CACHE_ERRORS:
        return None
    remember(key, catalog)
    return catalog


def remember(key: str, catalog: Catalog) -> None:
    """Keep the latest catalog for this process (a serve session rebuilds many times)."""
    READ.clear()
    READ[key] = catalog


def read_mapping(name: str) -> dict[str, str]:
    """Return a cached string-to-string mapping (empty when missing or damaged)."""
    data = read_cache_json(name)
    if not isinstance(data, dict):
        return {}
    return {key: value for key, value in data.items() if isinstance(key, str) and isinstance(value, str)}


def write_mapping(name: str, data: dict[str, str]) -> None:
    """Store a string-to-string mapping (best effort)."""
    replace_cache_bytes(name, json.dumps(data, sort_keys=True).encode())


def database_name(key: str) -> str:
    """Return the cache file name of the compiled diagnosis patterns for ``key``."""
    return f"patterns-{key}.hs"


def read_database(key: str) -> Any:
    """Return the cached Hyperscan database of the diagnosis patterns for ``key``, or None."""
    if hyperscan is None:
        return None
    try:
        return hyperscan.loadb((cache_dir() / database_name(key)).read_bytes(), hyperscan.HS_MODE_BLOCK)
    except CACHE_ERRORS:
        return None


def write_cache_file(name: str, payload: bytes) -> None:
    """Store one cache file (best effort: a read-only home only costs the cache)."""
    with contextlib.suppress(OSError):
        write_atomically({cache_dir() / name: payload})


def validated_catalog(entries: Path, root: Path) -> tuple[str, Loaded | None, Catalog]:
    """Return (cache key, Loaded when validated now, catalog), from the cache when current."""
    files = discover([entries])
    key = cache_key(files)
    catalog = read_records(key)
    if catalog is not None:
        return key, None, catalog
    # Validation (and jsonschema) is imported only on a cache miss: start-up time matters here.
    from generator.records.pipeline import load_catalog

    docs: list[SourceDoc] = []
    try:
        loaded = load_catalog(files, root, keep=docs, checked=read_checked())
    except CACHE_ERRORS:  # recalled data that a damaged cache made wrong: check everything
        docs.clear()
        loaded = load_catalog(files, root, keep=docs)
    if loaded.ok:
        store_records(key, docs, loaded.catalog)
    return key, loaded, loaded.catalog


def store_records(key: str, docs: list[SourceDoc], catalog: Catalog) -> None:
    """Keep the validated documents of a catalog under ``key`` (call only when it has no error).

    Each record's data is also kept by the digest of its bytes, when known, so that the next
    validation after an edit checks only the records that changed.
    """
    replace_cache_file("records", key, [{"path": doc.path, "data": doc.data} for doc in docs])
    remember(key, catalog)
    if all(doc.digest for doc in docs):
        replace_cache_file("checked", checks_key(), {doc.digest: doc.data for doc in docs})


def checks_key() -> str:
    """Return the key of per-record results: the code and the schemas that checked them."""
    return cache_key([])


def read_checked() -> dict[str, Any]:
    """Return the data of records that passed every check, by the digest of their bytes."""
    data = read_cache_json(f"checked-{checks_key()}.json")
    return data if isinstance(data, dict) else {}


def load_for_diagnosis(entries: Path, root: Path) -> tuple[Loaded | None, Catalog, Matcher]:
    """Return (Loaded when validated now, catalog, matcher), from the cache when it is current.

    The compiled database is cached beside the records, and only for valid records; a
    build fills the records part and leaves the compilation to the first diagnosis.
    """
    key, loaded, catalog = validated_catalog(entries, root)
    return loaded, catalog, cached_matcher(key, catalog, loaded is None or loaded.ok)


def cached_matcher(key: str, catalog: Catalog, keep: bool) -> Matcher:
    """Return the matcher of a catalog with its compiled database from the cache (kept there when ``keep``)."""
    cached = read_database(key)
    matcher = Matcher(diagnosis_signatures(catalog), cached)
    if cached is None and matcher.database is not None and keep:
        replace_cache_bytes(database_name(key), hyperscan.dumpb(matcher.database))
    return matcher


def load_validated(entries: Path, root: Path) -> tuple[str, Loaded]:
    """Return (cache key, validated catalog): from the cache when the records are unchanged
    since the last clean validation (a rebuild, or the build MkDocs runs after
    `failpedia build` validated, does not validate again)."""
    from generator.records.pipeline import Loaded

    key, loaded, catalog = validated_catalog(entries, root)
    return key, loaded if loaded is not None else Loaded(catalog, ())
