"""The ``failpedia`` command: the only module that parses arguments, prints or exits."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unicodedata
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from generator.cache import load_for_diagnosis
from generator.diagnosis.diagnose import diagnose, report_json
from generator.diagnosis.explain import printable, report_text
from generator.diagnosis.logread import open_source
from generator.records.model import CATEGORY_ORDER

# Commands other than diagnose import their stages when they run: a diagnosis starts in a
# fraction of a second only if validation, Jinja and the exporters are not imported first.
if TYPE_CHECKING:
    from generator.records.errors import Issue
    from generator.records.pipeline import Loaded
    from generator.signatures.export import Bundle

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


def cmd_validate(args: argparse.Namespace) -> int:
    """Validate records and hubs; named files are checked against the whole catalog."""
    from generator.records.errors import has_errors
    from generator.records.load import SourceDoc
    from generator.records.pipeline import discover, display_path, load_catalog
    from generator.site.hubs import HUBS_DIR, load_hubs

    defaults = [Path(p) for p in (ENTRIES_DIR, HUBS_DIR) if Path(p).is_dir()]
    targets = [Path(p) for p in args.paths] or defaults
    missing = [str(p) for p in targets if not p.exists()]
    if missing:
        print(f"failpedia: no such file or directory: {', '.join(missing)}", file=sys.stderr)
        return EXIT_USAGE
    files = discover(targets)
    hub_files = [f for f in files if f.parent.name == HUBS_DIR]
    root = Path.cwd()
    entries = Path(ENTRIES_DIR).resolve()
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

    loaded = load_or_report()
    if loaded is None:
        return EXIT_USAGE
    catalog = loaded.catalog
    entry = catalog.by_id.get(catalog.renames.get(args.id, args.id))
    if entry is None:
        suggestions = closest_ids(args.id, list(catalog.by_id))
        hint = f"; did you mean: {', '.join(suggestions)}" if suggestions else ""
        print(f"failpedia: no record {args.id!r}{hint}", file=sys.stderr)
        return EXIT_PROBLEMS
    print(explain_text(entry, color=sys.stdout.isatty()))
    return EXIT_OK


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


def existing_matches(name: str) -> list[str]:
    """Return "id: title" of records whose signatures already match the log."""
    _, catalog, matcher = load_for_diagnosis(Path(ENTRIES_DIR), Path.cwd())
    report = diagnose([open_source(name, None)], matcher, catalog)
    return [f"{f.entry.id}: {f.entry.title}" for f in report.findings[:5]]


def confirm(question: str, assume_yes: bool) -> bool:
    """Return True when the user (or --yes) agrees; a non-interactive run without --yes is a no."""
    if assume_yes:
        return True
    if not sys.stdin or not sys.stdin.isatty():
        print(f"{question} [y/N] no (not a terminal; pass --yes to go on)", file=sys.stderr)
        return False
    return input(f"{question} [y/N] ").strip().lower() in ("y", "yes")


def cmd_new(args: argparse.Namespace) -> int:
    """Write a schema-valid skeleton record, optionally seeded from a pasted log."""
    from generator.authoring.skeleton import propose_signature, skeleton_path, skeleton_text

    pattern = ""
    matches: tuple[str, ...] = ()
    if args.from_log:
        lines = read_log_lines(args.from_log)
        if lines is None:
            return EXIT_USAGE
        duplicates = existing_matches(args.from_log)
        if duplicates:
            print("Records whose signatures already match this log (likely duplicates):", file=sys.stderr)
            for line in duplicates:
                print(f"  {printable(line)}", file=sys.stderr)
            if not confirm("Write a new record anyway?", args.yes):
                return EXIT_PROBLEMS
        proposal = propose_signature(lines)
        if proposal is not None:
            pattern, matches = proposal[0], tuple(proposal[1])

    path = skeleton_path(Path(ENTRIES_DIR), args.id, args.category)
    if path is None:
        print(f"failpedia: {args.id!r} is not a valid id (lowercase words joined by hyphens)", file=sys.stderr)
        return EXIT_USAGE
    if path.exists():
        print(f"failpedia: {path} already exists", file=sys.stderr)
        return EXIT_PROBLEMS
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("x", encoding="utf-8") as handle:
        handle.write(skeleton_text(args.id, args.category, pattern, matches))
    print(path)
    return EXIT_OK


class ProgressBar:
    """A progress bar on stderr for large inputs (only on a terminal)."""

    def __init__(self, sizes: list[int]) -> None:
        self.sizes = sizes
        self.total = sum(sizes)
        self.enabled = self.total > PROGRESS_THRESHOLD and sys.stderr.isatty()

    def __call__(self, index: int, done: int) -> None:
        if not self.enabled:
            return
        overall = sum(self.sizes[:index]) + done
        share = min(overall / self.total, 1.0)
        bar = "#" * int(share * 30)
        sys.stderr.write(f"\rscanning [{bar:<30}] {share:4.0%} {overall / 1e6:8.0f} MB")
        sys.stderr.flush()

    def finish(self) -> None:
        if self.enabled:
            sys.stderr.write("\r" + " " * 60 + "\r")


def input_sizes(names: Sequence[str]) -> list[int]:
    """Return the on-disk size of each input (0 for stdin or unreadable paths)."""
    sizes = []
    for name in names:
        try:
            sizes.append(os.path.getsize(name) if name != "-" else 0)
        except OSError:
            sizes.append(0)
    return sizes


def cmd_diagnose(args: argparse.Namespace) -> int:
    """Find the failures in logs and rank them."""
    if not Path(ENTRIES_DIR).is_dir():
        print(f"failpedia: no {ENTRIES_DIR}/ directory here", file=sys.stderr)
        return EXIT_USAGE
    loaded, catalog, matcher = load_for_diagnosis(Path(ENTRIES_DIR), Path.cwd())
    if loaded is not None and not loaded.ok:
        print("failpedia: the records are invalid; run failpedia validate", file=sys.stderr)
        return EXIT_USAGE
    names = args.logs or ["-"]
    stdin = sys.stdin.buffer if sys.stdin is not None else None
    bar = ProgressBar(input_sizes(names))
    report = diagnose((open_source(name, stdin) for name in names), matcher, catalog, bar)
    bar.finish()
    for source in report.sources:
        for note in source.notes:
            print(f"failpedia: {printable(source.name)}: {note}", file=sys.stderr)
    if args.json:
        print(json.dumps(report_json(report, args.top), indent=2, sort_keys=False, ensure_ascii=False))
    else:
        print(report_text(report, args.top, sys.stdout.isatty(), args.site_url))
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
    loaded = load_or_report()
    if loaded is None or not loaded.ok:
        print("failpedia: the records are invalid; run failpedia validate", file=sys.stderr)
        return EXIT_USAGE
    selector = {"loki_selector": args.loki_selector} if args.loki_selector else {}
    options = ExportOptions(site_url=args.site_url, **selector)
    bundle = EXPORTERS[args.format](loaded.catalog, options)
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


def cmd_fmt(args: argparse.Namespace) -> int:
    """Rewrite records in canonical key order (or, with --check, list those that are not)."""
    from ruamel.yaml.error import MarkedYAMLError

    from generator.authoring.fmt import formatted
    from generator.output import write_atomically
    from generator.records.pipeline import discover, display_path

    targets = [Path(p) for p in args.paths] or [Path(ENTRIES_DIR)]
    if any(not p.exists() for p in targets):
        print("failpedia: no such file or directory", file=sys.stderr)
        return EXIT_USAGE
    changed, broken = [], 0
    for path in discover(targets):
        name = display_path(path, Path.cwd())
        text = path.read_text(encoding="utf-8")
        try:
            canonical = formatted(text)
        except MarkedYAMLError as exc:
            mark = exc.problem_mark
            where = f"{name}:{mark.line + 1}:{mark.column + 1}" if mark else name
            print(f"{where}: error[yaml.syntax] {exc.problem}", file=sys.stderr)
            broken += 1
            continue
        if canonical != text:
            changed.append(name)
            if not args.check:
                write_atomically({path: canonical.encode("utf-8")})
    for name in changed:
        print(f"{'would reformat' if args.check else 'reformatted'} {name}")
    if broken:
        return EXIT_PROBLEMS
    return EXIT_PROBLEMS if args.check and changed else EXIT_OK


def parser() -> argparse.ArgumentParser:
    """Return the argument parser."""
    top = argparse.ArgumentParser(prog="failpedia", description="An encyclopedia of ML training failures.")
    sub = top.add_subparsers(dest="command", required=True)
    p = sub.add_parser("validate", help="check records")
    p.add_argument("paths", nargs="*", help="record files or directories (default: entries/)")
    p.add_argument("--format", choices=("text", "json", "github"), default="text")
    p.set_defaults(run=cmd_validate)
    p = sub.add_parser("build", help="build the site with mkdocs build --strict")
    p.add_argument("--site-dir", default="site")
    p.set_defaults(run=cmd_build)
    p = sub.add_parser("serve", help="serve the site with live reload")
    p.add_argument("--dev-addr", default="127.0.0.1:8000")
    p.set_defaults(run=cmd_serve)
    p = sub.add_parser("diagnose", help="find and rank the failures in logs")
    p.add_argument("logs", nargs="*", help="log files (plain or gzip); - or nothing for stdin")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--top", type=int, default=3, help="how many findings to show (default 3)")
    p.add_argument("--site-url", default=os.environ.get("FAILPEDIA_SITE_URL", ""), help="base URL of the site")
    p.set_defaults(run=cmd_diagnose)
    p = sub.add_parser("export", help="export the signature library for other tools")
    p.add_argument("--format", required=True, help="the output format: grep, json, loki or sigma")
    p.add_argument("-o", "--output", help="file or directory to write (default: stdout)")
    p.add_argument("--site-url", default=os.environ.get("FAILPEDIA_SITE_URL", ""), help="base URL of the site")
    p.add_argument("--loki-selector", help='LogQL stream selector (default: {job=~".+"})')
    p.set_defaults(run=cmd_export)
    p = sub.add_parser("lock", help="update schema/library.lock.json (the library version)")
    p.set_defaults(run=cmd_lock)
    p = sub.add_parser("fmt", help="rewrite records in the canonical key order, keeping comments")
    p.add_argument("paths", nargs="*", help="record files or directories (default: entries/)")
    p.add_argument("--check", action="store_true", help="only report files that are not canonical (exit 1)")
    p.set_defaults(run=cmd_fmt)
    p = sub.add_parser("explain", help="show one record in the terminal")
    p.add_argument("id")
    p.set_defaults(run=cmd_explain)
    p = sub.add_parser("new", help="write a skeleton record")
    p.add_argument("id")
    p.add_argument("--category", required=True, choices=CATEGORY_ORDER)
    p.add_argument("--from-log", metavar="FILE", help="seed the signature and its examples from a log")
    p.add_argument("--yes", action="store_true", help="do not ask when existing records already match")
    p.set_defaults(run=cmd_new)
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
