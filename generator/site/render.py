"""Render the catalog to Markdown pages (strings only; nothing is written to disk)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from generator.records.ledger import Checked
from generator.records.model import CATEGORY_ORDER, Catalog, Entry
from generator.signatures.export import ExportOptions, loki_rule, sigma_rule, yaml_text
from generator.signatures.library import read_lock
from generator.site.hubpages import (
    hubs_by_record,
    key_line,
    render_compare_index,
    render_hub,
    render_tag,
    render_tag_index,
)
from generator.site.hubs import Hub
from generator.site.markup import front_matter, safe_url
from generator.site.refpages import render_field_reference, render_static
from generator.site.templating import CATEGORY_TITLES, Page, SiteOptions, render_template

# Records rank above the comparison and reference pages that quote their lines.
ENTRY_SEARCH_BOOST = 4

# Optional record fields, as templates see them when a record leaves them out.
OPTIONAL_FIELDS: dict[str, Any] = {
    "observations": (),
    "prevention": (),
    "affected": (),
    "scale": {},
    "env": (),
    "versions": (),
    "nccl": None,
    "confused_with": (),
    "code": (),
    "faq": (),
}


def search_names(entry: Entry) -> tuple[str, ...]:
    """Return the short names a reader searches for: the record's aliases, then its NCCL result name and code."""
    nccl = entry.get("nccl")
    names = [*entry.get("aliases", ()), *([nccl["name"], f"NCCL error {nccl['code']}"] if nccl else [])]
    return tuple(dict.fromkeys(names))


def alert_rules(entry: Entry) -> list[tuple[str, str]]:
    """Return the record's own Loki and Sigma rules as YAML, the exporters' text for this record."""
    options = ExportOptions()
    loki = {"groups": [{"name": "failpedia", "rules": [loki_rule(entry, options)]}]}
    return [("Loki", yaml_text(loki)), ("Sigma", yaml_text(sigma_rule(entry, options)))]


def entry_path(entry_id: str) -> str:
    """Return the docs path of an entry page."""
    return f"entries/{entry_id}.md"


def category_path(category: str) -> str:
    """Return the docs path of a category page."""
    return f"categories/{category}.md"


def code_tabs(entry: Entry) -> list[tuple[str, list[Mapping[str, Any]]]]:
    """Return the code examples grouped by stack, in first-seen order."""
    tabs: dict[str, list[Mapping[str, Any]]] = {}
    for example in entry.get("code", ()):
        tabs.setdefault(example["stack"], []).append(example)
    return list(tabs.items())


Neighbours = dict[str, tuple[Entry | None, Entry | None]]
Compared = dict[str, list[dict[str, str]]]


def neighbours(catalog: Catalog) -> Neighbours:
    """Return, for each entry id, the previous and next entries in its category."""
    found: Neighbours = {}
    for siblings in catalog.by_category.values():
        padded = (None, *siblings, None)
        for index, entry in enumerate(siblings, start=1):
            found[entry.id] = (padded[index - 1], padded[index + 1])
    return found


def edit_link(entry: Entry, options: SiteOptions) -> str:
    """Return the URL where the record's YAML can be edited, or ""."""
    return safe_url(options.edit_url.format(path=entry.path)) if options.edit_url else ""


def render_entry(
    entry: Entry,
    catalog: Catalog,
    options: SiteOptions,
    around: Neighbours,
    checks: Mapping[str, Checked],
    compared: Compared | None = None,
) -> Page:
    """Return the page of one entry (``checks``: what verify found; ``compared``: the hubs each record is in)."""
    before, after = around[entry.id]
    markdown = render_template(
        "entry.md.j2",
        meta=front_matter(entry.title, entry.summary, boost=ENTRY_SEARCH_BOOST, names=search_names(entry)),
        names=search_names(entry),
        alerts=alert_rules(entry),
        e={**OPTIONAL_FIELDS, **entry.data},
        entry=entry,
        catalog=catalog,
        tabs=code_tabs(entry),
        before=before,
        after=after,
        edit=edit_link(entry, options),
        checks=checks,
        verified=sum(sig.id in checks for sig in entry.signatures),
        compared=(compared or {}).get(entry.id, ()),
        related=related_links(entry),
    )
    return Page(entry_path(entry.id), markdown)


def related_links(entry: Entry) -> list[tuple[str, str]]:
    """Return the Related section once per record: (id, how to tell it apart, or "").

    A confusion carries its tell; a plain related record is left out when the note at the
    top of the page already names it as what this failure follows.
    """
    tells = {item["id"]: item["tell"] for item in entry.get("confused_with", ())}
    plain = [target for target in entry.related if target not in tells and target not in entry.downstream_of]
    return [(target, "") for target in dict.fromkeys(plain)] + list(tells.items())


def render_category(category: str, catalog: Catalog) -> Page:
    """Return the page listing one category's entries."""
    title = CATEGORY_TITLES.get(category, category)
    entries = catalog.by_category.get(category, ())
    meta = front_matter(title, f"{len(entries)} failures: {title}", searchable=False, toc=False)
    context = {"entries": entries, "key_line": key_line, "show_category": False}
    markdown = render_template("category.md.j2", meta=meta, title=title, **context)
    return Page(category_path(category), markdown)


def categories(catalog: Catalog) -> list[str]:
    """Return the categories that have entries, in the fixed order."""
    return [name for name in CATEGORY_ORDER if name in catalog.by_category]


def render_home(catalog: Catalog, hubs: Sequence[Hub], checks: Mapping[str, Checked]) -> Page:
    """Return the home page."""
    counts = [(name, CATEGORY_TITLES[name], len(catalog.by_category[name])) for name in categories(catalog)]
    statuses = {"verified": sum(entry.status == "verified" for entry in catalog.entries), "checked": len(checks)}
    markdown = render_template("home.md.j2", catalog=catalog, counts=counts, hubs=hubs, statuses=statuses)
    return Page("index.md", markdown)


def render_site(
    catalog: Catalog,
    hubs: Sequence[Hub] = (),
    options: SiteOptions | None = None,
    checks: Mapping[str, Checked] | None = None,
) -> list[Page]:
    """Return every generated page, sorted by path (``checks``: what verify found, per signature)."""
    options = options or SiteOptions()
    checks = checks or {}
    around = neighbours(catalog)
    pages = [render_home(catalog, hubs, checks), render_tag_index(catalog), render_compare_index(list(hubs))]
    pages += [render_category(name, catalog) for name in categories(catalog)]
    compared = hubs_by_record(hubs)
    pages += [render_entry(entry, catalog, options, around, checks, compared) for entry in catalog.entries]
    pages += [render_tag(tag, entries) for tag, entries in catalog.by_tag.items()]
    pages += [render_hub(hub, catalog) for hub in hubs]
    pages += reference_pages(catalog)
    pages.append(render_diagnose_page())
    return sorted(pages, key=lambda page: page.path)


def render_diagnose_page() -> Page:
    """Return the paste-your-log page (its form lives in the theme template diagnose.html)."""
    meta = front_matter(
        "Diagnose a log",
        "Paste a training log: it is matched in your browser, nothing is uploaded.",
        template="diagnose.html",
    )
    return Page("diagnose.md", render_template("diagnose.md.j2", meta=meta))


def reference_pages(catalog: Catalog) -> list[Page]:
    """Return the field reference and the guides."""
    return [
        render_field_reference(),
        render_static(
            "reference/writing", "How records are written and reviewed", "What a record contains and checks."
        ),
        render_static(
            "reference/elsewhere",
            "Use the signatures elsewhere",
            "Export the signature library for grep, ripgrep, Loki, Sigma and Elasticsearch.",
            version=read_lock()["version"],
            count=len(catalog.signatures),
        ),
    ]
