"""Pages that put records side by side: comparison hubs and tag hubs."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from generator.records.model import Catalog, Entry
from generator.site.hubs import Hub, derived_cell
from generator.site.markup import attribute, front_matter, inline, literal
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


def hub_rows(hub: Hub, catalog: Catalog) -> list[dict[str, Any]]:
    """Return the table body: sections, each with its rows of cell HTML."""
    return [
        {
            "title": inline(section["title"]),
            "rows": [[cell_html(column, row, catalog) for column in hub.columns] for row in section["rows"]],
        }
        for section in hub.sections
    ]


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
        headers=[attribute(column["title"]) for column in hub.columns],
        sections=hub_rows(hub, catalog),
        confusions=confusions(hub, catalog),
        link=entry_link,
    )
    return Page(f"compare/{hub.id}.md", markdown)


def render_compare_index(hubs: list[Hub]) -> Page:
    """Return the index of comparison pages."""
    meta = front_matter("Compare failures side by side", "Tables that put related failures next to each other.")
    return Page("compare/index.md", render_template("compare-index.md.j2", meta=meta, hubs=hubs))


def key_line(entry: Entry) -> str:
    """Return the log line that best identifies an entry."""
    return derived_cell("log_line", entry)


def render_tag(tag: str, entries: tuple[Entry, ...]) -> Page:
    """Return the hub page of one tag."""
    meta = front_matter(f"Tag: {tag}", f"{len(entries)} failures tagged {tag}", searchable=False)
    markdown = render_template("tag.md.j2", meta=meta, tag=tag, entries=entries, key_line=key_line)
    return Page(f"tags/{tag}.md", markdown)


def render_tag_index(catalog: Catalog) -> Page:
    """Return the index of every tag with its count."""
    meta = front_matter("Tags", "Every tag used by a Failpedia record.", searchable=False)
    return Page("tags/index.md", render_template("tags.md.j2", meta=meta, by_tag=catalog.by_tag))
