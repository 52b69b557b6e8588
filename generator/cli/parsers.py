"""The argument parser: each command with its description, examples and exit codes; and main()."""

from __future__ import annotations

import argparse
import functools
import os
import re
from collections.abc import Sequence
from pathlib import Path

from generator import __version__
from generator.cli.common import EXIT_OK
from generator.cli.diagnosing import cmd_diagnose, cmd_run
from generator.cli.lookup import cmd_explain, cmd_export, cmd_list, cmd_search
from generator.cli.maintain import cmd_build, cmd_fmt, cmd_lock, cmd_new, cmd_serve, cmd_validate
from generator.cli.verifying import cmd_verify
from generator.records.model import CATEGORY_ORDER


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
