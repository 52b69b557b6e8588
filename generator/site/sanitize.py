"""Allowlist HTML sanitising of rendered page bodies (nh3)."""

from __future__ import annotations

import base64
import hashlib
import json
import re
from functools import cache
from importlib import metadata
from typing import Any

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
    "div": COMMON | {"data-tabs", "data-entry-id", "data-hub", "data-hint"},
    "p": COMMON | {"data-search-exclude"},  # links that would weigh hub titles into a record's rank
    "td": COMMON | {"align", "data-value"},
    "th": COMMON | {"align", "colspan"},
    "table": COMMON,
    "code": COMMON,
}


OPTIONS: dict[str, Any] = {
    "tags": set(TAGS),
    "attributes": {tag: set(names) for tag, names in ATTRIBUTES.items()},
    "url_schemes": {"http", "https"},
    "link_rel": "noopener noreferrer",
    "strip_comments": True,
}


@cache
def cleaner() -> nh3.Cleaner:
    """Return the allowlist sanitiser, built once (building it per page costs as much as a page)."""
    return nh3.Cleaner(**OPTIONS)


@cache
def sanitizer_fingerprint() -> str:
    """Return a digest of what decides the sanitiser's output: nh3's version and the allowlist."""
    described = json.dumps([metadata.version("nh3"), OPTIONS], sort_keys=True, default=sorted)
    return hashlib.sha256(described.encode()).hexdigest()[:16]


def content_key(html: str) -> str:
    """Return the key under which the sanitised form of ``html`` is remembered."""
    return hashlib.sha256(html.encode("utf-8")).hexdigest()


def sanitize(html: str) -> str:
    """Return ``html`` with only allowlisted tags, attributes and http(s)/relative links."""
    return cleaner().clean(html)


INLINE_SCRIPT = re.compile(r"<script(?![^>]*\bsrc=)([^>]*)>(.*?)</script>", re.S | re.I)
EXECUTABLE_TYPES = ("", "text/javascript", "module", "application/javascript")
CSP_TEMPLATE = (
    "default-src 'self'; script-src 'self' {hashes}; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; font-src 'self' data:; connect-src 'self'; worker-src 'self'; "
    "object-src 'none'; base-uri 'self'; form-action 'self'"
)


class UnknownInlineScript(ValueError):
    """A page would run an inline script that the theme did not write."""


def script_type(attributes: str) -> str:
    """Return the type attribute of a script tag, lower-cased ("" when absent)."""
    found = re.search(r"""\btype=["']?([^"' >]+)""", attributes, re.I)
    return found.group(1).lower() if found else ""


def with_csp(html: str) -> str:
    """Return the page with a Content-Security-Policy meta as the first element of <head>.

    Every executable inline script is admitted by its hash; one inside the page's
    article (the part rendered from records) is refused instead.
    """
    start = html.find("<article")
    end = html.find("</article>", start) if start >= 0 else -1
    hashes = []
    for match in INLINE_SCRIPT.finditer(html):
        if script_type(match.group(1)) not in EXECUTABLE_TYPES:
            continue
        if start <= match.start() < end:
            raise UnknownInlineScript("an inline script inside the page content")
        digest = base64.b64encode(hashlib.sha256(match.group(2).encode("utf-8")).digest()).decode()
        hashes.append(f"'sha256-{digest}'")
    policy = CSP_TEMPLATE.format(hashes=" ".join(sorted(set(hashes))))
    meta = f'<meta http-equiv="Content-Security-Policy" content="{policy}">'
    return html.replace("<head>", "<head>" + meta, 1)
