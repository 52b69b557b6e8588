"""Allowlist HTML sanitising of rendered page bodies (nh3)."""

from __future__ import annotations

import nh3

TAGS = frozenset(
    [
        "a",
        "abbr",
        "b",
        "blockquote",
        "br",
        "code",
        "dd",
        "del",
        "details",
        "div",
        "dl",
        "dt",
        "em",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "hr",
        "i",
        "input",
        "kbd",
        "label",
        "li",
        "ol",
        "p",
        "pre",
        "small",
        "span",
        "strong",
        "sub",
        "summary",
        "sup",
        "table",
        "tbody",
        "td",
        "th",
        "thead",
        "tr",
        "ul",
    ]
)
COMMON = frozenset({"class", "id", "title"})
ATTRIBUTES = {
    "*": COMMON,
    "a": COMMON | {"href"},
    "input": COMMON | {"type", "name", "checked", "disabled"},
    "label": COMMON | {"for"},
    "div": COMMON | {"data-tabs", "data-entry-id", "data-hub"},
    "td": COMMON | {"align", "data-value"},
    "th": COMMON | {"align", "colspan"},
    "table": COMMON,
    "code": COMMON,
}


def sanitize(html: str) -> str:
    """Return ``html`` with only allowlisted tags, attributes and http(s)/relative links."""
    return nh3.clean(
        html,
        tags=set(TAGS),
        attributes={tag: set(names) for tag, names in ATTRIBUTES.items()},
        url_schemes={"http", "https"},
        link_rel="noopener noreferrer",
        strip_comments=True,
    )
