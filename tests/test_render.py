"""Golden pages for the fixture records, and the inertness of record text."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from generator.patterns.translate import key_text
from generator.records.pipeline import load_catalog
from generator.site.markup import entities, fence, inline, safe_url
from generator.site.render import render_site
from generator.site.templating import SiteOptions

ROOT = Path(__file__).resolve().parent.parent
GOLDENS = ROOT / "tests" / "goldens" / "pages"


def fixture_pages() -> dict[str, str]:
    loaded = load_catalog([ROOT / "tests" / "fixtures" / "valid"], ROOT)
    assert loaded.ok
    options = SiteOptions(edit_url="https://example.org/edit/main/{path}")
    return {page.path: page.markdown for page in render_site(loaded.catalog, options=options)}


PAGES = fixture_pages()


@pytest.mark.parametrize("path", sorted(PAGES))
def test_golden_page(path: str, golden) -> None:
    golden(GOLDENS / path, PAGES[path])


def test_render_is_deterministic() -> None:
    assert fixture_pages() == PAGES


def test_markup_in_record_text_is_inert() -> None:
    body = PAGES["entries/full-record.md"].split("---\n", 2)[2]
    assert "<img" not in body and "<b>" not in body
    # Outside code fences (whose text Markdown never reads as markup, e.g. the alert rules).
    assert "javascript:" not in re.sub(r"(`{3,}).*?\1", "", body, flags=re.S)
    assert "&#60;img src&#61;x onerror&#61;alert&#40;1&#41;&#62;" in body


def test_title_is_escaped_once_in_front_matter() -> None:
    page = PAGES["entries/full-record.md"]
    front = page.split("---\n")[1]
    assert 'title: "Full record with &lt;every&gt; field &amp; `code`"\n' in front


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a *b* c", "a &#42;b&#42; c"),
        ("use `x|y`", "use <code>x&#124;y</code>"),
        ("two\nlines", "two lines"),
        ("[x](javascript:alert(1))", "&#91;x&#93;&#40;javascript&#58;alert&#40;1&#41;&#41;"),
    ],
)
def test_inline(text: str, expected: str) -> None:
    assert inline(text) == expected


def test_fence_is_longer_than_any_backtick_run() -> None:
    block = fence("a ```` b", "text")
    assert block.startswith("`````text\n") and block.endswith("\n`````")


@pytest.mark.parametrize("url", ["javascript:alert(1)", "JaVaScRiPt:x", "data:text/html,x", " ftp://x", "http://a b"])
def test_safe_url_refuses_non_http(url: str) -> None:
    assert safe_url(url) == ""


def test_entities_leave_plain_words() -> None:
    assert entities("plain words 123") == "plain words 123"


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        (r"CUDA out of memory\. Tried to allocate", "CUDA out of memory. Tried to allocate"),
        (r"Xid[^0-9]+79", "Xid … 79"),
        (r"unhandled system error(?: \(run with NCCL_DEBUG=INFO for details\))?", "unhandled system error"),
        (r"(?:Heartbeat|Watchdog) timed? out", "time … out"),
        (r"errors?: [0-9]{2,} in \(x\+y\)", "error … : … in (x+y)"),
        (r"ab{0,3}c", "a … c"),
        (r"[0-9]+", ""),
    ],
)
def test_key_text_keeps_what_every_matching_line_contains(pattern: str, expected: str) -> None:
    assert key_text(pattern) == expected


def test_signature_headings_name_the_message() -> None:
    catalog = load_catalog([ROOT / "entries"], ROOT).catalog
    pages = {page.path: page.markdown for page in render_site(catalog)}
    page = pages["entries/nccl-system-error.md"]
    assert "### unhandled system error\n" in page
    assert "<code>nccl-system-error-string</code>: " in page
