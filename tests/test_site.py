"""A real ``mkdocs build --strict`` of the repository, and static checks of its output."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    cmd = [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir", str(out)]
    result = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, env=env)
    assert result.returncode == 0, result.stderr
    return out


def entry_ids() -> list[str]:
    return sorted(p.stem for p in (ROOT / "entries").rglob("*.yaml"))


def test_every_record_has_a_page(site: Path) -> None:
    for entry_id in entry_ids():
        assert (site / "entries" / entry_id / "index.html").is_file(), entry_id


def test_home_lists_categories(site: Path) -> None:
    home = (site / "index.html").read_text(encoding="utf-8")
    assert "Categories" in home and "categories/communication/" in home


def test_no_yaml_sources_or_markdown_published(site: Path) -> None:
    assert not list(site.rglob("*.yaml")) and not list(site.rglob("*.md"))


def test_no_event_handlers_or_script_urls(site: Path) -> None:
    for page in (site / "entries").rglob("*.html"):
        html = page.read_text(encoding="utf-8")
        assert not re.search(r"<[^>]+\son[a-z]+\s*=", html), page
        assert not re.search(r"(?i)(href|src)\s*=\s*[\"']?\s*(javascript|data|vbscript):", html), page
