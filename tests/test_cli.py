"""The failpedia command as a user runs it: exit codes, output formats, no tracebacks."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"


def run(
    *args: str, cwd: Path = ROOT, stdin: str | None = None, cache: Path | None = None
) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_COLOR": "1"}
    if cache is not None:
        env["FAILPEDIA_CACHE_DIR"] = str(cache)
    return subprocess.run(
        [sys.executable, "-m", "generator", *args], cwd=cwd, capture_output=True, text=True, input=stdin, env=env
    )


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A copy of the site configuration with the valid fixture records as its entries."""
    shutil.copy(ROOT / "mkdocs.yml", tmp_path / "mkdocs.yml")
    shutil.copytree(ROOT / "overrides", tmp_path / "overrides")
    for name, category in (("minimal-record", "memory"), ("full-record", "communication")):
        target = tmp_path / "entries" / category
        target.mkdir(parents=True, exist_ok=True)
        shutil.copy(FIXTURES / "valid" / f"{name}.yaml", target)
    return tmp_path


def test_validate_clean_exits_0() -> None:
    result = run("validate", "tests/fixtures/valid")
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout == ""


def test_validate_problems_exit_1_with_exact_lines() -> None:
    path = "tests/fixtures/invalid/schema-errors.yaml"
    result = run("validate", path)
    assert result.returncode == 1
    expected = (FIXTURES / "invalid" / "schema-errors.expected").read_text(encoding="utf-8")
    assert result.stdout == expected
    assert "Traceback" not in result.stderr


def test_validate_json_format() -> None:
    result = run("validate", "--format", "json", "tests/fixtures/invalid/bad-syntax.yaml")
    assert result.returncode == 1
    issues = json.loads(result.stdout)["issues"]
    assert issues == [
        {
            "file": "tests/fixtures/invalid/bad-syntax.yaml",
            "line": 3,
            "col": 8,
            "pointer": "",
            "code": "yaml.syntax",
            "severity": "error",
            "message": "did not find expected ',' or ']'",
        }
    ]


def test_validate_github_format_annotates_lines() -> None:
    result = run("validate", "--format", "github", "tests/fixtures/invalid/wrong-name.yaml")
    assert result.returncode == 1
    first = result.stdout.splitlines()[0]
    assert first.startswith(
        "::error file=tests/fixtures/invalid/wrong-name.yaml,line=1,col=5,title=catalog.id-mismatch::"
    )


@pytest.mark.parametrize("args", [("validate", "no/such/path"), ("validate", "--format", "xml"), ("frobnicate",)])
def test_usage_errors_exit_2(args: tuple[str, ...]) -> None:
    result = run(*args)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr


def test_explain_plain_when_piped(workspace: Path) -> None:
    result = run("explain", "full-record", cwd=workspace)
    assert result.returncode == 0
    assert "\x1b[" not in result.stdout
    assert result.stdout.startswith("Full record with <every> field & `code`\n")
    assert "1. Find the first rank that failed." in result.stdout


def test_explain_unknown_id_suggests(workspace: Path) -> None:
    result = run("explain", "full-recrd", cwd=workspace)
    assert result.returncode == 1
    assert "did you mean: full-record" in result.stderr


def test_explain_follows_renames(workspace: Path) -> None:
    result = run("explain", "old-full-record", cwd=workspace)
    assert result.returncode == 0
    assert result.stdout.startswith("Full record")


def test_new_writes_a_skeleton_that_is_canonical_and_refused_until_filled(workspace: Path) -> None:
    result = run("new", "brand-new-failure", "--category", "memory", cwd=workspace)
    assert result.returncode == 0, result.stderr
    path = workspace / "entries" / "memory" / "brand-new-failure.yaml"
    assert path.read_text(encoding="utf-8").startswith("# yaml-language-server: $schema=")
    assert run("fmt", "--check", "entries/memory/brand-new-failure.yaml", cwd=workspace).returncode == 0
    check = run("validate", cwd=workspace)
    assert check.returncode == 1
    # Schema-valid: every problem is a placeholder (the title first, the example reference last).
    problems = check.stdout.splitlines()
    assert len(problems) == 18 and all("error[record.placeholder]" in line for line in problems), check.stdout
    assert problems[0].startswith("entries/memory/brand-new-failure.yaml:3:8: error[record.placeholder] /title:")
    assert "'https://example.org/replace-me' is a placeholder address" in problems[-1]
    build = run("build", cwd=workspace)
    assert build.returncode == 1 and "record.placeholder" in build.stdout + build.stderr
    assert not (workspace / "site" / "entries" / "brand-new-failure").exists()
    again = run("new", "brand-new-failure", "--category", "memory", cwd=workspace)
    assert again.returncode == 1


def test_new_refuses_bad_id(workspace: Path) -> None:
    result = run("new", "Bad_Id", "--category", "memory", cwd=workspace)
    assert result.returncode == 2


def test_build_then_broken_record_keeps_previous_site(workspace: Path) -> None:
    first = run("build", cwd=workspace)
    assert first.returncode == 0, first.stderr
    page = workspace / "site" / "entries" / "full-record" / "index.html"
    before = page.read_bytes()
    broken = workspace / "entries" / "memory" / "minimal-record.yaml"
    broken.write_text(broken.read_text(encoding="utf-8").replace("category: memory", "category: cooking"))
    second = run("build", cwd=workspace)
    assert second.returncode == 1
    assert "entries/memory/minimal-record.yaml:4:11: error[schema.enum] /category:" in second.stdout
    assert "Traceback" not in second.stdout + second.stderr
    assert page.read_bytes() == before
    assert not list(workspace.glob(".site-build-*"))


def test_two_builds_are_byte_identical(workspace: Path) -> None:
    for name in ("one", "two"):
        result = run("build", "--site-dir", name, cwd=workspace)
        assert result.returncode == 0, result.stderr
    one, two = site_bytes(workspace / "one"), site_bytes(workspace / "two")
    assert Path("sitemap.xml") in one and Path("api/v1/signatures.json") in one
    assert one.keys() == two.keys()
    assert [path for path in one if one[path] != two[path]] == []


def test_generated_files_and_sanitised_bodies_from_the_cache_give_the_same_site(workspace: Path) -> None:
    cache = workspace / "cache"
    for name in ("fresh", "cached"):
        result = run("build", "--site-dir", name, cwd=workspace, cache=cache)
        assert result.returncode == 0, result.stderr
    (kept,) = cache.glob("sanitized-*.json")
    bodies = json.loads(kept.read_text(encoding="utf-8"))
    assert len(bodies) >= 2 and all("<script" not in body for body in bodies.values())
    (outputs,) = cache.glob("outputs-*.json")
    assert "entries/full-record.md" in json.loads(outputs.read_text(encoding="utf-8"))
    assert site_bytes(workspace / "fresh") == site_bytes(workspace / "cached")


def test_a_clean_validate_spares_the_next_build_a_second_validation(workspace: Path) -> None:
    cache = workspace / "cache"
    assert run("validate", cwd=workspace, cache=cache).returncode == 0
    (records,) = cache.glob("records-*.json")
    # Marked so that the page shows whether the build read the records from the cache.
    records.write_text(records.read_text(encoding="utf-8").replace('"title": "', '"title": "Cached ', 1))
    assert run("build", cwd=workspace, cache=cache).returncode == 0
    assert list(cache.glob("records-*.json")) == [records]
    pages = (workspace / "site" / "entries").glob("*/index.html")
    assert any("Cached " in page.read_text(encoding="utf-8") for page in pages)


def test_a_changed_setting_or_hub_regenerates_the_pages(workspace: Path) -> None:
    cache = workspace / "cache"
    shutil.rmtree(workspace / "entries")
    shutil.copytree(ROOT / "entries", workspace / "entries")
    shutil.copytree(ROOT / "hubs", workspace / "hubs")
    assert run("build", cwd=workspace, cache=cache).returncode == 0
    site = workspace / "site"
    config = workspace / "mkdocs.yml"
    config.write_text(config.read_text(encoding="utf-8").replace('edit_url: ""', 'edit_url: "https://example.org/e/"'))
    assert run("build", cwd=workspace, cache=cache).returncode == 0
    assert "https://example.org/e/" in (site / "entries" / "xid-79-fallen-off-bus" / "index.html").read_text("utf-8")
    hub = workspace / "hubs" / "xid.yaml"
    hub.write_text(hub.read_text(encoding="utf-8").replace('title: "NVIDIA Xid', 'title: "Renamed NVIDIA Xid', 1))
    assert run("build", cwd=workspace, cache=cache).returncode == 0
    assert "Renamed NVIDIA Xid" in (site / "compare" / "xid" / "index.html").read_text(encoding="utf-8")
    assert len(list(cache.glob("outputs-*.json"))) == 1


def site_bytes(site: Path) -> dict[Path, bytes]:
    return {path.relative_to(site): path.read_bytes() for path in site.rglob("*") if path.is_file()}


def test_a_killed_build_leaves_the_previous_site(workspace: Path) -> None:
    assert run("build", cwd=workspace).returncode == 0
    page = workspace / "site" / "entries" / "full-record" / "index.html"
    before = page.read_bytes()
    env = {**os.environ, "NO_COLOR": "1"}
    command = [sys.executable, "-m", "generator", "build"]
    build = subprocess.Popen(command, cwd=workspace, env=env, start_new_session=True)
    deadline = time.monotonic() + 60
    while not list(workspace.glob(".site-build-*")) and time.monotonic() < deadline and build.poll() is None:
        time.sleep(0.01)
    # Killed mid-way, or the test proves nothing: the staging folder exists and the build runs.
    assert list(workspace.glob(".site-build-*")), "the build never started writing its staging folder"
    assert build.poll() is None, "the build finished before it could be killed"
    os.killpg(build.pid, signal.SIGKILL)  # the whole job, as a killed CI step or terminal would
    assert build.wait() == -signal.SIGKILL
    assert page.read_bytes() == before
    assert run("build", cwd=workspace).returncode == 0
    assert not list(workspace.glob(".site-build-*"))


def test_renamed_ids_redirect(workspace: Path) -> None:
    assert run("build", cwd=workspace).returncode == 0
    redirect = (workspace / "site" / "entries" / "old-full-record" / "index.html").read_text(encoding="utf-8")
    assert 'http-equiv="refresh" content="0; url=../full-record/"' in redirect
    assert (workspace / "site" / "entries" / "full-record" / "index.html").is_file()
