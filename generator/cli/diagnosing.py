"""diagnose and run: find the failures in logs, or in the output of a command that failed."""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any, BinaryIO

from generator.cli.common import EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE, PROGRESS_THRESHOLD, answering
from generator.diagnosis.diagnose import diagnose, report_json
from generator.diagnosis.explain import printable, report_text
from generator.diagnosis.logread import open_source
from generator.signatures.match import expect


class ProgressBar:
    """A progress bar on stderr for large inputs (only on a terminal): rich's when installed.

    rich is imported only when a bar is shown, so it costs a diagnosis of a small log nothing.
    """

    def __init__(self, sizes: list[int]) -> None:
        self.sizes = sizes
        self.total = sum(sizes)
        self.enabled = self.total > PROGRESS_THRESHOLD and sys.stderr.isatty()
        self.rich: Any = None  # (Progress, task id) once shown, False without rich

    def __call__(self, index: int, done: int) -> None:
        if not self.enabled:
            return
        overall = sum(self.sizes[:index]) + done
        if self.rich is None:
            self.rich = rich_progress(self.total)
        if self.rich:
            self.rich[0].update(self.rich[1], completed=overall)
            return
        share = min(overall / self.total, 1.0)
        bar = "#" * int(share * 30)
        sys.stderr.write(f"\rscanning [{bar:<30}] {share:4.0%} {overall / 1e6:8.0f} MB")
        sys.stderr.flush()

    def finish(self) -> None:
        if self.rich:
            self.rich[0].stop()
        elif self.enabled:
            sys.stderr.write("\r" + " " * 60 + "\r")


def rich_progress(total: int) -> tuple[Any, Any] | bool:
    """Return a started rich progress bar on stderr and its task, or False when rich is not installed."""
    try:
        from rich.console import Console
        from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeRemainingColumn
    except ImportError:
        return False
    columns = (TextColumn("scanning"), BarColumn(), DownloadColumn(), TimeRemainingColumn())
    console = Console(file=sys.stderr, force_terminal=True)  # the bar is only shown on a terminal
    progress = Progress(*columns, console=console, transient=True)
    task = progress.add_task("scan", total=total)
    progress.start()
    return progress, task


def input_sizes(names: Sequence[str]) -> list[int]:
    """Return the on-disk size of each input (0 for stdin or unreadable paths)."""
    sizes = []
    for name in names:
        try:
            sizes.append(os.path.getsize(name) if name != "-" else 0)
        except OSError:
            sizes.append(0)
    return sizes


def log_stdin(only_input: bool) -> BinaryIO | None:
    """Return standard input to read a log from; on a terminal, say so, and read it unbuffered.

    A buffered read on a terminal would swallow the Ctrl-D that ends the input and wait for
    another; the raw stream returns each line as typed and ends at the first Ctrl-D.
    """
    if sys.stdin is None:
        return None
    if not sys.stdin.isatty():
        return sys.stdin.buffer
    if only_input:
        print("failpedia: reading the log from standard input (end with Ctrl-D; or name a log file)", file=sys.stderr)
    raw: BinaryIO = getattr(sys.stdin.buffer, "raw", sys.stdin.buffer)
    return raw


def cmd_diagnose(args: argparse.Namespace) -> int:
    """Find the failures in logs and rank them."""
    from generator.diagnosis.triage import Triage, triage_json, triage_report

    answer = answering(args, with_matcher=True)
    if answer is None:
        return EXIT_USAGE
    label, catalog, matcher = answer
    assert matcher is not None
    names = args.logs or ["-"]
    stdin = log_stdin(not args.logs)
    sizes = input_sizes(names)
    expect(sum(sizes))
    bar = ProgressBar(sizes)
    triage = Triage()
    report = diagnose((open_source(name, stdin) for name in names), matcher, catalog, bar, triage.observe)
    bar.finish()
    for source in report.sources:
        for note in source.notes:
            print(f"failpedia: {printable(source.name)}: {note}", file=sys.stderr)
    triaged = None if report.findings else triage_report(triage)
    if args.json:
        data = {**report_json(report, args.top, args.site_url), "catalog": label}
        if triaged is not None:
            data["triage"] = triage_json(triaged, args.site_url)
        print(json.dumps(data, indent=2, sort_keys=False, ensure_ascii=False))
    elif not all(source.failed for source in report.sources):  # an unusable input shows only its error
        print(report_text(report, args.top, sys.stdout.isatty(), args.site_url, triaged))
        print(f"(answered from the {label})", file=sys.stderr)
    if any(source.notes for source in report.sources):
        return EXIT_USAGE
    return EXIT_OK if report.findings else EXIT_PROBLEMS


def cmd_run(args: argparse.Namespace) -> int:
    """Run a command with its output passed through; diagnose what it printed when it fails."""
    from generator.runner import run_command

    argv = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not argv:
        print(
            "failpedia run: error: give the command after --, e.g. failpedia run -- torchrun train.py", file=sys.stderr
        )
        return EXIT_USAGE
    with tempfile.TemporaryDirectory(prefix="failpedia-run-") as scratch:
        capture = Path(args.log) if args.log else Path(scratch) / "output.log"
        try:
            ran = run_command(argv, capture, sys.stdout.buffer, sys.stderr.buffer)
        except OSError as exc:
            print(f"failpedia run: cannot run {argv[0]!r}: {exc.strerror or exc}", file=sys.stderr)
            return 127
        if ran.status != 0:
            diagnose_capture(args, ran.capture, ran.status)
    return ran.status


def diagnose_capture(args: argparse.Namespace, capture: Path, status: int) -> None:
    """Print, on stderr, the diagnosis of a failed command's captured output."""
    answer = answering(args, with_matcher=True)
    if answer is None or answer[2] is None:
        return
    label, catalog, matcher = answer[0], answer[1], answer[2]
    report = diagnose([open_source(str(capture), None)], matcher, catalog)
    print(f"\nfailpedia: the command ended with status {status}; diagnosis of its output:", file=sys.stderr)
    print(report_text(report, args.top, sys.stderr.isatty(), args.site_url), file=sys.stderr)
    print(f"(answered from the {label})", file=sys.stderr)
