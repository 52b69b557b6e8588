"""Format one record for the terminal."""

from __future__ import annotations

import difflib
import textwrap
import unicodedata
from collections.abc import Iterable

from generator.model import Entry

BOLD, DIM, RESET = "\x1b[1m", "\x1b[2m", "\x1b[0m"
WIDTH = 88


def printable(text: str) -> str:
    """Return ``text`` with control characters shown as escapes, safe for a terminal."""
    return "".join(
        ch if ch in "\n\t" or unicodedata.category(ch) not in ("Cc", "Cf") else f"\\x{ord(ch):02x}" for ch in text
    )


def closest_ids(wanted: str, ids: Iterable[str]) -> list[str]:
    """Return up to five ids that look like ``wanted``."""
    return difflib.get_close_matches(wanted, sorted(ids), n=5, cutoff=0.5)


def wrap(text: str, indent: str = "  ") -> str:
    """Return ``text`` wrapped to the terminal width."""
    return textwrap.fill(" ".join(text.split()), WIDTH, initial_indent=indent, subsequent_indent=indent)


def heading(text: str, color: bool) -> str:
    """Return a section heading."""
    return f"{BOLD}{text}{RESET}" if color else text.upper()


def section(title: str, lines: list[str], color: bool) -> list[str]:
    """Return a heading followed by its lines and a blank line."""
    return [heading(title, color), *lines, ""] if lines else []


def explain_text(entry: Entry, color: bool = False) -> str:
    """Return the record as terminal text, with ANSI styling when ``color``."""
    e = entry.data
    title = f"{BOLD}{entry.title}{RESET}" if color else entry.title
    out = [title, wrap(entry.summary), ""]
    out += section("Symptoms", [wrap(f"- {s['signal']}: {s['meaning']}") for s in e["symptoms"]], color)
    out += section("Root causes", [wrap(f"{i}. {c['title']}: {c['detail']}") for i, c in enumerate(e["causes"], 1)], color)
    out += section("Confirm", [wrap(f"[ ] {item}") for item in e["confirm"]], color)
    out += section("Fix", fix_lines(entry), color)
    out += section("Fingerprints", [f"  {sig.id}: {sig.pattern}" for sig in entry.signatures], color)
    out += section("References", [f"  {r['title']} <{r['url']}>" for r in e["references"]], color)
    footer = f"entries/{entry.id}/ · {entry.path}"
    out.append(f"{DIM}{footer}{RESET}" if color else footer)
    return printable("\n".join(out))


def fix_lines(entry: Entry) -> list[str]:
    """Return the numbered fix steps with their commands, and the verification."""
    fix = entry.data["fix"]
    lines = []
    for number, step in enumerate(fix["steps"], 1):
        lines.append(wrap(f"{number}. {step['text']}"))
        if step.get("command"):
            lines.extend(f"      {line}" for line in step["command"].rstrip().splitlines())
    lines.append(wrap(f"Verify: {fix['verify']}"))
    return lines
