"""A real ``mkdocs build --strict`` of the repository, and static checks of its output."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

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


class Links(HTMLParser):
    """Collects hrefs and srcs, and the ids a page defines."""

    def __init__(self) -> None:
        super().__init__()
        self.targets: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name in ("href", "src") and value:
                self.targets.append(value)
            if name in ("id", "name") and value:
                self.ids.add(value)


def parsed(path: Path) -> Links:
    links = Links()
    links.feed(path.read_text(encoding="utf-8"))
    return links


def resolve_target(site: Path, page: Path, target: str) -> tuple[Path, str] | None:
    """Return (file, anchor) an internal link points at, or None for external links."""
    parts = urlsplit(target)
    if parts.scheme or parts.netloc or target.startswith("mailto:"):
        return None
    base = site if parts.path.startswith("/") else page.parent
    path = (base / unquote(parts.path).lstrip("/")).resolve() if parts.path else page
    if path.is_dir() or parts.path.endswith("/"):
        path = path / "index.html"
    return path, parts.fragment


def test_every_internal_link_and_anchor_resolves(site: Path) -> None:
    cache: dict[Path, Links] = {}
    broken = []
    for page in sorted(site.rglob("*.html")):
        for target in parsed(page).targets:
            found = resolve_target(site, page, target)
            if found is None:
                continue
            path, anchor = found
            if not path.is_file():
                broken.append((str(page.relative_to(site)), target))
                continue
            if anchor and path.suffix == ".html":
                links = cache.setdefault(path, parsed(path))
                if anchor not in links.ids:
                    broken.append((str(page.relative_to(site)), target))
    assert broken == []


def test_pages_have_titles_and_descriptions(site: Path) -> None:
    for entry_id in entry_ids():
        html = (site / "entries" / entry_id / "index.html").read_text(encoding="utf-8")
        assert re.search(r"<title>[^<]{10,} - Failpedia</title>", html), entry_id
        assert re.search(r'<meta name="description" content="[^"]{20,}">', html), entry_id
