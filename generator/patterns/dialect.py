"""The portable regex dialect: what RE2, Python ``re`` and JavaScript agree on.

Patterns are compiled with RE2 only (linear time, no catastrophic backtracking); Python's
``re`` is used just to confirm the syntax means the same there, never to scan logs.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import re2

from generator.patterns.normalize import normalize_line

# Constructs that one of the three engines lacks or reads differently.
FORBIDDEN = (
    (re.compile(r"\(\?[=!]|\(\?<[=!]"), "lookaround is not portable"),
    (re.compile(r"\\[1-9]|\\k<|\(\?P="), "backreferences are not portable"),
    (re.compile(r"\(\?P?<[A-Za-z_]"), "named groups are not portable; use plain groups"),
    (re.compile(r"\(\?[a-zA-Z]+[:)]"), "inline flags are not portable; use the flags field"),
    (re.compile(r"\\[AZzG]"), "\\A, \\Z, \\z and \\G differ between engines"),
    (
        re.compile(r"(?<![\\[])\^"),
        "^ is not allowed: patterns match anywhere in a line, whose prefixes differ between tools",
    ),
    (re.compile(r"(?<!\\)\$(?!\)*\Z)"), "$ is allowed only at the very end of a pattern"),
    (re.compile(r"[*+?}]\+|\(\?>"), "possessive and atomic constructs are not portable"),
    (re.compile(r"\[\[:|\[=|\[\."), "POSIX bracket classes are not portable"),
    (re.compile(r"(?<!\\)\[\^?\]"), "a class starting with ] differs in JavaScript; write \\] inside the class"),
    (re.compile(r"\\[0-9]{2,}|\\0"), "octal escapes are not portable"),
)

# Shapes that backtracking engines (a JavaScript page) run in exponential time.
SLOW = (
    (
        re.compile(r"\((?:[^()\\]|\\.)*[*+](?:[^()\\]|\\.)*\)[*+{]"),
        "nested quantifier (a+)+ can backtrack exponentially",
    ),
    (re.compile(r"^\.\*|^\.\+"), "a leading .* makes every attempt scan the rest of the line"),
    (
        re.compile(r"^\(?(?:\?:)?(?:\[(?:\\.|[^\]])*\]|\\[sSwWdD])(?:[+*]|\{[0-9]+,\})"),
        "a leading repeated class is quadratic in backtracking engines; one class matches the same lines",
    ),
)

# Escapes with the same meaning in all three engines.
SAFE_ESCAPES = set("dDsSwWtnrfvbB")
# Escapes that FORBIDDEN already explains.
EXPLAINED_ESCAPES = set("AZzG0123456789k") | set(r"\.^$|?*+()[]{}/-:#<>=!,'\"&%@~`_ ;")


@dataclass(frozen=True)
class Compiled:
    """A signature pattern compiled for scanning."""

    pattern: str
    ignore_case: bool
    regex: Any

    def search(self, line: str) -> bool:
        """Return True when the pattern matches anywhere in ``line``."""
        # Compiled from the pattern's UTF-8 bytes: the same regex for RE2, and a search over
        # bytes skips the wrapper's character-offset bookkeeping (twice as fast).
        return self.regex.search(line.encode("utf-8", "surrogatepass")) is not None


def dialect_problems(pattern: str) -> list[str]:
    """Return why ``pattern`` is outside the portable dialect (empty when it is inside)."""
    problems = [message for rule, message in FORBIDDEN + SLOW if rule.search(pattern)]
    problems.extend(escape_problems(pattern))
    if not problems:
        problems.extend(compile_problems(pattern))
    return problems


def escape_problems(pattern: str) -> list[str]:
    """Return problems with escapes whose meaning differs between engines."""
    found = []
    for match in re.finditer(r"\\(.)", pattern):
        char = match.group(1)
        if char == "x" or char in SAFE_ESCAPES or char in EXPLAINED_ESCAPES:
            continue
        found.append(f"escape \\{char} is not portable")
    return found


def compile_problems(pattern: str) -> list[str]:
    """Return the compile errors of RE2 and Python ``re`` for ``pattern``."""
    problems: list[str] = []
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            re.compile(pattern)
        problems.extend(f"Python re warns: {warning.message}" for warning in caught)
    except re.error as exc:
        problems.append(f"Python re cannot compile it: {exc}")
    try:
        compile_pattern(pattern)
    except re2.error as exc:
        problems.append(f"RE2 cannot compile it: {engine_text(exc)}")
    return problems


def engine_text(exc: Exception) -> str:
    """Return the engine's own message for a compile error (the wrapper carries it as bytes)."""
    text = exc.args[0] if exc.args else str(exc)
    return text.decode("utf-8", "replace") if isinstance(text, bytes) else str(text)


def compiles(pattern: str, ignore_case: bool = False) -> bool:
    """Return True when RE2 compiles ``pattern``."""
    try:
        compile_pattern(pattern, ignore_case)
    except re2.error:
        return False
    return True


def re2_options(ignore_case: bool) -> Any:
    """Return RE2 options for a signature: UTF-8 text, bounded DFA memory."""
    options = re2.Options()
    options.case_sensitive = not ignore_case
    options.max_mem = 64 << 20
    options.log_errors = False  # a compile error comes back as an Issue; RE2's own log would repeat it raw
    return options


@lru_cache(maxsize=4096)
def compile_pattern(pattern: str, ignore_case: bool = False) -> Compiled:
    """Return the RE2-compiled pattern (raises re2.error when it does not compile)."""
    return Compiled(pattern, ignore_case, re2.compile(pattern.encode("utf-8"), re2_options(ignore_case)))


def signature_matches(compiled: Compiled, raw_line: str) -> bool:
    """Return True when a compiled signature matches one raw log line."""
    return compiled.search(normalize_line(raw_line))


@dataclass(frozen=True)
class PatternSet:
    """Many patterns searched in one pass over a line (RE2::Set), for checks over whole logs."""

    sets: tuple[tuple[Any, tuple[int, ...]], ...]

    def search(self, raw_line: str) -> list[int]:
        """Return the indexes of the patterns that match the normalised line, ascending."""
        data = normalize_line(raw_line).encode("utf-8", "surrogatepass")
        found = [indexes[hit] for regex_set, indexes in self.sets for hit in regex_set.Match(data) or ()]
        return sorted(found)


def compile_set(patterns: Sequence[tuple[str, bool]]) -> PatternSet:
    """Return one RE2 set per case mode over (pattern, ignore_case) pairs that compile."""
    sets = []
    for ignore_case in (False, True):
        regex_set = re2.Set.SearchSet(re2_options(ignore_case))
        indexes = []
        for index, (pattern, mode) in enumerate(patterns):
            if mode == ignore_case:
                regex_set.Add(pattern.encode("utf-8"))
                indexes.append(index)
        if indexes:
            regex_set.Compile()
            sets.append((regex_set, tuple(indexes)))
    return PatternSet(tuple(sets))
