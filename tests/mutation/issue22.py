"""Re-apply the surviving mutants of issue 22, one at a time, and show that a test kills each.

Run from the repository root: ``python -m tests.mutation.issue22``. Each mutant is a text
replacement in one file; the file is restored afterwards whatever happens.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MATCH, VALIDATE = "generator/signatures/match.py", "generator/records/validate.py"
SANITIZE, DIALECT = "generator/site/sanitize.py", "generator/patterns/dialect.py"
TRANSLATE, LIBRARY = "generator/patterns/translate.py", "generator/signatures/library.py"
LOGREAD, NORMALIZE = "generator/diagnosis/logread.py", "generator/patterns/normalize.py"
CORE_JS, CACHE = "overrides/assets/javascripts/failpedia-core.js", "generator/cache.py"
DIAGNOSE = "generator/diagnosis/diagnose.py"

# (name, file, original text, mutated text, tests that must kill it)
MUTANTS = [
    (
        "match: no RE2 confirmation",
        MATCH,
        "if self.regex(sig_index).search(normal):",
        "if True:",
        "tests/test_match.py",
    ),
    (
        "match: slow path off by one line",
        MATCH,
        'enumerate(block.split(b"\\n"))',
        'enumerate(block.split(b"\\n"), 1)',
        "tests/test_match.py",
    ),
    (
        "validate: no duplicate record id",
        VALIDATE,
        "if first is not entry:",
        "if False:",
        "tests/test_catalog_checks.py",
    ),
    (
        "validate: no duplicate signature id",
        VALIDATE,
        "        if len(pairs) > 1\n",
        "        if False\n",
        "tests/test_catalog_checks.py",
    ),
    ("validate: no reserved id", VALIDATE, "if entry.id in RESERVED_IDS:", "if False:", "tests/test_catalog_checks.py"),
    (
        "validate: downstream_of unchecked",
        VALIDATE,
        'for field in ("related", "downstream_of"):',
        'for field in ("related",):',
        "tests/test_catalog_checks.py",
    ),
    (
        "sanitize: on* attributes allowed",
        SANITIZE,
        '"*": COMMON,',
        '"*": COMMON | {"onclick", "onmouseover", "onload", "onerror", "onchange", "onfocus"},',
        "tests/test_sanitize.py",
    ),
    (
        "sanitize: javascript: and data: URLs",
        SANITIZE,
        '"url_schemes": {"http", "https"},',
        '"url_schemes": {"http", "https", "javascript", "data"},',
        "tests/test_sanitize.py",
    ),
    (
        "dialect: no nested-quantifier rule",
        DIALECT,
        'r"\\((?:[^()\\\\]|\\\\.)*[*+](?:[^()\\\\]|\\\\.)*\\)[*+{]"',
        'r"(?!)"',
        "tests/test_oracles.py",
    ),
    (
        "translate: ERE \\d unchanged",
        TRANSLATE,
        '"d": "[0-9]",\n    "D": "[^0-9]",\n    "s": "[[:space:]]"',
        '"d": "\\\\d",\n    "D": "[^0-9]",\n    "s": "[[:space:]]"',
        "tests/test_oracles.py",
    ),
    (
        "translate: ERE classes not case-folded",
        TRANSLATE,
        "for extra in other_case(member)]",
        "for extra in []]",
        "tests/test_oracles.py",
    ),
    (
        "library: new signature is a patch",
        LIBRARY,
        'if set(new) - set(old):\n        return "minor"',
        'if set(new) - set(old):\n        return "patch"',
        "tests/test_library.py",
    ),
    (
        "library: new_lock keeps the version",
        LIBRARY,
        '"version": bumped(lock["version"], required_bump(lock, catalog)),',
        '"version": lock["version"],',
        "tests/test_library.py",
    ),
    (
        "logread: second gzip member dropped",
        LOGREAD,
        "data, decoder = decoder.unused_data + data, zlib.decompressobj(16 + zlib.MAX_WBITS)",
        "return",
        "tests/test_logread.py",
    ),
    (
        "logread: CR counted as a line break",
        LOGREAD,
        'return line_no + block.count(b"\\n")',
        'return line_no + block.count(b"\\n") + block.count(b"\\r")',
        "tests/test_logread.py",
    ),
    (
        "logread: carried line not counted",
        LOGREAD,
        "line_no = checked(source, head, line_no)",
        "checked(source, head, line_no)",
        "tests/test_logread.py",
    ),
    ("normalize: re.ASCII dropped", NORMALIZE, "    re.ASCII,\n)", "    0,\n)", "tests/test_js_core.py"),
    (
        "normalize (JS): trailing strip of space and tab only",
        CORE_JS,
        "var TRAILING = /[ \\t\\r\\n\\f\\v]+$/;",
        "var TRAILING = /[ \\t]+$/;",
        "tests/test_js_core.py",
    ),
    (
        "cache: failed validation stored",
        CACHE,
        "    if loaded.ok:\n        store_records",
        "    if True:\n        store_records",
        "tests/test_cache.py",
    ),
    (
        "diagnose: ranking ignores timestamps",
        DIAGNOSE,
        '-f.score, f.first.timestamp or "~", f.first.order',
        "-f.score, f.first.order",
        "tests/test_ranking.py",
    ),
]


def passes(*tests: str) -> bool:
    """Return True when the tests pass, with a fresh cache."""
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "FAILPEDIA_CACHE_DIR": cache, "PYTHONPATH": str(ROOT)}
        command = [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", *tests]
        return subprocess.run(command, cwd=ROOT, env=env, capture_output=True).returncode == 0


def killed(path: Path, original: str, mutated: str, tests: str) -> bool:
    """Return True when ``tests`` fail with the mutant in place (the file is restored)."""
    text = path.read_text(encoding="utf-8")
    if text.count(original) != 1:
        raise SystemExit(f"{path}: the original text is not there exactly once: {original!r}")
    path.write_text(text.replace(original, mutated), encoding="utf-8")
    try:
        return not passes(tests)
    finally:
        path.write_text(text, encoding="utf-8")


def main() -> int:
    """Print one verdict per mutant; exit 1 when any survives (or the tests fail unmutated)."""
    if not passes(*sorted({tests for *_, tests in MUTANTS})):
        print("the tests fail without any mutant: fix them first")
        return 1
    survivors = 0
    for name, file, original, mutated, tests in MUTANTS:
        verdict = killed(ROOT / file, original, mutated, tests)
        survivors += not verdict
        print(f"{'killed  ' if verdict else 'SURVIVED'} {name} ({tests})", flush=True)
    print(f"{len(MUTANTS) - survivors} of {len(MUTANTS)} killed")
    return 1 if survivors else 0


if __name__ == "__main__":
    sys.exit(main())
