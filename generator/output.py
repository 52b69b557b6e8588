"""Write files atomically: everything goes to temporary files first, then is renamed in."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_atomically(files: dict[Path, bytes]) -> None:
    """Write every file via a temporary sibling and a rename; nothing is half-written."""
    staged: list[tuple[str, Path]] = []
    try:
        for path, data in sorted(files.items()):
            path.parent.mkdir(parents=True, exist_ok=True)
            handle, temp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
            staged.append((temp, path))
            with os.fdopen(handle, "wb") as out:
                out.write(data)
                out.flush()
                os.fsync(out.fileno())
        for temp, path in staged:
            os.replace(temp, path)
    finally:
        for temp, _ in staged:
            if os.path.exists(temp):
                os.unlink(temp)
