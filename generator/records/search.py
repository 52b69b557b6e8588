"""Offline search over the catalog, ranked the way the site search ranks pages.

The site's search (lunr, in the theme) splits text with the separator set in mkdocs.yml,
searches every query word as a prefix too, and scores matches by BM25 with the title
weighted above the body. ``failpedia search`` does the same over the records' fields, so a
pasted log line or a short query ("Xid 79", "OOM") finds the same record in a terminal.
"""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from generator.records.model import Catalog, Entry

# The search plugin's separator, verbatim from mkdocs.yml (tests/test_search.py holds them
# equal). Python's look-behind takes one width at a time, so its one alternation of two
# widths becomes two look-behinds, which reads the same.
SITE_SEPARATOR = (
    r"""[\s\-,:!=\[\]()"`/\u2060]+|\.(?!\d)|&[lg]t;|(?!\b)(?=[A-Z][a-z])"""
    r"""|(?<![A-Za-z0-9]|\d\.)(?:[A-Za-z]|(?<![Ee]rror[ \u2060])[0-9])(?![A-Za-z0-9]|\.\d)"""
)
# One difference: a lone digit stays a word. The site drops it (but after "error") because it
# searches every word as a prefix and "2*" would match every number; here a lone digit matches
# only itself, so "NCCL error 2" and "rank 3" keep their numbers.
SEPARATOR = re.compile(
    SITE_SEPARATOR.replace(
        r"(?<![A-Za-z0-9]|\d\.)(?:[A-Za-z]|(?<![Ee]rror[ \u2060])[0-9])", r"(?<![A-Za-z0-9])(?<!\d\.)[A-Za-z]"
    )
)
FIELD_BOOST = {"title": 10.0, "tags": 5.0, "lines": 2.0, "body": 1.0}
PREFIX_WEIGHT = 0.5  # a word the query word only begins counts half an exact one
# Two query words side by side in a field count again as one term ("bus error" over "bus"):
# lunr has no phrases, but a pasted line's words come in the record's order.
K1, B = 1.2, 0.75  # lunr's BM25 parameters


def tokens(text: str) -> list[str]:
    """Return the lowercase words of ``text`` as the site's search splits them."""
    return [word.lower() for word in SEPARATOR.split(text) if word]


def terms(words: list[str]) -> list[str]:
    """Return the words and each pair of neighbouring words (joined by a space)."""
    return [*words, *(f"{a} {b}" for a, b in itertools.pairwise(words))]


def texts(value: Any) -> Iterator[str]:
    """Yield every string inside a record value (mappings and lists walked in order)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from texts(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from texts(item)


def fields(entry: Entry) -> dict[str, list[str]]:
    """Return the words of a record's searchable fields: title, tags and id, log lines, the rest."""
    data = entry.data
    lines = [line for sig in entry.signatures for line in sig.match]
    body_keys = ("summary", "symptoms", "observations", "mechanism", "causes", "confirm", "fix", "faq", "nccl")
    return {
        "title": tokens(entry.title),
        "tags": tokens(" ".join([entry.id, *data.get("tags", [])])),
        "lines": tokens(" ".join(lines)),
        "body": tokens(" ".join(t for key in body_keys for t in texts(data.get(key)))),
    }


@dataclass(frozen=True)
class SearchIndex:
    """Per term, where it occurs (record, field, count); per record and field, its length."""

    postings: dict[str, list[tuple[str, str, int]]]
    lengths: dict[tuple[str, str], int]
    average: dict[str, float]


def search_index(catalog: Catalog) -> SearchIndex:
    """Return the index of every record."""
    postings: dict[str, list[tuple[str, str, int]]] = {}
    lengths: dict[tuple[str, str], int] = {}
    for entry in catalog.entries:
        for name, words in fields(entry).items():
            lengths[entry.id, name] = len(words)
            for term, count in Counter(terms(words)).items():
                postings.setdefault(term, []).append((entry.id, name, count))
    total = max(len(catalog.entries), 1)
    average = {name: max(sum(n for (_, f), n in lengths.items() if f == name) / total, 1.0) for name in FIELD_BOOST}
    return SearchIndex(postings, lengths, average)


def expansions(index: SearchIndex, word: str) -> dict[str, float]:
    """Return the indexed terms a query term stands for: itself, and words it begins (at half weight)."""
    prefix = not word.isdigit() and " " not in word  # lone digits and word pairs match only exactly
    found = {t: PREFIX_WEIGHT for t in index.postings if prefix and t.startswith(word) and t != word and " " not in t}
    if word in index.postings:
        found[word] = 1.0
    return found


def idf(index: SearchIndex, term: str, total: int) -> float:
    """Return BM25's inverse document frequency of a term over the records."""
    having = len({entry_id for entry_id, _, _ in index.postings[term]})
    return math.log(1 + (total - having + 0.5) / (having + 0.5))


def search(catalog: Catalog, query: str, index: SearchIndex | None = None) -> list[tuple[Entry, float]]:
    """Return the records that match ``query``, best first (ties by id), with their scores."""
    index = index or search_index(catalog)
    scores: dict[str, float] = {}
    for word in dict.fromkeys(terms(tokens(query))):
        for term, weight in expansions(index, word).items():
            rarity = idf(index, term, len(catalog.entries))
            for entry_id, name, tf in index.postings[term]:
                norm = 1 - B + B * index.lengths[entry_id, name] / index.average[name]
                gain = weight * FIELD_BOOST[name] * rarity * tf * (K1 + 1) / (tf + K1 * norm)
                scores[entry_id] = scores.get(entry_id, 0.0) + gain
    ranked = sorted((entry_id for entry_id, s in scores.items() if s > 0), key=lambda e: (-scores[e], e))
    return [(catalog.by_id[entry_id], round(scores[entry_id], 3)) for entry_id in ranked]


def listed(entries: Iterable[Entry], tag: str | None, category: str | None) -> list[Entry]:
    """Return the records with the tag and in the category asked for (all when not asked), by id."""
    chosen = [e for e in entries if (tag is None or tag in e.data.get("tags", [])) and (category in (None, e.category))]
    return sorted(chosen, key=lambda e: e.id)
