"""Hostile records built into a real site: nothing they contain becomes markup or script,
checked statically over the HTML and in headless Chromium with an alert recorder."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path

import pytest

from .serving import ARGS, CHROMIUM, require_chromium, serve

ROOT = Path(__file__).resolve().parent.parent
HOSTILE = ROOT / "tests" / "fixtures" / "hostile"


@pytest.fixture(scope="module")
def hostile_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    project = tmp_path_factory.mktemp("hostile")
    shutil.copy(ROOT / "mkdocs.yml", project / "mkdocs.yml")
    shutil.copytree(ROOT / "overrides", project / "overrides")
    shutil.copytree(HOSTILE, project / "entries")
    (project / ".env").write_text("SECRET_TOKEN=do-not-publish\n", encoding="utf-8")
    env = {**os.environ, "FAILPEDIA_CACHE_DIR": str(project / ".cache")}
    result = subprocess.run(
        [sys.executable, "-m", "generator", "build"], cwd=project, capture_output=True, text=True, env=env
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return project / "site"


def pages(site: Path) -> list[Path]:
    return sorted(site.rglob("*.html"))


class Attributes(HTMLParser):
    """Collects every real attribute (name, value) of every element."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[tuple[str, str, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found.extend((tag, name, value or "") for name, value in attrs)


def attributes(html: str) -> list[tuple[str, str, str]]:
    parser = Attributes()
    parser.feed(html)
    return parser.found


def test_no_event_handlers_script_urls_or_leaked_files(hostile_site: Path) -> None:
    for page in pages(hostile_site):
        html = page.read_text(encoding="utf-8")
        for tag, name, value in attributes(html):
            assert not name.startswith("on"), (page, tag, name)
            if name in ("href", "src", "action", "formaction", "data", "xlink:href"):
                assert not re.match(r"(?i)\s*(javascript|data|vbscript):", value), (page, tag, value)
            assert not (tag == "meta" and value.lower() == "refresh"), page
        assert "SECRET_TOKEN" not in html and "[core]" not in html


def test_every_inline_script_is_the_themes_and_hashed_in_the_csp(hostile_site: Path) -> None:
    for page in pages(hostile_site):
        html = page.read_text(encoding="utf-8")
        if 'http-equiv="refresh"' in html and "<article" not in html:
            continue  # redirect pages carry no script at all
        head = html.split("<head>", 1)[1].lstrip()
        assert head.startswith('<meta http-equiv="Content-Security-Policy"'), page
        article = re.search(r"<article\b.*?</article>", html, re.S)
        assert article is None or "<script" not in article.group(0).lower(), page
        assert "uid=" not in html  # the Jinja payload did not run


def test_hostile_text_is_shown_as_text(hostile_site: Path) -> None:
    html = (hostile_site / "entries" / "hostile-markup" / "index.html").read_text(encoding="utf-8")
    assert "&lt;script&gt;alert(&#x27;title&#x27;)&lt;/script&gt;" in html or "&lt;script&gt;alert('title')" in html
    assert "cycler.__init__.__globals__" in html
    faq = (hostile_site / "entries" / "hostile-faq" / "index.html").read_text(encoding="utf-8")
    assert "{{ 7*7 }}" in faq  # record text is never template source


@pytest.fixture(scope="module")
def served(hostile_site: Path) -> Iterator[str]:
    require_chromium()
    with serve(hostile_site) as url:
        yield url


def test_nothing_runs_in_chromium_when_hovering_and_clicking(served: str) -> None:
    from playwright.sync_api import sync_playwright

    dialogs: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        for path in ("entries/hostile-markup/", "entries/hostile-faq/", "tags/hostile/", "", "categories/data/"):
            page = browser.new_page()
            page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
            page.goto(served + path)
            for element in page.query_selector_all("article *")[:400]:
                with contextlib.suppress(Exception):
                    element.hover(timeout=200)
                    element.dispatch_event("focus")
            for link in page.query_selector_all("article a[href^='#'], article details summary")[:50]:
                with contextlib.suppress(Exception):
                    link.click(timeout=200)
            page.wait_for_timeout(200)
            page.close()
        browser.close()
    assert dialogs == []
