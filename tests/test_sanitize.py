"""The allowlist sanitiser on its own: what it keeps and what it strips, exactly."""

from __future__ import annotations

import pytest

from generator.site.sanitize import sanitize

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
