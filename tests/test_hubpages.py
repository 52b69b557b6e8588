"""Comparison hubs as pages: the record column first, filter hints from the hub's own rows,
row anchors that entry pages link to, and a Related section that names each record once."""

from __future__ import annotations

from pathlib import Path

from generator.records.model import freeze
from generator.records.pipeline import load_catalog
from generator.site.hubpages import filter_hint, headers, hub_rows, hubs_by_record
from generator.site.hubs import Hub, load_hubs
from generator.site.render import render_site

ROOT = Path(__file__).resolve().parent.parent
CATALOG = load_catalog([ROOT / "entries"], ROOT).catalog
HUBS, HUB_ISSUES = load_hubs([ROOT / "hubs"], CATALOG, ROOT)
PAGES = {page.path: page.markdown for page in render_site(CATALOG, HUBS)}
OLD_HINT = "Filter rows (e.g. socket, 2.18, NCCL_SOCKET_IFNAME)"


def small_hub(rows: list[dict[str, object]]) -> Hub:
    columns = [
        {"key": "code", "title": "Code"},
        {"key": "name", "title": "Name", "code": True},
        {"key": "tell", "title": "Tell"},
        {"key": "record", "title": "Record", "from_record": "link"},
    ]
    sections = [{"title": "All", "rows": rows}]
    return Hub("small", "Small: a test hub", "s", freeze(columns), freeze(sections), (), "hubs/small.yaml")


def test_the_filter_hint_takes_one_word_from_the_first_middle_and_last_rows() -> None:
    hub = small_hub(
        [
            {"cells": {"code": "1", "name": "ncclFirst", "tell": "set `NCCL_A=1` first"}},
            {"cells": {"code": "2", "name": "two words", "tell": "check `NCCL_B`"}},
            {"cells": {"code": "3", "name": "ncclFirst", "tell": "`ncclLast` then `x`"}},
        ]
    )
    # Numbers alone, several words and repeats are left out; spans count as words.
    assert filter_hint(hub) == "Filter rows (e.g. ncclFirst, NCCL_B, ncclLast)"
    assert filter_hint(small_hub([{"cells": {"code": "7", "tell": "plain prose"}}])) == "Filter rows"


def test_the_record_column_comes_first_and_a_row_without_a_record_is_labelled() -> None:
    hub = small_hub([{"cells": {"code": "7", "name": "ncclInProgress"}}])
    assert [h["title"] for h in headers(hub)] == ["Record", "Code", "Name", "Tell"]
    (section,) = hub_rows(hub, CATALOG)
    assert section["rows"] == [
        {
            "id": "",
            "cells": [
                '<span class="fp-no-record">Code 7</span>',
                "7",
                '<code class="fp-word">ncclInProgress</code>',
                "",
            ],
        }
    ]


def test_every_hub_has_its_own_hint_and_puts_its_record_links_first() -> None:
    assert HUB_ISSUES == [] and [hub.id for hub in HUBS] == ["checkpoint", "cublas-cudnn", "launcher", "nccl", "xid"]
    hints = [filter_hint(hub) for hub in HUBS]
    assert len(set(hints)) == len(HUBS) and OLD_HINT not in hints
    for hub, hint in zip(HUBS, hints, strict=True):
        page = PAGES[f"compare/{hub.id}.md"]
        assert f'data-hint="{hint}"' in page
        first = next(column for column in hub.columns if column.get("from_record") == "link")
        assert headers(hub)[0]["title"] == first["title"]
        for word in hint.removeprefix("Filter rows (e.g. ").removesuffix(")").split(", "):
            assert word in page, (hub.id, word)


def test_every_entry_in_a_hub_links_to_its_row_and_the_row_exists_once() -> None:
    links = hubs_by_record(HUBS)
    assert sorted(links) == sorted({entry_id for hub in HUBS for entry_id in hub.records()})
    for entry_id, hubs in links.items():
        page = PAGES[f"entries/{entry_id}.md"]
        for hub in hubs:
            assert f'<a href="{hub["href"]}">' in page
            hub_id = hub["href"].split("/")[3]
            assert PAGES[f"compare/{hub_id}.md"].count(f'id="record-{entry_id}"') == 1
    outside = [entry.id for entry in CATALOG.entries if entry.id not in links]
    assert outside and all("fp-compared" not in PAGES[f"entries/{entry_id}.md"] for entry_id in outside)


def test_related_names_each_record_once() -> None:
    # nccl-system-error follows nccl-remote-error (the note at the top), lists it as related
    # and as easily confused: the page used to link it three times.
    entry = CATALOG.by_id["nccl-system-error"]
    assert "nccl-remote-error" in entry.downstream_of and "nccl-remote-error" in entry.related
    assert "nccl-remote-error" in {item["id"] for item in entry.get("confused_with", ())}
    related = PAGES["entries/nccl-system-error.md"].split("\n## Related\n", 1)[1].split("\n## ", 1)[0]
    assert related.count("](nccl-remote-error.md)") == 1
    pages = [PAGES[f"entries/{entry.id}.md"] for entry in CATALOG.entries]
    with_related = [page for page in pages if "\n## Related\n" in page]
    assert len(with_related) > 40
    for page in with_related:
        section = page.split("\n## Related\n", 1)[1].split("\n## ", 1)[0]
        targets = [line.split("](", 1)[1].split(")", 1)[0] for line in section.splitlines() if "](" in line]
        assert targets and len(targets) == len(set(targets)), section
