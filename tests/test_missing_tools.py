"""A missing tool is a warning at the end of the run, not only a skip line."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SKIPPING = """
import pytest

def test_needs_rg():
    pytest.skip("rg is not installed here; CI installs it")

def test_needs_chromium():
    pytest.skip("Chromium is not installed here; CI installs it")

def test_also_needs_rg():
    pytest.skip("rg is not installed here; CI installs it")

def test_other_skip():
    pytest.skip("not relevant")
"""


def run_pytest(tmp_path: Path, body: str) -> str:
    shutil.copy(HERE / "conftest.py", tmp_path / "conftest.py")
    (tmp_path / "test_tools.py").write_text(body, encoding="utf-8")
    env = {key: value for key, value in os.environ.items() if key != "CI"}
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
    )
    return result.stdout


def test_the_warning_names_each_missing_tool_last(tmp_path: Path) -> None:
    out = run_pytest(tmp_path, SKIPPING).rstrip("\n").splitlines()
    start = next(i for i, line in enumerate(out) if "MISSING TOOLS: these checks did not run" in line)
    assert out[start + 1 : start + 3] == [
        "WARNING: Chromium is missing here; 1 test(s) skipped",
        "WARNING: rg is missing here; 2 test(s) skipped",
    ]
    assert "4 skipped" in out[-1]


def test_no_warning_when_nothing_is_missing(tmp_path: Path) -> None:
    assert "MISSING TOOLS" not in run_pytest(tmp_path, "def test_ok():\n    pass\n")
