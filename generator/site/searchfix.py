"""A fix to the theme's search worker, applied to the built site.

The worker bundles lunr 2.3.9, whose word automaton (TokenSet) merges states whose keys are
equal; a state's key is its edge labels and child ids written one after the other, so a digit
label followed by an id can spell another state's key ("a1" + "23" and "a12" + "3"). Two
different states then merge and a prefix query expands to words that are not in the index,
and lunr throws: the search box shows nothing for "Pytorch" once the catalog's words fall
that way. Ending each id with a comma makes the keys unambiguous (a label is one character).
"""

from __future__ import annotations

from pathlib import Path

from generator.records.errors import GeneratorError

AMBIGUOUS_KEY = b"e=e+s+o.id}return e}"
UNAMBIGUOUS_KEY = b'e=e+s+o.id+","}return e}'


def fix_search_worker(site_dir: Path) -> None:
    """Rewrite the theme's search worker in ``site_dir`` with unambiguous automaton keys."""
    workers = sorted((site_dir / "assets" / "javascripts" / "workers").glob("search.*.min.js"))
    if not workers:
        raise GeneratorError(f"no search worker in {site_dir}/assets/javascripts/workers/")
    for worker in workers:
        code = worker.read_bytes()
        if UNAMBIGUOUS_KEY in code:
            continue
        if code.count(AMBIGUOUS_KEY) != 1:
            raise GeneratorError(f"{worker.name}: the theme's lunr changed; review generator/site/searchfix.py")
        worker.write_bytes(code.replace(AMBIGUOUS_KEY, UNAMBIGUOUS_KEY))
