"""Print the mutation score per module from mutmut's results (mutants/**/*.py.meta).

Killed, timed-out and crashed mutants count as caught; survivors and mutants no test
reaches count against the score; mutants not checked yet are reported apart.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

CAUGHT = {1, 3, 36, 37, -24, 24, 152, 255, -11, -9}
SURVIVED = {0, 5, 33}


def tally(meta: Path) -> tuple[int, int, int, list[str]]:
    """Return (caught, counted, not yet checked, surviving mutant names) of one module's results."""
    codes = json.loads(meta.read_text(encoding="utf-8"))["exit_code_by_key"]
    caught = sum(code in CAUGHT for code in codes.values())
    unchecked = sum(code is None for code in codes.values())
    survivors = sorted(name for name, code in codes.items() if code in SURVIVED)
    return caught, caught + len(survivors), unchecked, survivors


def main(root: Path = Path("mutants")) -> int:
    """Print one line per module and the total; list survivors with -v."""
    total_caught = total = 0
    for meta in sorted(root.rglob("*.py.meta")):
        caught, counted, unchecked, survivors = tally(meta)
        if not counted:
            continue
        module = meta.relative_to(root).as_posix().removesuffix(".meta")
        pending = f"  ({unchecked} not checked yet)" if unchecked else ""
        print(f"{module:42} {caught:4}/{counted:<4} {100 * caught / counted:5.1f}%{pending}")
        if "-v" in sys.argv:
            print("".join(f"    survived: {name}\n" for name in survivors), end="")
        total_caught, total = total_caught + caught, total + counted
    if total:
        print(f"{'total':42} {total_caught:4}/{total:<4} {100 * total_caught / total:5.1f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
