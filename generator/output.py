"""Write files atomically: everything goes to temporary files first, then is renamed in."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def new_file_mode() -> int:
    """Return the mode a file created now gets (0o666 less the umask), as `open` would give it."""
    umask = os.umask(0o022)
    os.umask(umask)
    return 0o666 & ~umask


def file_mode(path: Path, default: int) -> int:
    """Return the mode to give ``path``: its own when it exists (a rewrite keeps it), else ``default``."""
    try:
        return path.stat().st_mode & 0o7777
    except OSError:
        return default


def write_atomically(files: dict[Path, bytes]) -> None:
    """Write every file via a temporary sibling and a rename; nothing is half-written.

    Each file gets the mode a plain write would give it (not mkstemp's private 0600)."""
    staged: list[tuple[str, Path]] = []
    mode = new_file_mode()
    try:
        for path, data in sorted(files.items()):
            path.parent.mkdir(parents=True, exist_ok=True)
            handle, temp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
            staged.append((temp, path))
            os.fchmod(handle, file_mode(path, mode))
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
