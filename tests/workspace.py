"""Small record workspaces for tests: the minimal valid record, renamed and extended."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MINIMAL = (Path(__file__).parent / "fixtures" / "valid" / "minimal-record.yaml").read_text(encoding="utf-8")


def write_record(root: Path, category: str, entry_id: str, sig_id: str = "", extra: str = "") -> None:
    """Write the minimal record as entries/<category>/<entry_id>.yaml, renamed and extended."""
    text = MINIMAL.replace("id: minimal-record\n", f"id: {entry_id}\n", 1)
    text = text.replace("category: memory", f"category: {category}", 1)
    text = text.replace("minimal-record-exploded", sig_id or f"{entry_id}-exploded")
    path = root / "entries" / category / f"{entry_id}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text + extra, encoding="utf-8")


def diagnose_cli(*args: str, stdin: bytes | None = None, cwd: Path = ROOT) -> subprocess.CompletedProcess[bytes]:
    """Run ``failpedia diagnose`` with these arguments in a fresh process; return what it did."""
    return subprocess.run(
        [sys.executable, "-m", "generator", "diagnose", *args],
        cwd=cwd,
        capture_output=True,
        input=stdin,
        env={**os.environ},
    )
