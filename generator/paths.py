"""Where the project's own files are, relative to this package."""

from __future__ import annotations

from pathlib import Path

PROJECT_DIR = Path(__file__).resolve().parent.parent
# In a checkout the schemas are the project's; an installed package carries its own copy.
PACKAGED_SCHEMA_DIR = Path(__file__).resolve().parent / "catalog" / "schema"
CHECKOUT_SCHEMA_DIR = PROJECT_DIR / "schema"
SCHEMA_DIR = CHECKOUT_SCHEMA_DIR if (CHECKOUT_SCHEMA_DIR / "entry.schema.json").is_file() else PACKAGED_SCHEMA_DIR
