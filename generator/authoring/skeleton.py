"""Write a schema-valid skeleton record for ``failpedia new``."""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

import jinja2

from generator.patterns.dialect import compile_pattern, dialect_problems
from generator.patterns.normalize import normalize_line, strip_ansi

ID_RE = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*\Z")


def skeleton_path(entries: Path, entry_id: str, category: str) -> Path | None:
    """Return where the record goes, or None when the id is not a valid slug."""
    if not ID_RE.match(entry_id) or len(entry_id) > 64:
        return None
    return entries / category / f"{entry_id}.yaml"


# Lines from a log keep their provenance: the thread it was posted in is for the author to give.
LOG_THREAD = "https://example.org/TODO-the-public-thread-where-this-log-was-posted"


def skeleton_text(entry_id: str, category: str, pattern: str = "", matches: tuple[str, ...] = ()) -> str:
    """Return the YAML text of a new record, with the schema modeline for editors."""
    signature = {
        "pattern": json.dumps(pattern or "TODO replace with the error message"),
        "matches": [json.dumps(line) for line in matches]
        or [json.dumps("TODO replace with the error message, copied from a real log")],
        "thread": LOG_THREAD if matches else "",
    }
    return skeleton_template().render(id=entry_id, category=category, sig=signature)


@cache
def skeleton_template() -> jinja2.Template:
    """Return the record skeleton's template, kept beside this module (it is YAML, not a page)."""
    source = Path(__file__).with_name("skeleton.yaml.j2").read_text(encoding="utf-8")
    env = jinja2.Environment(
        undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True
    )
    return env.from_string(source)


# What makes a line look like the error itself rather than context around it.
ERROR_WORDS = re.compile(r"(?i)\b(error|exception|failed|failure|fatal|abort|killed|timed? ?out|assert)")
CLASS_NAME = re.compile(r"\b[A-Z][A-Za-z]*(Error|Exception)\b")
# Variable parts of a line, most specific first: addresses, paths, numbers.
VARIABLE = re.compile(r"(?P<hex>0x[0-9a-fA-F]+)|(?P<path>(?<![\w/])/[\w./-]+)|(?P<num>\d+(?:\.\d+)*)")
GENERAL = {"hex": "0x[0-9a-fA-F]+", "path": "[^ ]+", "num": "[0-9.]+"}


def error_score(line: str) -> int:
    """Return how much a normalised line looks like an error message."""
    return 3 * len(CLASS_NAME.findall(line)) + len(ERROR_WORDS.findall(line)) - (len(line) > 300)


def literal_pattern(text: str) -> str:
    """Return ``text`` as a regex that matches it literally (spaces left readable)."""
    return re.escape(text).replace("\\ ", " ")


def generalised(line: str) -> str:
    """Return a portable pattern for a line: literal text, numbers, addresses and paths generalised."""
    text = line[:200]
    parts = []
    last = 0
    for match in VARIABLE.finditer(text):
        parts.append(literal_pattern(text[last : match.start()]))
        parts.append(GENERAL[match.lastgroup or "num"])
        last = match.end()
    parts.append(literal_pattern(text[last:]))
    return "".join(parts).strip()


def propose_signature(lines: list[str], key: str | None = None) -> tuple[str, list[str]] | None:
    """Return (pattern, example lines) from the key line (triage's), else the most error-like line, or None."""
    normalised = [(normalize_line(line), line) for line in lines if line.strip()]
    candidates = [(error_score(norm), -index, norm, raw) for index, (norm, raw) in enumerate(normalised) if norm]
    if key is not None and normalize_line(key):
        candidates = [(1, 0, normalize_line(key), key)]
    if not candidates or max(candidates)[0] <= 0:
        return None
    _, _, norm, raw = max(candidates)
    pattern = generalised(norm)
    if dialect_problems(pattern):
        pattern = literal_pattern(norm[:120])
    compiled = compile_pattern(pattern)
    examples = [strip_ansi(line) for line in lines if line.strip() and compiled.search(normalize_line(line))][:5]
    return pattern, examples or [strip_ansi(raw)]
