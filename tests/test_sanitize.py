"""The allowlist sanitiser on its own: what it keeps and what it strips, exactly."""

from __future__ import annotations

from importlib import metadata

import pytest

from generator.site.sanitize import (
    CSP_TEMPLATE,
    UnknownInlineScript,
    content_key,
    sanitize,
    sanitizer_fingerprint,
    script_type,
    with_csp,
)

CASES = [
    ('<a href="javascript:alert(1)">x</a>', '<a rel="noopener noreferrer">x</a>'),
    ('<a href="JaVaScRiPt:alert(1)">x</a>', '<a rel="noopener noreferrer">x</a>'),
    ('<a href="data:text/html,hi">d</a>', '<a rel="noopener noreferrer">d</a>'),
    ('<a href="vbscript:x">v</a>', '<a rel="noopener noreferrer">v</a>'),
    (
        '<a href="https://example.org/" onclick="x()">ok</a>',
        '<a href="https://example.org/" rel="noopener noreferrer">ok</a>',
    ),
    ('<a href="http://example.org/a">ok</a>', '<a href="http://example.org/a" rel="noopener noreferrer">ok</a>'),
    ('<a href="/entries/x/">rel</a>', '<a href="/entries/x/" rel="noopener noreferrer">rel</a>'),
    ('<p onmouseover="x()" class="c" id="i" title="t">p</p>', '<p class="c" id="i" title="t">p</p>'),
    ('<div data-entry-id="a" onload="x()" style="color:red">d</div>', '<div data-entry-id="a">d</div>'),
    ('<input type="checkbox" onchange="x()" checked>', '<input type="checkbox" checked="">'),
    (
        '<table><tbody><tr><td align="left" data-value="3" onfocus="x()">3</td></tr></tbody></table>',
        '<table><tbody><tr><td align="left" data-value="3">3</td></tr></tbody></table>',
    ),
    ('<img src="x" onerror="alert(1)">', ""),
    ("<script>alert(1)</script>t", "t"),
    ('<iframe src="https://example.org/"></iframe>f', "f"),
    ("<!-- comment -->k", "k"),
    ('<svg onload="x()"><a href="https://example.org/">s</a></svg>', ""),
]


@pytest.mark.parametrize(("html", "expected"), CASES)
def test_sanitiser_output(html: str, expected: str) -> None:
    assert sanitize(html) == expected


SCRIPT_TYPES = [
    ("", ""),
    (' type="module"', "module"),
    (" type='Text/JavaScript'", "text/javascript"),
    (" TYPE=MODULE defer", "module"),
    (' src="a.js" type="application/json"', "application/json"),
    (' type="x-template" id="t"', "x-template"),
    (' data-kind="module"', ""),
]


@pytest.mark.parametrize(("attributes", "expected"), SCRIPT_TYPES)
def test_script_type(attributes: str, expected: str) -> None:
    assert script_type(attributes) == expected


RUN = "'sha256-AvyuiL0SD1mVY3NNxR+V2uo+lhk6RMFrytWmRt6CrJQ='"
BOOT = "'sha256-MeZS89WlF0u+o0hCvHTBt4q1WHU+U+sJKgbdRUc36mY='"


def policy(hashes: str) -> str:
    """Return the meta tag with_csp writes for these script hashes."""
    return f'<meta http-equiv="Content-Security-Policy" content="{CSP_TEMPLATE.format(hashes=hashes)}">'


def test_csp_template_is_the_published_policy() -> None:
    assert CSP_TEMPLATE.format(hashes="H") == (
        "default-src 'self'; script-src 'self' H; style-src 'self' 'unsafe-inline'; "
        "img-src 'self' data:; font-src 'self' data:; connect-src 'self'; worker-src 'self'; "
        "object-src 'none'; base-uri 'self'; form-action 'self'"
    )


def test_csp_admits_the_theme_scripts_by_hash_sorted_and_once() -> None:
    page = (
        "<html><head><script type=text/x-config>cfg()</script><title>t</title><script type='Module'>boot()</script>"
        "</head><body>"
        "<script>run()</script><script>boot()</script>"
        '<script src="x.js">ignored()</script><script type="application/json">{"a": 1}</script>'
        "<article><script type=application/json>data()</script><p>x</p></article>"
        "<script>run()</script><head></body></html>"
    )
    assert with_csp(page) == page.replace("<head>", "<head>" + policy(f"{RUN} {BOOT}"), 1)


def test_csp_without_inline_scripts_lists_no_hash() -> None:
    assert with_csp("<head></head><article>a</article>") == f"<head>{policy('')}</head><article>a</article>"


@pytest.mark.parametrize(
    "page",
    [
        "<article><script>run()</script></article>",
        "<head></head><body><article><p>x</p><SCRIPT type=text/javascript>run()</SCRIPT></article>",
        '<head></head><article><script type="module">boot()</script></article>',
    ],
)
def test_csp_refuses_an_inline_script_in_the_content(page: str) -> None:
    with pytest.raises(UnknownInlineScript, match=r"^an inline script inside the page content$"):
        with_csp(page)


@pytest.mark.parametrize("page", ["<head></head><script>run()</script>", "<script>run()</script><head></head>"])
def test_csp_page_without_article_admits_its_scripts(page: str) -> None:
    assert with_csp(page) == page.replace("<head>", f"<head>{policy(RUN)}")


def test_content_key_is_the_sha256_of_the_utf8_body() -> None:
    assert content_key("é") == "4a99557e4033c3539de2eb65472017cad5f9557f7a0625a09f1c3f6e2ba69c4c"


FINGERPRINTS = {"0.3.8": "c7d7883ad9efeab7"}  # after the site allowed the cards' and hubs' attributes


def test_sanitizer_fingerprint_is_the_golden_for_this_nh3() -> None:
    version = metadata.version("nh3")
    assert version in FINGERPRINTS, f"nh3 {version}: add its fingerprint {sanitizer_fingerprint()!r} here"
    assert sanitizer_fingerprint() == FINGERPRINTS[version]
