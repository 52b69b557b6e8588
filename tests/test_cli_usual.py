"""The command line people expect (issue 18, item 6): --version, list, search, explain, input errors, help."""

from __future__ import annotations

import io
import os
import pty
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from generator import __version__
from generator.cli.diagnosing import ProgressBar
from generator.records.pipeline import load_catalog
from generator.records.search import SITE_SEPARATOR, search, search_index, tokens

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
CATALOG = load_catalog([ROOT / "entries"], ROOT).catalog
INDEX = search_index(CATALOG)
COMMANDS = ["validate", "build", "serve", "diagnose", "export", "lock", "fmt", "new", "explain", "list", "search"]
COMMANDS += ["verify", "run"]


def run(*args: str, cwd: Path = ROOT, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_COLOR": "1"}
    return subprocess.run(
        [sys.executable, "-m", "generator", *args], cwd=cwd, capture_output=True, text=True, input=stdin, env=env
    )


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A project whose entries are the two valid fixture records."""
    for name, category in (("minimal-record", "memory"), ("full-record", "communication")):
        (tmp_path / "entries" / category).mkdir(parents=True)
        shutil.copy(FIXTURES / "valid" / f"{name}.yaml", tmp_path / "entries" / category)
    return tmp_path


def test_version() -> None:
    result = run("--version")
    assert (result.returncode, result.stdout) == (0, f"failpedia {__version__}\n")


@pytest.mark.parametrize("command", [None, *COMMANDS])
def test_every_help_has_a_description_examples_and_exit_codes(command: str | None) -> None:
    result = run(*([command] if command else []), "--help")
    assert result.returncode == 0
    usage, description = result.stdout.split("\n\n")[:2]
    assert usage.startswith("usage: failpedia") and description.strip()
    assert "\nexamples:\n  failpedia " in result.stdout
    assert re.search(r"\n\nexit status: [^\n]*\b2 [^\n]*usage[^\n]*\n\Z", result.stdout), result.stdout


def test_list_with_and_without_filters(workspace: Path) -> None:
    listed = run("list", cwd=workspace)
    assert listed.returncode == 0
    assert listed.stdout == (
        "full-record     communication  Full record with <every> field & `code`\n"
        "minimal-record  memory         Minimal record\n"
    )
    assert run("list", "--tag", "nccl", cwd=workspace).stdout.split()[:1] == ["full-record"]
    assert run("list", "--category", "memory", cwd=workspace).stdout.startswith("minimal-record  memory ")
    none = run("list", "--tag", "no-such-tag", cwd=workspace)
    assert (none.returncode, none.stdout) == (1, "")
    assert run("list", "--category", "plumbing", cwd=workspace).returncode == 2


@pytest.mark.parametrize(
    ("query", "record"),
    [
        ("NCCL error 2", "nccl-system-error"),
        ("Xid 79", "xid-79-fallen-off-bus"),
        ("OOM", "host-oom-kill"),
        ("bus error", "dataloader-shm-bus-error"),
        ("weights_only", "torch-load-weights-only"),
        ("CUDA out of memory", "cuda-out-of-memory"),
    ],
)
def test_search_puts_the_record_first(query: str, record: str) -> None:
    assert search(CATALOG, query, INDEX)[0][0].id == record


def test_search_from_the_command_line() -> None:
    result = run("search", "Xid", "79", "--top", "2")
    assert result.returncode == 0
    assert result.stdout.splitlines()[0] == "xid-79-fallen-off-bus: GPU has fallen off the bus (Xid 79)"
    assert len(result.stdout.splitlines()) == 2
    nothing = run("search", "zzqqxx")
    assert (nothing.returncode, nothing.stdout) == (1, "")
    assert run("search", "oom", "--top", "0").returncode == 2


# Records whose first example line ranks another record first, held exactly: flash-attn's line is
# a "No module named ..." import error that python-module-not-found covers in general; the
# memlock record's ibv_reg_mr line finds nccl-ib-reg-mr-failed (the ibv_reg_mr record) first; the
# generic pip build record's "Failed building wheel for levenshtein" finds flash-attn's build record,
# which names the same pip line.
FIRST_EXAMPLE_MISSES = ["flash-attn-import-error", "nccl-memlock-limit", "pip-wheel-build-failed"]


def test_search_finds_each_record_by_its_first_example_line() -> None:
    misses = [e.id for e in CATALOG.entries if search(CATALOG, e.signatures[0].match[0], INDEX)[0][0].id != e.id]
    assert misses == FIRST_EXAMPLE_MISSES


def test_search_splits_words_as_the_site_does() -> None:
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert f"separator: '{SITE_SEPARATOR}'" in config
    assert tokens("torch.OutOfMemoryError: SeqNum=2, e.g. NCCL 2.18.3 Xid 79") == [
        "torch", "out", "of", "memory", "error", "seq", "num", "2", "nccl", "2.18.3", "xid", "79",
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("typo", "first"), [("nccl", "nccl-aborted-communicator"), ("NCCL-SYSTEM-ERROR", "nccl-system-error")]
)
def test_explain_suggests_close_ids(typo: str, first: str) -> None:
    result = run("explain", typo)
    assert result.returncode == 1 and result.stdout == ""
    suggested = result.stderr.split("did you mean: ", 1)[1].split(";")[0].split(", ")
    assert suggested[0] == first and len(suggested) == 5
    assert all(s in CATALOG.by_id for s in suggested)
    assert result.stderr.endswith(f"; or: failpedia search {typo}\n")


def test_explain_shows_every_section_with_hanging_indents(workspace: Path) -> None:
    result = run("explain", "full-record", cwd=workspace)
    headings = [line for line in result.stdout.splitlines() if line.isupper() and not line.startswith(" ")]
    assert headings == [
        "SYMPTOMS", "OBSERVATIONS", "MECHANISM", "ROOT CAUSES", "CONFIRM", "FIX", "PREVENTION", "ENVIRONMENT",
        "VERSIONS", "CODE", "FAQ", "SCALE", "CONFUSED WITH", "AFFECTED", "FINGERPRINTS", "REFERENCES",
    ]  # fmt: skip
    assert (
        "  - <img src=x onerror=alert(1)>: An HTML-looking signal that must print as text | with\n    a pipe.\n"
        in result.stdout
    )
    assert "  - Set a timeout (pytorch, python)\n      import datetime\n" in result.stdout
    assert "  Q: Is <b>this</b> an NCCL bug?\n  A: Rarely. Read the `Last error:` line first.\n" in result.stdout
    assert "  large: Common at 1,000 GPUs.\n" in result.stdout
    assert "  - minimal-record: Only this one prints NCCL WARN.\n" in result.stdout


def test_an_unusable_input_prints_only_its_error(tmp_path: Path) -> None:
    binary = tmp_path / "core.bin"
    binary.write_bytes(b"\x7fELF" + b"\x00" * 4000)
    for name, message in (
        (str(tmp_path / "missing.log"), "no such file"),
        (str(tmp_path), "is a directory"),
        (str(binary), "binary file (not a text log); skipped"),
    ):
        result = run("diagnose", name)
        assert (result.returncode, result.stdout, result.stderr) == (2, "", f"failpedia: {name}: {message}\n")


@pytest.mark.parametrize("value", ["0", "-1", "x"])
def test_top_below_one_is_refused(value: str) -> None:
    result = run("diagnose", "--top", value, "-", stdin="")
    assert result.returncode == 2 and "argument --top: " in result.stderr and "Traceback" not in result.stderr


def test_diagnose_without_arguments_on_a_terminal_says_it_reads_stdin() -> None:
    leader, follower = pty.openpty()
    env = {**os.environ, "NO_COLOR": "1"}
    cmd = [sys.executable, "-m", "generator", "diagnose"]
    with subprocess.Popen(cmd, cwd=ROOT, stdin=follower, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env) as p:
        os.close(follower)
        os.write(leader, b"step 1 loss 2.0\n\x04")
        out, err = p.communicate(timeout=120)
    os.close(leader)
    assert err.decode().startswith(
        "failpedia: reading the log from standard input (end with Ctrl-D; or name a log file)\n"
    )
    assert out.startswith(b"No known failure signature matched.\n") and p.returncode == 1
    piped = run("diagnose", stdin="step 1 loss 2.0\n")
    assert "reading the log" not in piped.stderr


def test_progress_uses_rich_and_falls_back_to_a_plain_bar(monkeypatch: pytest.MonkeyPatch) -> None:
    shown = io.StringIO()
    monkeypatch.setattr(sys, "stderr", shown)
    bar = ProgressBar([100_000_000])
    bar.enabled = True  # a terminal would enable it
    bar(0, 50_000_000)
    assert isinstance(bar.rich, tuple)
    bar.finish()
    assert "scanning" in shown.getvalue()
    plain = io.StringIO()
    monkeypatch.setattr(sys, "stderr", plain)
    monkeypatch.setitem(sys.modules, "rich.progress", None)  # as if rich were not installed
    bar = ProgressBar([100_000_000])
    bar.enabled = True
    bar(0, 50_000_000)
    bar.finish()
    assert bar.rich is False
    assert plain.getvalue() == f"\rscanning [{'#' * 15:<30}]  50%       50 MB\r{' ' * 60}\r"
