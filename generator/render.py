"""Render the catalog to Markdown pages (strings only; nothing is written to disk)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

import jinja2

from generator.markup import fence, front_matter, inline, prose, safe_url
from generator.model import CATEGORY_ORDER, Catalog, Entry

STACK_LABELS = {
    "pytorch": "PyTorch",
    "hf-trainer": "HF Trainer",
    "accelerate": "Accelerate",
    "deepspeed": "DeepSpeed",
    "megatron": "Megatron-LM",
    "vllm": "vLLM",
    "shell": "Shell",
    "slurm": "Slurm",
    "kubernetes": "Kubernetes",
}
CATEGORY_TITLES = {
    "communication": "Communication",
    "launcher": "Launcher and rendezvous",
    "memory": "Memory",
    "hardware": "Hardware",
    "numerical": "Numerical",
    "data": "Data and user code",
    "compilation": "Compilation",
    "checkpoint": "Checkpoint",
    "sharding": "FSDP and DeepSpeed",
    "performance": "Performance",
}


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


@dataclass(frozen=True)
class Page:
    """One generated Markdown page, addressed by its path under the docs directory."""

    path: str
    markdown: str


@dataclass(frozen=True)
class SiteOptions:
    """Settings that change page text: where a record's YAML can be edited."""

    edit_url: str = ""


@cache
def environment() -> jinja2.Environment:
    """Return the Jinja environment; record text only ever arrives as variables."""
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("generator", "templates"),
        autoescape=False,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(inline=inline, prose=prose, fence=fence, url=safe_url)
    env.globals.update(stack_label=STACK_LABELS.get, category_title=CATEGORY_TITLES.get)
    return env


def render_template(name: str, **context: Any) -> str:
    """Return a rendered template."""
    return environment().get_template(name).render(**context)


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


def render_entry(entry: Entry, catalog: Catalog, options: SiteOptions, around: Neighbours) -> Page:
    """Return the page of one entry."""
    before, after = around[entry.id]
    markdown = render_template(
        "entry.md.j2",
        meta=front_matter(entry.title, entry.summary),
        e={**OPTIONAL_FIELDS, **entry.data},
        entry=entry,
        catalog=catalog,
        tabs=code_tabs(entry),
        before=before,
        after=after,
        edit=edit_link(entry, options),
    )
    return Page(entry_path(entry.id), markdown)


def render_category(category: str, catalog: Catalog) -> Page:
    """Return the page listing one category's entries."""
    title = CATEGORY_TITLES.get(category, category)
    entries = catalog.by_category.get(category, ())
    markdown = render_template(
        "category.md.j2", meta=front_matter(title, f"{len(entries)} failures: {title}"), title=title, entries=entries
    )
    return Page(category_path(category), markdown)


def categories(catalog: Catalog) -> list[str]:
    """Return the categories that have entries, in the fixed order."""
    return [name for name in CATEGORY_ORDER if name in catalog.by_category]


def render_home(catalog: Catalog) -> Page:
    """Return the home page."""
    counts = [(name, CATEGORY_TITLES[name], len(catalog.by_category[name])) for name in categories(catalog)]
    markdown = render_template("home.md.j2", catalog=catalog, counts=counts)
    return Page("index.md", markdown)


def render_site(catalog: Catalog, options: SiteOptions = SiteOptions()) -> list[Page]:
    """Return every generated page, sorted by path."""
    pages = [render_home(catalog)]
    pages.extend(render_category(name, catalog) for name in categories(catalog))
    around = neighbours(catalog)
    pages.extend(render_entry(entry, catalog, options, around) for entry in catalog.entries)
    return sorted(pages, key=lambda page: page.path)
