"""What every command shares: exit codes, escaping and printing diagnostics, the catalog that answers."""

from __future__ import annotations

import argparse
import json
import sys
import unicodedata
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from generator.records.errors import Issue
    from generator.records.model import Catalog
    from generator.records.pipeline import Loaded
    from generator.signatures.match import Matcher

ENTRIES_DIR = "entries"


EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE = 0, 1, 2


PROGRESS_THRESHOLD = 50_000_000


UNSEEN = frozenset({"Cc", "Cf", "Zl", "Zp"})  # categories a printed diagnostic shows as escapes


def escaped(text: str) -> str:
    """Return ``text`` with line breaks, controls and invisible format characters as escapes.

    A file name may hold any of them; printed raw they would split a ``file:line:col`` line
    or reorder it on screen (U+202E).
    """
    return "".join(escape_sequence(ch) if unicodedata.category(ch) in UNSEEN else ch for ch in text)


def escape_sequence(char: str) -> str:
    """Return the Python-style escape of one character (\\x0a, \\u202e, \\U000e0041)."""
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def github_line(issue: Issue) -> str:
    """Return an issue as a GitHub Actions workflow command (an inline annotation)."""
    loc = issue.location
    path = escaped(loc.path).replace("%", "%25").replace(":", "%3A").replace(",", "%2C")
    where = f"file={path},line={max(loc.line, 1)},col={max(loc.col, 1)}"
    text = escaped(f"{issue.pointer}: {issue.message}" if issue.pointer else issue.message)
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return f"::{issue.severity} {where},title={issue.code}::{text}"


def issue_json(issue: Issue) -> dict[str, object]:
    """Return an issue as a JSON-ready dict."""
    loc = issue.location
    return {
        "file": loc.path,
        "line": loc.line,
        "col": loc.col,
        "pointer": issue.pointer,
        "code": issue.code,
        "severity": issue.severity,
        "message": issue.message,
    }


def print_issues(issues: Sequence[Issue], fmt: str) -> None:
    """Print issues in the chosen format."""
    if fmt == "json":
        print(json.dumps({"issues": [issue_json(i) for i in issues]}, indent=2, sort_keys=True))
        return
    for issue in issues:
        print(github_line(issue) if fmt == "github" else escaped(str(issue)))


def load_or_report() -> Loaded | None:
    """Return the loaded catalog of entries/, or None after saying it is missing."""
    from generator.records.pipeline import load_catalog

    if not Path(ENTRIES_DIR).exists():
        print(f"failpedia: no such file or directory: {ENTRIES_DIR}", file=sys.stderr)
        return None
    return load_catalog([Path(ENTRIES_DIR)], Path.cwd())


def answering(args: argparse.Namespace, with_matcher: bool) -> tuple[str, Catalog, Matcher | None] | None:
    """Return (which catalog answers, its catalog, its matcher when asked), or None after saying why not."""
    from generator.api import CatalogError, open_records

    try:
        return open_records(getattr(args, "catalog", None), with_matcher)
    except CatalogError as exc:
        print(f"failpedia: {exc}", file=sys.stderr)
        return None
