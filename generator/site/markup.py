"""Turn record text into inert Markdown: data never becomes markup.

Every character that Markdown or HTML could read as syntax is written as a numeric
character reference, so record text renders as the same text and nothing else.
`Backticks` become <code> elements whose content is escaped the same way.
"""

from __future__ import annotations

import html
import json
import re
from typing import Any

# Characters that start Markdown or HTML syntax somewhere in a line.
SPECIAL = frozenset("\\`*_{}[]()#+-.!|~^<>&\"':=$%@")
ENTITY = {ch: f"&#{ord(ch)};" for ch in SPECIAL}
SPECIAL_SPLIT = re.compile("([" + re.escape("".join(sorted(SPECIAL))) + "])")
CODE_SPAN = re.compile(r"`([^`]+)`")
FENCE_RUN = re.compile(r"`+|~+")


def entities(text: str) -> str:
    """Return ``text`` with every syntax character as a numeric reference."""
    # Splitting on the characters and mapping every other part is faster than
    # str.translate with a table of multi-character replacements.
    parts = SPECIAL_SPLIT.split(text)
    parts[1::2] = [ENTITY[char] for char in parts[1::2]]
    return "".join(parts)


def one_line(text: str) -> str:
    """Return ``text`` on one line with runs of white space folded."""
    return " ".join(str(text).split())


def inline(text: Any) -> str:
    """Return one line of record text as inert Markdown, with `code` as <code>."""
    line = one_line(text)
    if "`" not in line:
        return entities(line)
    parts = []
    last = 0
    for match in CODE_SPAN.finditer(line):
        parts.append(entities(line[last : match.start()]))
        parts.append(f"<code>{entities(match.group(1))}</code>")
        last = match.end()
    parts.append(entities(line[last:]))
    return "".join(parts)


def literal(text: Any) -> str:
    """Return one line of text as inert Markdown, backticks included (for log lines)."""
    return entities(one_line(text))


def prose(text: Any) -> str:
    """Return paragraphs of record text as inert Markdown paragraphs."""
    paragraphs = re.split(r"\n[ \t]*\n", str(text).strip())
    return "\n\n".join(inline(paragraph) for paragraph in paragraphs if paragraph.strip())


def fence(code: Any, language: str = "text", indent: int = 0) -> str:
    """Return a fenced code block longer than any backtick run in ``code``."""
    body = str(code).rstrip("\n").replace("\r", "")
    longest = max((len(run) for run in FENCE_RUN.findall(body)), default=0)
    marker = "`" * max(3, longest + 1)
    pad = " " * indent
    lines = [f"{marker}{language}", *body.split("\n"), marker]
    return "\n".join(pad + line if line else line for line in lines)


def attribute(text: Any) -> str:
    """Return text escaped for an HTML attribute value."""
    return html.escape(one_line(text), quote=True)


def front_matter(
    title: str,
    description: str,
    searchable: bool = True,
    template: str = "",
    boost: float = 0,
    wide: bool = False,
    toc: bool = True,
    names: tuple[str, ...] = (),
) -> str:
    """Return YAML front matter with title, description and search ``names`` HTML-escaped exactly once.

    ``wide`` hides both sidebars; ``toc=False`` only the table of contents (lists without headings).
    """
    # JSON strings are valid YAML double-quoted scalars, and much cheaper to write.
    lines = [f"description: {json.dumps(attribute(description))}", f"title: {json.dumps(attribute(title))}"]
    if names:
        # The theme indexes `tags` as the most heavily weighted search field; without its
        # tags plugin nothing prints them, so the page shows the names itself.
        lines.append("tags:" + "".join(f"\n  - {json.dumps(attribute(name))}" for name in names))
    if not searchable:
        lines.append("search:\n  exclude: true")
    elif boost:
        lines.append(f"search:\n  boost: {boost}")
    if template:
        lines.append(f"template: {json.dumps(template)}")
    if wide:
        lines.append("hide:\n  - navigation\n  - toc")
    elif not toc:
        lines.append("hide:\n  - toc")
    return "---\n" + "\n".join(lines) + "\n---\n"


def safe_url(url: Any) -> str:
    """Return ``url`` for a Markdown link target, or "" when it is not http(s)."""
    text = str(url).strip()
    if not re.match(r"https?://[^\s<>\"'`]+\Z", text, re.ASCII):
        return ""
    return html.escape(text, quote=True)
