"""Files of the site that are not pages: the API documents and redirects for renamed ids."""

from __future__ import annotations

import hashlib
import html
import json
from collections.abc import Mapping
from typing import Any

from generator.records.model import Catalog
from generator.signatures.library import dump, read_lock, signature_library
from generator.site.vendor import vendor_files


def plain_mapping(value: Any) -> Any:
    """Return a read-only mapping of the model as a dict, for the JSON encoder."""
    if isinstance(value, Mapping):
        return dict(value)
    raise TypeError(f"{type(value).__name__} is not JSON data")


def entries_document(catalog: Catalog) -> dict[str, Any]:
    """Return every record as published at /api/v1/entries.json."""
    return {
        "schema": "entry.schema.json",
        "library_version": read_lock()["version"],
        "renames": dict(catalog.renames),
        "entries": [entry.data for entry in catalog.entries],
    }


def redirect_page(target: str) -> str:
    """Return a static HTML page that sends the reader to ``target`` (a relative URL)."""
    url = html.escape(target, quote=True)
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="refresh" content="0; url={url}"><link rel="canonical" href="{url}">'
        f'<title>Moved</title></head><body><p>This record moved to <a href="{url}">{url}</a>.</p></body></html>\n'
    )


# The frame in which a copy of the site opened from disk runs its search worker (offline.js).
OFFLINE_FRAME = (
    '<!doctype html>\n<html lang="en"><head>'
    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src 'self'\">"
    '<meta charset="utf-8"><title>Search worker</title><script src="offline-frame.js"></script>'
    "</head><body></body></html>\n"
)


def site_files(catalog: Catalog, site_url: str = "") -> dict[str, bytes]:
    """Return the non-page files of the site by path: API documents, checksum, redirects, vendored scripts."""
    library = dump(signature_library(catalog, read_lock()["version"], site_url))
    files = {
        "api/v1/signatures.json": library,
        "api/v1/signatures.json.sha256": f"{hashlib.sha256(library).hexdigest()}  signatures.json\n".encode(),
        # The same data as a script, for a copy of the site opened from disk (no fetch there).
        "api/v1/signatures.js": b"self.FAILPEDIA_LIBRARY = " + library.rstrip() + b";\n",
        # Compact: the C encoder only runs without indent, and this document grows with the catalog.
        "api/v1/entries.json": (
            json.dumps(entries_document(catalog), sort_keys=True, ensure_ascii=False, default=plain_mapping) + "\n"
        ).encode(),
    }
    files.update(vendor_files())
    files["assets/javascripts/offline-frame.html"] = OFFLINE_FRAME.encode()
    for old, new in catalog.renames.items():
        files[f"entries/{old}/index.html"] = redirect_page(f"../{new}/").encode()
    return files
