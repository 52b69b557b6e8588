"""The VS Code extension's matching, diagnostics and panel, run under Node against the CLI's answers.

The extension in a real VS Code (code-server) is `make editor-test`; this part runs everywhere.
"""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import subprocess
import sys
from html import escape
from pathlib import Path

import pytest

from generator.diagnosis.diagnose import diagnose
from generator.diagnosis.explain import cause_texts
from generator.diagnosis.logread import Source
from generator.records.pipeline import load_catalog
from generator.signatures.facts import fact_signatures
from generator.signatures.match import Matcher

from .realworld import load_cases

ROOT = Path(__file__).resolve().parent.parent
EXTENSION = ROOT / "editors" / "vscode"


@pytest.fixture(scope="module")
def extension(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the extension with its lib/ built as `make vscode` builds it."""
    target = tmp_path_factory.mktemp("vscode") / "extension"
    shutil.copytree(EXTENSION / "src", target / "src")
    (target / "lib").mkdir()
    shutil.copy(ROOT / "overrides/assets/javascripts/failpedia-core.js", target / "lib")
    command = [
        sys.executable,
        "-m",
        "generator",
        "export",
        "--format",
        "json",
        "-o",
        str(target / "lib/signatures.json"),
    ]
    subprocess.run(command, cwd=ROOT, check=True, capture_output=True)
    return target


def node_run(extension: Path, logs: list[dict[str, str]], tmp_path: Path) -> dict[str, object]:
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is required to test the VS Code extension's matching")
    listed = tmp_path / "logs.json"
    listed.write_text(json.dumps(logs), encoding="utf-8")
    env = {**os.environ, "NODE_PATH": str(ROOT / "node_modules")}  # re2js, as the .vsix carries it
    script = ROOT / "tests/js/vscode_check.js"
    result = subprocess.run([node, str(script), str(extension), str(listed)], capture_output=True, text=True, env=env)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)  # type: ignore[no-any-return]


def cli_answer(log: Path) -> dict[str, object]:
    command = [sys.executable, "-m", "generator", "diagnose", "--json", "--top", "100", str(log)]
    return json.loads(subprocess.run(command, cwd=ROOT, capture_output=True, text=True).stdout)  # type: ignore[no-any-return]


def test_the_extension_finds_what_the_cli_finds_on_real_logs(extension: Path, tmp_path: Path) -> None:
    for case in load_cases("failures")[:8]:
        log = tmp_path / "train.log"
        log.write_text(case.log, encoding="utf-8")
        answer = cli_answer(log)
        got = node_run(extension, [{"name": str(log), "text": case.log}], tmp_path)
        assert got["ids"] == [f["id"] for f in answer["findings"]], case.name  # type: ignore[index]
        lines = sorted({(e["line"] - 1, f["id"]) for f in answer["findings"] for e in f["evidence"]})  # type: ignore[index]
        marks = sorted({(d["line"], d["record"]) for d in got["diagnostics"][str(log)]})  # type: ignore[index]
        assert set(lines) <= set(marks), case.name  # every evidence line the CLI lists is squiggled


def test_every_matching_line_gets_a_diagnostic(extension: Path, tmp_path: Path) -> None:
    oom = "[rank{0}]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.00 GiB"
    text = "\n".join(["start", *(oom.format(r) for r in range(8)), "end"])
    got = node_run(extension, [{"name": "a.log", "text": text}], tmp_path)
    marks = got["diagnostics"]["a.log"]  # type: ignore[index]
    assert [(d["line"], d["record"]) for d in marks] == [(n, "cuda-out-of-memory") for n in range(1, 9)]
    assert marks[0]["message"].startswith("CUDA out of memory")
    assert "Likely cause: " in marks[0]["message"] and "First fix: " in marks[0]["message"]


def test_the_panel_escapes_log_text_and_links_to_the_site(extension: Path, tmp_path: Path) -> None:
    line = "[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate <script>alert(1)</script>"
    html = str(node_run(extension, [{"name": "x<y>.log", "text": line}], tmp_path)["html"])
    assert "<script>alert(1)" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert 'href="https://example.test/fp/entries/cuda-out-of-memory/"' in html
    assert "x&lt;y&gt;.log:1" in html
    assert html.count("<script") == 1 and "script-src 'nonce-n0nce'" in html


def test_the_panel_orders_causes_by_the_log_as_the_cli_does(extension: Path, tmp_path: Path) -> None:
    text = "NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.25.1"
    catalog = load_catalog([ROOT / "entries"], ROOT).catalog
    matcher = Matcher((*catalog.signatures, *fact_signatures()))
    (finding,) = diagnose([Source("a.log", io.BytesIO(text.encode()))], matcher, catalog).findings
    expected = cause_texts(finding)
    assert expected[1].endswith("(NCCL 2.25.1 is >=2.13 (a.log:1))")
    html = str(node_run(extension, [{"name": "a.log", "text": text}], tmp_path)["html"])
    shown = re.findall(r'<p class="cause">(.*?)</p>', html)
    assert shown == [escape(t).replace("&#x27;", "&#39;") for t in expected]


def test_terminal_output_loses_its_escape_codes_before_matching(extension: Path, tmp_path: Path) -> None:
    # What shell integration streams: OSC 633 command marks, colours, CRLF line ends.
    raw = (
        "\x1b]633;C\x07\x1b[31m[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.00 GiB"
        "\x1b[0m\r\n\x1b]633;D;1\x07"
    )
    got = node_run(extension, [{"name": "terminal bash", "text": raw, "terminal": "1"}], tmp_path)
    assert got["ids"] == ["cuda-out-of-memory"]
    assert got["evidence"] == [["[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.00 GiB"]]
