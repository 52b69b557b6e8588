"""Contributor tooling: new --from-log, the collision check, published ids, the PR workflow."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from .realworld import load_cases

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A copy of the project's records, published ids and healthy-log corpus."""
    shutil.copytree(ROOT / "entries", tmp_path / "entries")
    (tmp_path / "schema").mkdir()
    shutil.copy(ROOT / "schema" / "published-ids.txt", tmp_path / "schema")
    shutil.copytree(ROOT / "tests" / "realworld" / "benign", tmp_path / "tests" / "realworld" / "benign")
    return tmp_path


def run(cwd: Path, *args: str, cache: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "FAILPEDIA_CACHE_DIR": str(cache or cwd / ".cache")}
    return subprocess.run([sys.executable, "-m", "generator", *args], cwd=cwd, capture_output=True, text=True, env=env)


def test_from_log_lists_the_existing_record_and_asks(project: Path) -> None:
    case = next(c for c in load_cases("failures") if c.expect == "cuda-out-of-memory")
    log = project / "oom.log"
    log.write_text(case.log, encoding="utf-8")
    refused = run(project, "new", "oom-again", "--category", "memory", "--from-log", str(log))
    assert refused.returncode == 1
    assert "cuda-out-of-memory" in refused.stderr and "--yes" in refused.stderr
    assert not (project / "entries" / "memory" / "oom-again.yaml").exists()
    accepted = run(project, "new", "oom-again", "--category", "memory", "--from-log", str(log), "--yes")
    assert accepted.returncode == 0, accepted.stderr
    record = yaml.safe_load((project / "entries" / "memory" / "oom-again.yaml").read_text(encoding="utf-8"))
    assert record["signatures"][0]["examples"]["match"]


def test_from_log_proposes_a_generalised_signature_that_validates(project: Path) -> None:
    log = project / "new.log"
    log.write_text(
        "step 1\n[rank0]: Traceback (most recent call last):\n"
        "[rank0]: RuntimeError: Frobnicator exploded at 0x7f3a9c after 1234 retries in /opt/x/frob.py\n",
        encoding="utf-8",
    )
    result = run(project, "new", "frobnicator-exploded", "--category", "data", "--from-log", str(log))
    assert result.returncode == 0, result.stderr
    path = project / "entries" / "data" / "frobnicator-exploded.yaml"
    sig = yaml.safe_load(path.read_text(encoding="utf-8"))["signatures"][0]
    assert sig["pattern"] == "RuntimeError: Frobnicator exploded at 0x[0-9a-fA-F]+ after [0-9.]+ retries in [^ ]+"
    assert sig["examples"]["match"] == [
        {
            "line": "[rank0]: RuntimeError: Frobnicator exploded at 0x7f3a9c after 1234 retries in /opt/x/frob.py",
            "from": "log",
            "url": "https://example.org/TODO-the-public-thread-where-this-log-was-posted",
        }
    ]
    check = run(project, "validate", str(path))
    # The seeded signature passes every check; only the skeleton's placeholders are refused.
    assert check.returncode == 1
    problems = check.stdout.splitlines()
    assert problems and all("error[record.placeholder]" in line for line in problems), check.stdout
    assert not any("/signatures/0/pattern" in line for line in problems)  # the placeholder is the thread URL


def test_collision_check_fires_on_a_planted_overlap(project: Path) -> None:
    planted = project / "entries" / "memory" / "planted-overlap.yaml"
    text = (ROOT / "tests" / "fixtures" / "valid" / "minimal-record.yaml").read_text(encoding="utf-8")
    text = text.replace("minimal-record", "planted-overlap").replace(
        'pattern: "Widget exploded after [0-9]+ tries"',
        'pattern: "CUDA out of memory|Widget exploded after [0-9]+ tries"',
    )
    planted.write_text(text, encoding="utf-8")
    result = run(project, "validate")
    assert result.returncode == 1
    collisions = [line for line in result.stdout.splitlines() if "signature.collision" in line]
    assert collisions and all("planted-overlap" in line for line in collisions)
    assert any("cuda-out-of-memory" in line for line in collisions)


def test_deleting_a_published_record_fails_validation(project: Path) -> None:
    (project / "entries" / "memory" / "host-oom-kill.yaml").unlink()
    result = run(project, "validate")
    assert result.returncode == 1
    assert "schema/published-ids.txt" in result.stdout
    assert "catalog.missing-published-id" in result.stdout and "'host-oom-kill'" in result.stdout


def test_real_catalog_is_quiet_and_published_ids_are_all_live(tmp_path: Path) -> None:
    result = run(ROOT, "validate", cache=tmp_path / "cache")  # a clean run fills the cache: not in the repository
    assert result.returncode == 0, result.stdout
    assert result.stdout == ""


def test_workflow_runs_only_commands_that_exist() -> None:
    workflow = yaml.safe_load((ROOT / ".github" / "workflows" / "ci.yml").read_text(encoding="utf-8"))
    assert True in workflow or "on" in workflow  # YAML 1.1 reads the key `on` as True
    triggers = workflow.get("on", workflow.get(True))
    assert "pull_request" in triggers and "pull_request_target" not in triggers
    steps = workflow["jobs"]["check"]["steps"]
    checkout = next(step for step in steps if step.get("uses", "").startswith("actions/checkout"))
    assert checkout["with"]["persist-credentials"] is False
    targets = {line.split(":")[0] for line in (ROOT / "Makefile").read_text().splitlines() if ":" in line}
    from generator.cli import parser

    commands = set(parser()._subparsers._group_actions[0].choices)  # type: ignore[union-attr]
    for step in steps:
        for line in step.get("run", "").splitlines():
            words = shlex.split(line.split("&&")[-1].split(">>")[0]) if line.strip() else []
            if words[:1] == ["make"]:
                assert words[1] in targets, line
            if words and words[0].endswith("failpedia"):
                assert words[1] in commands, line


def test_fmt_orders_keys_keeps_comments_and_is_idempotent(tmp_path: Path) -> None:
    source = (ROOT / "tests" / "fixtures" / "valid" / "minimal-record.yaml").read_text(encoding="utf-8")
    head, _, body = source.partition("id: minimal-record\n")
    shuffled = (
        head + "tags: [test]  # keep this comment\n" + "id: minimal-record\n" + body.replace("tags: [test]\n", "")
    )
    shuffled = shuffled.replace("summary:", "# a comment above the summary\nsummary:")
    folder = tmp_path / "entries" / "memory"
    folder.mkdir(parents=True)
    path = folder / "minimal-record.yaml"
    path.write_text(shuffled, encoding="utf-8")
    assert run(tmp_path, "fmt", "--check").returncode == 1
    assert run(tmp_path, "fmt").returncode == 0
    once = path.read_text(encoding="utf-8")
    keys = [line.split(":")[0] for line in once.splitlines() if line and line[0].isalpha()]
    assert keys[:2] == ["id", "title"] and keys.index("tags") > keys.index("fix")
    assert "# keep this comment" in once and "# a comment above the summary\nsummary:" in once
    assert "# yaml-language-server" in once
    assert run(tmp_path, "fmt", "--check").returncode == 0
    assert run(tmp_path, "fmt").returncode == 0 and path.read_text(encoding="utf-8") == once
    assert run(tmp_path, "validate", str(path)).returncode == 0


def test_shipped_records_are_canonical(tmp_path: Path) -> None:
    result = run(ROOT, "fmt", "--check", cache=tmp_path / "cache")
    assert result.returncode == 0, result.stdout + result.stderr
