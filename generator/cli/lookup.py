"""The reading commands: explain one record, list and search them, export the signature library."""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from generator.cli.common import EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE, answering
from generator.diagnosis.explain import printable

if TYPE_CHECKING:
    from generator.signatures.export import Bundle


def cmd_explain(args: argparse.Namespace) -> int:
    """Print one record in the terminal."""
    from generator.diagnosis.explain import closest_ids, explain_text

    answer = answering(args, with_matcher=False)
    if answer is None:
        return EXIT_USAGE
    catalog = answer[1]
    entry = catalog.by_id.get(catalog.renames.get(args.id, args.id))
    if entry is None:
        suggestions = closest_ids(args.id, list(catalog.by_id))
        hint = f"; did you mean: {', '.join(suggestions)}" if suggestions else ""
        print(f"failpedia: no record {args.id!r}{hint}; or: failpedia search {shlex.quote(args.id)}", file=sys.stderr)
        return EXIT_PROBLEMS
    print(explain_text(entry, color=sys.stdout.isatty()))
    return EXIT_OK


def cmd_list(args: argparse.Namespace) -> int:
    """List the records, by id, optionally of one tag and one category."""
    from generator.records.search import listed

    answer = answering(args, with_matcher=False)
    if answer is None:
        return EXIT_USAGE
    chosen = listed(answer[1].entries, args.tag, args.category)
    width = max((len(e.id) for e in chosen), default=0)
    for entry in chosen:
        print(printable(f"{entry.id:<{width}}  {entry.category:<13}  {entry.title}"))
    print(f"{len(chosen)} record(s) (answered from the {answer[0]})", file=sys.stderr)
    return EXIT_OK if chosen else EXIT_PROBLEMS


def cmd_search(args: argparse.Namespace) -> int:
    """Search the records offline, ranked as the site search ranks pages."""
    from generator.records.search import search

    answer = answering(args, with_matcher=False)
    if answer is None:
        return EXIT_USAGE
    found = search(answer[1], " ".join(args.text))[: args.top]
    for entry, _ in found:
        print(printable(f"{entry.id}: {entry.title}"))
    if not found:
        print("No record matches; try fewer or other words, or failpedia list.", file=sys.stderr)
    return EXIT_OK if found else EXIT_PROBLEMS


def export_targets(bundle: Bundle, out: str) -> dict[Path, bytes]:
    """Return where each exported file goes for ``-o out`` (a file or a directory)."""
    target = Path(out)
    single = len(bundle.files) == 1
    if single and not (out.endswith(("/", os.sep)) or target.is_dir()):
        return {target: next(iter(bundle.files.values()))}
    return {target / name: data for name, data in bundle.files.items()}


def cmd_export(args: argparse.Namespace) -> int:
    """Export the signature library in one format."""
    from generator.output import write_atomically
    from generator.signatures.export import EXPORTERS, ExportOptions

    if args.format not in EXPORTERS:
        choices = ", ".join(repr(name) for name in sorted(EXPORTERS))
        print(f"failpedia export: error: unknown format {args.format!r} (choose from {choices})", file=sys.stderr)
        return EXIT_USAGE
    answer = answering(args, with_matcher=False)
    if answer is None:
        return EXIT_USAGE
    selector = {"loki_selector": args.loki_selector} if args.loki_selector else {}
    options = ExportOptions(site_url=args.site_url, **selector)
    bundle = EXPORTERS[args.format](answer[1], options)
    for problem in bundle.problems:
        print(f"failpedia: not exported: {problem}", file=sys.stderr)
    if args.output:
        try:
            write_atomically(export_targets(bundle, args.output))
        except OSError as exc:
            print(f"failpedia: cannot write {args.output}: {exc.strerror or exc}", file=sys.stderr)
            return EXIT_USAGE
    else:
        sys.stdout.buffer.write(bundle.files[bundle.stdout])
    return EXIT_PROBLEMS if bundle.problems else EXIT_OK
