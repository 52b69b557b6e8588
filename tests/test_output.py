"""Atomic writes: files appear whole, with the mode a plain write gives them."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

from generator.output import write_atomically

ROOT = Path(__file__).resolve().parent.parent


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_new_files_get_the_umask_mode_not_0600(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        write_atomically({tmp_path / "a.txt": b"x", tmp_path / "sub" / "b.txt": b"y"})
        os.umask(0o077)
        write_atomically({tmp_path / "private.txt": b"z"})
    finally:
        os.umask(old)
    assert [mode(tmp_path / "a.txt"), mode(tmp_path / "sub/b.txt"), mode(tmp_path / "private.txt")] == [
        0o644,
        0o644,
        0o600,
    ]
    assert (tmp_path / "sub/b.txt").read_bytes() == b"y"


def test_a_rewrite_keeps_the_files_own_mode(tmp_path: Path) -> None:
    target = tmp_path / "rules.yaml"
    target.write_bytes(b"old")
    target.chmod(0o640)
    write_atomically({target: b"new"})
    assert (mode(target), target.read_bytes()) == (0o640, b"new")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rules.yaml"]  # no temporary file left


def test_exported_files_are_readable_by_others(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        command = [sys.executable, "-m", "generator", "export", "--format", "grep", "-o", str(tmp_path / "out") + "/"]
        subprocess.run(command, cwd=ROOT, check=True, capture_output=True)
    finally:
        os.umask(old)
    modes = {p.name: mode(p) for p in (tmp_path / "out").iterdir()}
    assert modes and set(modes.values()) == {0o644}, modes
