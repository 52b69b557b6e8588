"""A real ``mkdocs build --strict`` of the repository, and static checks of its output."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from .serving import build_site

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_site(tmp_path_factory.mktemp("site"))


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


def test_the_home_page_title_is_the_site_name_once(site: Path) -> None:
    assert "<title>Failpedia</title>" in (site / "index.html").read_text(encoding="utf-8")


def test_serve_does_not_list_the_pages_left_out_of_the_navigation(tmp_path: Path) -> None:
    # Records and tags are reached from the pages, not the nav: MkDocs listed every one of them.
    import shutil
    import socket

    shutil.copy(ROOT / "mkdocs.yml", tmp_path / "mkdocs.yml")
    shutil.copytree(ROOT / "overrides", tmp_path / "overrides")
    (tmp_path / "entries" / "memory").mkdir(parents=True)
    shutil.copy(ROOT / "tests" / "fixtures" / "valid" / "minimal-record.yaml", tmp_path / "entries" / "memory")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {**os.environ, "FAILPEDIA_CACHE_DIR": str(tmp_path / ".cache")}
    command = [sys.executable, "-m", "generator", "serve", "--dev-addr", f"127.0.0.1:{port}"]
    lines = []
    # Its own session: `failpedia serve` runs `mkdocs serve` as a child, stopped with it.
    with subprocess.Popen(
        command, cwd=tmp_path, env=env, stderr=subprocess.PIPE, text=True, start_new_session=True
    ) as server:
        try:
            assert server.stderr is not None
            for line in server.stderr:
                lines.append(line)
                if "Serving on" in line or len(lines) > 200:
                    break
        finally:
            os.killpg(server.pid, signal.SIGTERM)
            server.wait(timeout=30)
    output = "".join(lines)
    assert "Serving on" in output, output
    assert "not included in the" not in output and "tags/test.md" not in output, output
