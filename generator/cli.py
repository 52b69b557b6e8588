"""The ``failpedia`` command: the only module that parses arguments, prints or exits."""

from __future__ import annotations

import argparse
import functools
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import unicodedata
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

from generator import __version__
from generator.cache import load_for_diagnosis
from generator.diagnosis.diagnose import diagnose, report_json
from generator.diagnosis.explain import printable, report_text
from generator.diagnosis.logread import open_source
from generator.records.model import CATEGORY_ORDER

# Commands other than diagnose import their stages when they run: a diagnosis starts in a
# fraction of a second only if validation, Jinja and the exporters are not imported first.
if TYPE_CHECKING:
    from typing import Any

    from generator.records.errors import Issue
    from generator.records.model import Catalog, Signature
    from generator.records.pipeline import Loaded
    from generator.signatures.export import Bundle
    from generator.signatures.match import Matcher
    from generator.signatures.verify import Outcome

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


def local_entries(args: argparse.Namespace) -> Path | None:
    """Return the records to answer from: --catalog or $FAILPEDIA_CATALOG, else entries/ here, else None."""
    from generator.api import local_entries as chosen

    return chosen(getattr(args, "catalog", None))


def answering(args: argparse.Namespace, with_matcher: bool) -> tuple[str, Catalog, Matcher | None] | None:
    """Return (which catalog answers, its catalog, its matcher when asked), or None after saying why not."""
    from generator.bundle import read_packaged
    from generator.cache import cached_matcher, load_validated

    entries = local_entries(args)
    if entries is not None:
        if not entries.is_dir():
            print(f"failpedia: no such catalog directory: {entries}", file=sys.stderr)
            return None
        if with_matcher:
            loaded, catalog, matcher = load_for_diagnosis(entries, entries.resolve().parent)
        else:
            loaded, matcher = load_validated(entries, entries.resolve().parent)[1], None
            catalog = loaded.catalog
        if loaded is not None and not loaded.ok:
            print("failpedia: the records are invalid; run failpedia validate", file=sys.stderr)
            return None
        return f"local records in {entries}", catalog, matcher
    packaged = read_packaged()
    if packaged is None:
        print(
            f"failpedia: no {ENTRIES_DIR}/ directory here and no packaged catalog; use --catalog DIR", file=sys.stderr
        )
        return None
    matcher = cached_matcher(packaged.key, packaged.catalog, True) if with_matcher else None
    label = f"packaged catalog, library {packaged.library_version}, {len(packaged.catalog.entries)} records"
    return label, packaged.catalog, matcher


def validation_files(paths: list[str]) -> list[Path] | None:
    """Return the files to check (default: entries/ and hubs/), or None after naming missing ones."""
    from generator.records.pipeline import discover
    from generator.site.hubs import HUBS_DIR

    defaults = [Path(p) for p in (ENTRIES_DIR, HUBS_DIR) if Path(p).is_dir()]
    targets = [Path(p) for p in paths] or defaults
    missing = [str(p) for p in targets if not p.exists()]
    if missing:
        print(f"failpedia: no such file or directory: {', '.join(missing)}", file=sys.stderr)
        return None
    return discover(targets)


def cmd_validate(args: argparse.Namespace) -> int:
    """Validate records and hubs; named files are checked against the whole catalog."""
    from generator.records.errors import has_errors
    from generator.records.load import SourceDoc
    from generator.records.pipeline import discover, display_path, load_catalog
    from generator.site.hubs import HUBS_DIR, load_hubs

    files = validation_files(args.paths)
    if files is None:
        return EXIT_USAGE
    hub_files = [f for f in files if f.parent.name == HUBS_DIR]
    root, entries = Path.cwd(), Path(ENTRIES_DIR).resolve()
    in_project = entries.is_dir() and all(f in hub_files or entries in f.parents for f in files)
    context = discover([entries]) if in_project else []
    records = sorted({f for f in files if f not in hub_files} | set(context))
    docs: list[SourceDoc] = []
    loaded = load_catalog(records, root, keep=docs, project=in_project)
    _, hub_issues = load_hubs(hub_files, loaded.catalog, root)
    shown = {display_path(f, root) for f in files}
    every = [*loaded.issues, *hub_issues]
    if in_project and records == context and not every:  # the next build need not validate again
        from generator.cache import cache_key, store_records

        store_records(cache_key(records), docs, loaded.catalog)
    issues = sorted(i for i in every if i.location.path in shown or not args.paths)
    print_issues(issues, args.format)
    if args.format == "text":
        verdict = f"{len(issues)} problem(s)" if issues else "ok"
        print(f"{len(files)} file(s) checked: {verdict}", file=sys.stderr)
    return EXIT_PROBLEMS if has_errors(issues) else EXIT_OK


def cmd_build(args: argparse.Namespace) -> int:
    """Build the site elsewhere, then swap it into place only when the build succeeded."""
    from generator.cache import load_validated

    loaded = load_validated(Path(ENTRIES_DIR), Path.cwd())[1] if Path(ENTRIES_DIR).is_dir() else load_or_report()
    if loaded is None:
        return EXIT_USAGE
    if not loaded.ok:
        print_issues(loaded.issues, "text")
        print("build stopped: fix the records above", file=sys.stderr)
        return EXIT_PROBLEMS
    target = Path(args.site_dir).resolve()
    target.parent.mkdir(parents=True, exist_ok=True)
    for stale in target.parent.glob(f".{target.name}-build-*"):  # left by a killed build
        shutil.rmtree(stale, ignore_errors=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}-build-", dir=target.parent))
    try:
        from generator.site.mkdocs_plugin import build_site

        failure = build_site(staging)
        if failure is not None:
            print(f"{failure}\nbuild failed; the previous site is untouched", file=sys.stderr)
            return EXIT_PROBLEMS
        swap_in(staging, target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    print(f"built {len(loaded.catalog.entries)} records into {os.path.relpath(target)}", file=sys.stderr)
    return EXIT_OK


def swap_in(staging: Path, target: Path) -> None:
    """Replace ``target`` with ``staging`` by renames, so no half-written site is left."""
    old = None
    if target.exists():
        old = target.with_name(f".{target.name}-old-{os.getpid()}")
        target.rename(old)
    staging.rename(target)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def cmd_serve(args: argparse.Namespace) -> int:
    """Serve the site with live reload."""
    from generator.site.mkdocs_plugin import MKDOCS_ENVIRONMENT

    command = [sys.executable, "-m", "mkdocs", "serve", "--dev-addr", args.dev_addr]
    return subprocess.run(command, check=False, env={**MKDOCS_ENVIRONMENT, **os.environ}).returncode


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


MAX_LOG_LINES = 20_000


def read_log_lines(name: str) -> list[str] | None:
    """Return the last lines of a log for ``new --from-log`` (None after saying why not)."""
    try:
        with open(name, "rb") as handle:
            data = handle.read(8 << 20)
    except OSError as exc:
        print(f"failpedia: {name}: {exc.strerror or exc}", file=sys.stderr)
        return None
    return data.decode("utf-8", "replace").splitlines()[-MAX_LOG_LINES:]


def existing_matches(name: str) -> tuple[list[str], str | None]:
    """Return "id: title" of records whose signatures already match the log, and triage's key line."""
    from generator.diagnosis.triage import Triage, triage_report

    _, catalog, matcher = load_for_diagnosis(Path(ENTRIES_DIR), Path.cwd())
    triage = Triage()
    report = diagnose([open_source(name, None)], matcher, catalog, observe=triage.observe)
    key = triage_report(triage).key
    return [f"{f.entry.id}: {f.entry.title}" for f in report.findings[:5]], key.text if key else None


def confirm(question: str, assume_yes: bool) -> bool:
    """Return True when the user (or --yes) agrees; a non-interactive run without --yes is a no."""
    if assume_yes:
        return True
    if not sys.stdin or not sys.stdin.isatty():
        print(f"{question} [y/N] no (not a terminal; pass --yes to go on)", file=sys.stderr)
        return False
    return input(f"{question} [y/N] ").strip().lower() in ("y", "yes")


def seeded_signature(log: str, assume_yes: bool) -> tuple[str, tuple[str, ...]] | int:
    """Return the pattern and example lines proposed from a log, or an exit status to stop with."""
    from generator.authoring.skeleton import propose_signature

    lines = read_log_lines(log)
    if lines is None:
        return EXIT_USAGE
    duplicates, key = existing_matches(log)
    if duplicates:
        print("Records whose signatures already match this log (likely duplicates):", file=sys.stderr)
        for line in duplicates:
            print(f"  {printable(line)}", file=sys.stderr)
        if not confirm("Write a new record anyway?", assume_yes):
            return EXIT_PROBLEMS
    proposal = propose_signature(lines, key)
    return ("", ()) if proposal is None else (proposal[0], tuple(proposal[1]))


def cmd_new(args: argparse.Namespace) -> int:
    """Write a schema-valid skeleton record, optionally seeded from a pasted log."""
    from generator.authoring.skeleton import skeleton_path, skeleton_text

    seeded = seeded_signature(args.from_log, args.yes) if args.from_log else ("", ())
    if isinstance(seeded, int):
        return seeded
    path = skeleton_path(Path(ENTRIES_DIR), args.id, args.category)
    if path is None:
        print(f"failpedia: {args.id!r} is not a valid id (lowercase words joined by hyphens)", file=sys.stderr)
        return EXIT_USAGE
    if path.exists():
        print(f"failpedia: {path} already exists", file=sys.stderr)
        return EXIT_PROBLEMS
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("x", encoding="utf-8") as handle:
        handle.write(skeleton_text(args.id, args.category, *seeded))
    print(path)
    return EXIT_OK


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
    bar = ProgressBar(input_sizes(names))
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


def cmd_lock(args: argparse.Namespace) -> int:
    """Update the library lock: version bump as the changes require."""
    from generator.output import write_atomically
    from generator.records.pipeline import PUBLISHED_IDS
    from generator.records.schema import schema_path
    from generator.signatures.library import LOCK_FILE, new_lock, read_lock

    loaded = load_or_report()
    if loaded is None or not loaded.ok:
        print("failpedia: the records are invalid; run failpedia validate", file=sys.stderr)
        return EXIT_USAGE
    lock = read_lock()
    updated = new_lock(lock, loaded.catalog)
    published = Path(PUBLISHED_IDS)
    known = set(published.read_text(encoding="utf-8").split()) if published.exists() else set()
    ids = "".join(f"{entry_id}\n" for entry_id in sorted(known | set(loaded.catalog.by_id)))
    write_atomically(
        {
            schema_path(LOCK_FILE): json.dumps(updated, indent=2, sort_keys=True).encode() + b"\n",
            published: ids.encode(),
        }
    )
    print(f"library version {lock['version']} -> {updated['version']}", file=sys.stderr)
    return EXIT_OK


def canonical_text(path: Path, name: str) -> tuple[str, str] | None:
    """Return a record's text and its canonical form, or None after reporting a syntax error."""
    from ruamel.yaml.error import MarkedYAMLError

    from generator.authoring.fmt import formatted

    text = path.read_text(encoding="utf-8")
    try:
        return text, formatted(text)
    except MarkedYAMLError as exc:
        mark = exc.problem_mark
        where = f"{name}:{mark.line + 1}:{mark.column + 1}" if mark else name
        print(f"{where}: error[yaml.syntax] {exc.problem}", file=sys.stderr)
        return None


def cmd_fmt(args: argparse.Namespace) -> int:
    """Rewrite records in canonical key order (or, with --check, list those that are not)."""
    from generator.output import write_atomically
    from generator.records.pipeline import discover, display_path

    targets = [Path(p) for p in args.paths] or [Path(ENTRIES_DIR)]
    if any(not p.exists() for p in targets):
        print("failpedia: no such file or directory", file=sys.stderr)
        return EXIT_USAGE
    changed, broken = [], 0
    for path in discover(targets):
        name = display_path(path, Path.cwd())
        texts = canonical_text(path, name)
        if texts is None:
            broken += 1
        elif texts[1] != texts[0]:
            changed.append(name)
            if not args.check:
                write_atomically({path: texts[1].encode("utf-8")})
    for name in changed:
        print(f"{'would reformat' if args.check else 'reformatted'} {name}")
    if broken:
        return EXIT_PROBLEMS
    return EXIT_PROBLEMS if args.check and changed else EXIT_OK


def claimed_signatures(loaded: Loaded, package: str | None) -> list[Signature]:
    """Return the signatures that name where they are printed (of one package when asked)."""
    claims = [(sig, sig.printed_by) for sig in loaded.catalog.signatures if sig.printed_by is not None]
    return [sig for sig, claim in claims if package is None or claim.package == package]


def verify_claims(sigs: list[Signature], versions: tuple[str, ...]) -> dict[str, list[Outcome]]:
    """Check the signatures' releases, each release downloaded and read once; say which on stderr."""
    from generator.signatures.releases import fetch_release
    from generator.signatures.verify import verify_signatures

    def fetch(package: str, version: str) -> Path:
        print(f"  {package} {version} ...", file=sys.stderr, flush=True)
        return fetch_release(package, version)

    return verify_signatures(sigs, fetch, versions)


def new_ledger_entry(sig: Signature, outcomes: list[Outcome], old: dict[str, Any] | None) -> dict[str, Any]:
    """Return a signature's ledger entry; results of releases not checked now are kept while it is unchanged."""
    from generator.signatures.verify import ledger_entry

    entry = ledger_entry(sig, outcomes)
    if old is not None and old.get("digest") == entry["digest"]:
        entry["results"] = {**old.get("results", {}), **entry["results"]}
    return entry


def cmd_verify(args: argparse.Namespace) -> int:
    """Check signatures against the released artifacts and write the ledger (or, offline, read it)."""
    from generator.output import write_atomically
    from generator.records.errors import has_errors
    from generator.records.ledger import LEDGER_FILE, ledger_issues, read_ledger
    from generator.signatures.verify import RESULT_WORDS, ledger_text, outcome_issues

    loaded = load_or_report()
    if loaded is None:
        return EXIT_USAGE
    ledger = read_ledger(Path.cwd())
    sigs = claimed_signatures(loaded, args.package)
    if args.offline:
        issues = ledger_issues(loaded.catalog, ledger)
    else:
        issues = []
        by_id = {sig.id: sig for sig in sigs}
        for sig_id, outcomes in verify_claims(sigs, tuple(args.versions)).items():
            sig = by_id[sig_id]
            ledger[sig_id] = new_ledger_entry(sig, outcomes, ledger.get(sig_id))
            issues.extend(outcome_issues(loaded.catalog, sig, outcomes))
            print(f"{sig_id}: " + " ".join(f"{o.version}={RESULT_WORDS[o.found]}" for o in outcomes), file=sys.stderr)
        write_atomically({Path(LEDGER_FILE): ledger_text(ledger).encode("utf-8")})
    print_issues(sorted(issues), "text")
    print(f"{len(sigs)} signature(s) with printed_by; {len(issues)} problem(s)", file=sys.stderr)
    return EXIT_PROBLEMS if has_errors(issues) else EXIT_OK


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


def add_run(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    examples = (
        "  failpedia run -- torchrun --nproc_per_node=8 train.py\n"
        "  failpedia run --log job.log -- deepspeed train.py --deepspeed ds.json\n"
        "  srun failpedia run -- python train.py"
    )
    codes = "exit status: the command's own, 128+N when it died of signal N, 127 when it could not start, 2 usage"
    p = command(sub, "run", "run a training command; diagnose its output if it fails", examples, codes)
    p.add_argument("--log", metavar="FILE", help="also keep the command's output in FILE")
    add_report_options(p)
    p.add_argument("command", nargs=argparse.REMAINDER, help="the command, after --")
    p.set_defaults(run=cmd_run)


def add_verify(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    examples = (
        "  failpedia verify                      # every signature with printed_by, every claimed release\n"
        "  failpedia verify --package nvidia-nccl-cu12 --versions 2.18.1 2.19.3\n"
        "  failpedia verify --offline            # only read schema/verified.json"
    )
    p = command(sub, "verify", "check signatures against released artifacts; write schema/verified.json", examples)
    p.add_argument("--package", help="only signatures printed by this package")
    p.add_argument("--versions", nargs="+", default=[], help="check these releases instead of the claimed ones")
    p.add_argument("--offline", action="store_true", help="download nothing; report what the ledger says")
    p.set_defaults(run=cmd_verify)


EXIT_CODES = "exit status: 0 ok, 1 problems found, 2 usage error or unreadable input"


def command(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], name: str, summary: str, examples: str, codes: str = ""
) -> argparse.ArgumentParser:
    """Return a sub-command's parser with its description, examples and exit codes in --help."""
    epilog = f"examples:\n{examples}\n\n{codes or EXIT_CODES}"
    formatter = argparse.RawDescriptionHelpFormatter
    return sub.add_parser(name, help=summary, description=summary, epilog=epilog, formatter_class=formatter)


def add_catalog_option(p: argparse.ArgumentParser) -> None:
    """Add --catalog: the records to answer from (default: entries/ here, else the packaged catalog)."""
    help_text = "records to use: a project or entries/ folder (default: $FAILPEDIA_CATALOG, ./entries, else packaged)"
    p.add_argument("--catalog", metavar="DIR", help=help_text)


def at_least_one(text: str) -> int:
    """Return a count given on the command line; argparse reports anything below 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid count: {text!r} (a whole number, 1 or more)") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, not {value}")
    return value


def add_report_options(p: argparse.ArgumentParser) -> None:
    """Add the options of commands that print a diagnosis: --catalog, --top, --site-url."""
    add_catalog_option(p)
    p.add_argument("--top", type=at_least_one, default=3, help="how many findings to show (default 3)")
    help_url = "base URL of the site (default: $FAILPEDIA_SITE_URL, else mkdocs.yml's site_url)"
    p.add_argument("--site-url", default=default_site_url(), help=help_url)


def add_validate(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = command(
        sub,
        "validate",
        "check records and hubs",
        "  failpedia validate\n  failpedia validate entries/memory --format github",
    )
    p.add_argument("paths", nargs="*", help="record files or directories (default: entries/)")
    p.add_argument("--format", choices=("text", "json", "github"), default="text")
    p.set_defaults(run=cmd_validate)


def add_site_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = command(sub, "build", "build the site with mkdocs build --strict", "  failpedia build --site-dir site")
    p.add_argument("--site-dir", default="site")
    p.set_defaults(run=cmd_build)
    p = command(sub, "serve", "serve the site with live reload", "  failpedia serve --dev-addr 127.0.0.1:8001")
    p.add_argument("--dev-addr", default="127.0.0.1:8000")
    p.set_defaults(run=cmd_serve)


@functools.cache
def default_site_url() -> str:
    """Return the site's address: $FAILPEDIA_SITE_URL, else site_url of mkdocs.yml here, else ""."""
    if "FAILPEDIA_SITE_URL" in os.environ:
        return os.environ["FAILPEDIA_SITE_URL"]
    try:
        text = Path("mkdocs.yml").read_text(encoding="utf-8")
    except OSError:
        return ""
    found = re.search(r"^site_url:\s*['\"]?(https?://[^\s'\"]+)", text, re.MULTILINE)
    return found.group(1) if found else ""


def add_diagnose(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    examples = (
        "  failpedia diagnose train.log\n"
        "  kubectl logs job/train | failpedia diagnose -\n"
        "  failpedia diagnose rank*.log.gz --json"
    )
    codes = "exit status: 0 a failure identified, 1 nothing matched, 2 unreadable input or usage error"
    p = command(sub, "diagnose", "find and rank the failures in logs", examples, codes)
    p.add_argument("logs", nargs="*", help="log files (plain or gzip); - or nothing for stdin")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    add_report_options(p)
    p.set_defaults(run=cmd_diagnose)


def add_export(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    examples = (
        "  failpedia export --format sigma -o rules/\n"
        "  failpedia export --format loki --loki-selector '{app=\"trainer\"}'"
    )
    p = command(sub, "export", "export the signature library for other tools", examples)
    p.add_argument("--format", required=True, help="the output format: grep, json, loki or sigma")
    p.add_argument("-o", "--output", help="file or directory to write (default: stdout)")
    p.add_argument(
        "--site-url", default=default_site_url(), help="base URL of the site (default: mkdocs.yml's site_url)"
    )
    p.add_argument("--loki-selector", help='LogQL stream selector (default: {job=~".+"})')
    add_catalog_option(p)
    p.set_defaults(run=cmd_export)


def add_authoring(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = command(sub, "lock", "update schema/library.lock.json (the library version)", "  failpedia lock")
    p.set_defaults(run=cmd_lock)
    p = command(sub, "fmt", "rewrite records in the canonical key order, keeping comments", "  failpedia fmt --check")
    p.add_argument("paths", nargs="*", help="record files or directories (default: entries/)")
    p.add_argument("--check", action="store_true", help="only report files that are not canonical (exit 1)")
    p.set_defaults(run=cmd_fmt)
    p = command(
        sub, "new", "write a skeleton record", "  failpedia new my-failure --category memory --from-log crash.log"
    )
    p.add_argument("id")
    p.add_argument("--category", required=True, choices=CATEGORY_ORDER)
    p.add_argument("--from-log", metavar="FILE", help="seed the signature and its examples from a log")
    p.add_argument("--yes", action="store_true", help="do not ask when existing records already match")
    p.set_defaults(run=cmd_new)


def add_explain(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    codes = "exit status: 0 shown, 1 no such record (close ids are suggested), 2 usage error or invalid records"
    p = command(sub, "explain", "show one record in the terminal", "  failpedia explain nccl-system-error", codes)
    p.add_argument("id")
    add_catalog_option(p)
    p.set_defaults(run=cmd_explain)


def add_lookup(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    codes = "exit status: 0 records listed, 1 none, 2 usage error or invalid records"
    examples = "  failpedia list\n  failpedia list --category communication\n  failpedia list --tag nccl"
    p = command(sub, "list", "list the records (id, category, title)", examples, codes)
    p.add_argument("--tag", help="only records with this tag")
    p.add_argument("--category", choices=CATEGORY_ORDER, help="only records of this category")
    add_catalog_option(p)
    p.set_defaults(run=cmd_list)
    examples = "  failpedia search Xid 79\n  failpedia search 'NCCL error 2'\n  failpedia search bus error --top 3"
    summary = "search the records offline, ranked as the site search ranks them"
    p = command(sub, "search", summary, examples, codes.replace("listed", "found"))
    p.add_argument("text", nargs="+", help="words or a pasted log line")
    p.add_argument("--top", type=at_least_one, default=10, help="how many records to show (default 10)")
    add_catalog_option(p)
    p.set_defaults(run=cmd_search)


def parser() -> argparse.ArgumentParser:
    """Return the argument parser."""
    examples = (
        "  failpedia diagnose train.log\n  failpedia run -- torchrun train.py\n  failpedia search Xid 79\n"
        "  failpedia explain nccl-system-error\n  failpedia COMMAND --help"
    )
    top = argparse.ArgumentParser(
        prog="failpedia",
        description="An encyclopedia of ML training failures: diagnose logs, look records up, maintain them.",
        epilog=f"examples:\n{examples}\n\n{EXIT_CODES}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    top.add_argument("--version", action="version", version=f"failpedia {__version__}")
    sub = top.add_subparsers(dest="command", required=True)
    for add in (
        add_validate,
        add_site_commands,
        add_diagnose,
        add_export,
        add_authoring,
        add_explain,
        add_lookup,
        add_verify,
        add_run,
    ):
        add(sub)
    return top


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit code."""
    args = parser().parse_args(argv)
    try:
        code: int = args.run(args)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return EXIT_OK
    return code
