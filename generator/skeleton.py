"""Write a schema-valid skeleton record for ``failpedia new``."""

from __future__ import annotations

import re
from pathlib import Path

from generator.templating import render_template

ID_RE = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*\Z")


def skeleton_path(entries: Path, entry_id: str, category: str) -> Path | None:
    """Return where the record goes, or None when the id is not a valid slug."""
    if not ID_RE.match(entry_id) or len(entry_id) > 64:
        return None
    return entries / category / f"{entry_id}.yaml"


def skeleton_text(entry_id: str, category: str) -> str:
    """Return the YAML text of a new record, with the schema modeline for editors."""
    return render_template("skeleton.yaml.j2", id=entry_id, category=category)
