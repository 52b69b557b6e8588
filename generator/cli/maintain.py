"""The contributors' commands: validate, build, serve, lock, fmt and new."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from generator.cache import load_for_diagnosis
from generator.cli.common import ENTRIES_DIR, EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE, load_or_report, print_issues
from generator.diagnosis.diagnose import diagnose
from generator.diagnosis.explain import printable
from generator.diagnosis.logread import open_source


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
    from generator.records.pipeline import discover, display_path, load_catalog
    from generator.records.source import SourceDoc
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
