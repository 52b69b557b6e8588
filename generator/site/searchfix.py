"""Two fixes to the theme's search worker, applied to the built site.

Unambiguous automaton keys. The worker bundles lunr 2.3.9, whose word automaton (TokenSet)
merges states whose keys are equal; a state's key is its edge labels and child ids written
one after the other, so a digit label followed by an id can spell another state's key ("a1"
+ "23" and "a12" + "3"). Two different states then merge and a prefix query expands to words
that are not in the index, and lunr throws: the search box shows nothing for "Pytorch" once
the catalog's words fall that way. Ending each id with a comma makes the keys unambiguous (a
label is one character).

Whole words first. The theme searches each query word as a prefix only ("no" as "no*"), so
"no kernel image" found the record whose short name holds "norm" before the one that says
"no kernel image". Each word is also searched whole, ten times as heavy: a page holding the
word itself outranks one holding only longer words that begin with it.
"""

from __future__ import annotations

from pathlib import Path

from generator.records.errors import GeneratorError

AMBIGUOUS_KEY = b"e=e+s+o.id}return e}"
UNAMBIGUOUS_KEY = b'e=e+s+o.id+","}return e}'
PREFIX_ONLY = b"?r:`${r}*`)"
WHOLE_WORD_FIRST = b"?r:`${r}^10 ${r}*`)"
PATCHES = ((AMBIGUOUS_KEY, UNAMBIGUOUS_KEY), (PREFIX_ONLY, WHOLE_WORD_FIRST))


def fix_search_worker(site_dir: Path) -> None:
    """Rewrite the theme's search worker in ``site_dir`` with both fixes (once)."""
    workers = sorted((site_dir / "assets" / "javascripts" / "workers").glob("search.*.min.js"))
    if not workers:
        raise GeneratorError(f"no search worker in {site_dir}/assets/javascripts/workers/")
    for worker in workers:
        code = worker.read_bytes()
        for before, after in PATCHES:
            if after in code:
                continue
            if code.count(before) != 1:
                raise GeneratorError(f"{worker.name}: the theme's lunr changed; review generator/site/searchfix.py")
            code = code.replace(before, after)
        worker.write_bytes(code)
