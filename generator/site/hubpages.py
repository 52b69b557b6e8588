"""Pages that put records side by side: comparison hubs and tag hubs."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from generator.records.model import Catalog, Entry
from generator.site.hubs import Hub, derived_cell
from generator.site.markup import CODE_SPAN, attribute, front_matter, inline, literal
from generator.site.templating import Page, render_template


def entry_link(entry: Entry, prefix: str) -> str:
    """Return an HTML link to an entry page from a page ``prefix`` levels deep."""
    return f'<a href="{prefix}entries/{entry.id}/">{inline(entry.title)}</a>'


def cell_html(column: Mapping[str, Any], row: Mapping[str, Any], catalog: Catalog) -> str:
    """Return one table cell's inner HTML: the row's own text, or what the record gives."""
    entry = catalog.by_id.get(row.get("record", ""))
    text = row.get("cells", {}).get(column["key"])
    kind = column.get("from_record")
    if text is None and entry is not None and kind == "link":
        return entry_link(entry, "../../")
    if text is None and entry is not None and kind:
        derived = derived_cell(kind, entry)
        return f"<code>{literal(derived)}</code>" if derived and kind == "log_line" else inline(derived)
    if not text:
        return ""
    if column.get("code") and "`" not in text:
        return f"<code>{literal(text)}</code>"
    return inline(text)


def ordered_columns(hub: Hub) -> list[Mapping[str, Any]]:
    """Return the hub's columns with the record link first (the column that stays in view)."""
    return sorted(hub.columns, key=lambda column: column.get("from_record") != "link")


def row_anchor(entry_id: str) -> str:
    """Return the id of a record's first row in a hub table (entry pages link to it)."""
    return f"record-{entry_id}"


# A code span of one word (an identifier, a flag such as --log-dir) is kept on one line:
# browsers would otherwise break it after a hyphen.
ONE_WORD_CODE = re.compile(r"<code>([^\s<]+)</code>")


def whole_words(cell: str) -> str:
    """Return a cell's HTML with its one-word code spans marked to stay unbroken."""
    return ONE_WORD_CODE.sub(r'<code class="fp-word">\1</code>', cell)


def hub_rows(hub: Hub, catalog: Catalog) -> list[dict[str, Any]]:
    """Return the table body: sections, each with its rows (an anchor and the cells' HTML)."""
    columns = ordered_columns(hub)
    seen: set[str] = set()
    sections = []
    for section in hub.sections:
        rows = []
        for row in section["rows"]:
            record = row.get("record", "")
            anchor = row_anchor(record) if record and record not in seen else ""
            seen.add(record)
            cells = [whole_words(cell_html(column, row, catalog)) for column in columns]
            if not record and columns and columns[0].get("from_record") == "link":
                cells[0] = row_label(hub, row)
            rows.append({"id": anchor, "cells": cells})
        sections.append({"title": inline(section["title"]), "rows": rows})
    return sections


# Columns whose typical (median) cell is longer are wide; the others are narrow.
WIDE_COLUMN = 40


def headers(hub: Hub) -> list[dict[str, Any]]:
    """Return each column's header: its title and whether it is a wide column (prose, log lines)."""
    rows = [row for section in hub.sections for row in section["rows"]]
    found = []
    for column in ordered_columns(hub):
        lengths = sorted(len(str(row.get("cells", {}).get(column["key"], ""))) for row in rows)
        typical = lengths[len(lengths) // 2] if lengths else 0
        wide = typical > WIDE_COLUMN or column.get("from_record") not in (None, "link")
        found.append({"title": attribute(column["title"]), "wide": wide})
    return found


def row_label(hub: Hub, row: Mapping[str, Any]) -> str:
    """Return what stands in the record column of a row without a record: its first short cell."""
    for column in hub.columns:
        text = str(row.get("cells", {}).get(column["key"], ""))
        if text and len(text) <= 24:
            return f'<span class="fp-no-record">{attribute(column["title"])} {inline(text)}</span>'
    return ""


# A filter example is one word of a code cell or `code` span: an identifier, a code, a version.
HINT_WORD = re.compile(r"[A-Za-z0-9_.]{2,32}\Z")


def row_words(hub: Hub, row: Mapping[str, Any]) -> list[str]:
    """Return the one-word code values of a row, in column order."""
    words = []
    for column in hub.columns:
        text = str(row.get("cells", {}).get(column["key"], ""))
        spans = CODE_SPAN.findall(text) if "`" in text else [text] if column.get("code") else []
        words += [span for span in spans if HINT_WORD.match(span) and not span.isdigit()]
    return words


def filter_hint(hub: Hub) -> str:
    """Return the filter box's placeholder, with examples from rows spread over the hub."""
    rows = [row for section in hub.sections for row in section["rows"]]
    picks: list[str] = []
    for row in [rows[0], rows[len(rows) // 2], rows[-1]] if rows else []:
        picks += [word for word in row_words(hub, row) if word not in picks][:1]
    return f"Filter rows (e.g. {', '.join(picks)})" if picks else "Filter rows"


def confusions(hub: Hub, catalog: Catalog) -> list[dict[str, Any]]:
    """Return "how to tell X from Y" pairs among the hub's records, each pair once."""
    ids = set(hub.records())
    pairs: dict[tuple[str, str], list[str]] = {}
    for entry_id in sorted(ids):
        for item in catalog.by_id[entry_id].get("confused_with", ()):
            if item["id"] in ids:
                key = tuple(sorted((entry_id, item["id"])))
                pairs.setdefault(key, []).append(f"{inline(catalog.by_id[entry_id].title)}: {inline(item['tell'])}")
    return [{"a": catalog.by_id[a], "b": catalog.by_id[b], "tells": tells} for (a, b), tells in sorted(pairs.items())]


def render_hub(hub: Hub, catalog: Catalog) -> Page:
    """Return the comparison page of one hub."""
    markdown = render_template(
        "hub.md.j2",
        meta=front_matter(hub.title, hub.summary, wide=True),
        hub=hub,
        hint=attribute(filter_hint(hub)),
        headers=headers(hub),
        sections=hub_rows(hub, catalog),
        confusions=confusions(hub, catalog),
        link=entry_link,
    )
    return Page(f"compare/{hub.id}.md", markdown)


def hubs_by_record(hubs: Sequence[Hub]) -> dict[str, list[dict[str, str]]]:
    """Return, for each record id, the hubs whose tables it is in: title and the URL of its row."""
    found: dict[str, list[dict[str, str]]] = {}
    for hub in hubs:
        for entry_id in dict.fromkeys(hub.records()):
            link = {"title": inline(hub.title), "href": f"../../compare/{hub.id}/#{row_anchor(entry_id)}"}
            found.setdefault(entry_id, []).append(link)
    return found


def render_compare_index(hubs: list[Hub]) -> Page:
    """Return the index of comparison pages."""
    meta = front_matter("Compare failures side by side", "Tables that put related failures next to each other.")
    return Page("compare/index.md", render_template("compare-index.md.j2", meta=meta, hubs=hubs))


def key_line(entry: Entry) -> str:
    """Return the log line that best identifies an entry."""
    return derived_cell("log_line", entry)


def render_tag(tag: str, entries: tuple[Entry, ...]) -> Page:
    """Return the hub page of one tag."""
    meta = front_matter(f"Tag: {tag}", f"{len(entries)} failures tagged {tag}", searchable=False, toc=False)
    context = {"entries": entries, "key_line": key_line, "show_category": True}
    markdown = render_template("tag.md.j2", meta=meta, tag=tag, **context)
    return Page(f"tags/{tag}.md", markdown)


def render_tag_index(catalog: Catalog) -> Page:
    """Return the index of every tag with its count."""
    meta = front_matter("Tags", "Every tag used by a Failpedia record.", searchable=False)
    return Page("tags/index.md", render_template("tags.md.j2", meta=meta, by_tag=catalog.by_tag))
