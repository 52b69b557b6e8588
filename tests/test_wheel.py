"""The wheel carries its catalog: built from a copy of the repository, installed into a fresh venv, used elsewhere."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from .realworld import load_cases

ROOT = Path(__file__).resolve().parent.parent


def run(*args: str | Path, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    result = subprocess.run([str(a) for a in args], cwd=cwd, capture_output=True, text=True, env=env, timeout=900)
    assert result.returncode in (0, 1), f"{args}: {result.stdout[-2000:]}{result.stderr[-4000:]}"
    return result


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv outside the repository with the wheel built from the tracked files installed."""
    base = tmp_path_factory.mktemp("wheel")
    source = base / "source"
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT, capture_output=True, text=True)
    for name in files.stdout.splitlines():
        if (ROOT / name).is_file():
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            (source / name).write_bytes((ROOT / name).read_bytes())
    run(sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", base / "dist", ".", cwd=source)
    wheel = next((base / "dist").glob("failpedia-*.whl"))
    run(sys.executable, "-m", "venv", base / "venv", cwd=base)
    run(base / "venv/bin/python", "-m", "pip", "install", "-q", wheel, cwd=base)
    return base


def outside(installed: Path, name: str) -> tuple[Path, dict[str, str]]:
    """Return a folder outside the checkout holding train.log (a real OOM case), and a clean env."""
    elsewhere = installed / name
    elsewhere.mkdir()
    case = next(c for c in load_cases("failures") if c.expect == "cuda-out-of-memory")
    (elsewhere / "train.log").write_text(case.log, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "FAILPEDIA_CATALOG")}
    env["FAILPEDIA_CACHE_DIR"] = str(installed / f"cache-{name}")
    return elsewhere, env


def test_the_installed_tool_diagnoses_with_its_packaged_catalog(installed: Path) -> None:
    elsewhere, env = outside(installed, "elsewhere")
    tool = installed / "venv/bin/failpedia"
    result = run(tool, "diagnose", "--json", "train.log", cwd=elsewhere, env=env)
    data = json.loads(result.stdout)
    assert data["findings"][0]["id"] == "cuda-out-of-memory"
    assert data["catalog"].startswith("packaged catalog, library ")
    assert "cuda-out-of-memory" in run(tool, "explain", "cuda-out-of-memory", cwd=elsewhere, env=env).stdout
    assert "CUDA error: out of memory" in run(tool, "export", "--format", "grep", cwd=elsewhere, env=env).stdout
    local = run(tool, "diagnose", "--catalog", ROOT, "train.log", cwd=elsewhere, env=env)
    assert f"local records in {ROOT}" in local.stderr


API_SCRIPT = """
import json, pathlib, failpedia
result = failpedia.diagnose(pathlib.Path("train.log"))
print(result.findings[0].id, result.findings[0].first.line, result.catalog.split(",")[0])
print(json.dumps(result.json["findings"]))
"""


def test_the_installed_api_diagnoses_with_its_packaged_catalog(installed: Path) -> None:
    elsewhere, env = outside(installed, "api")
    result = run(installed / "venv/bin/python", "-c", API_SCRIPT, cwd=elsewhere, env=env)
    summary, findings = result.stdout.splitlines()
    cli = json.loads(
        run(installed / "venv/bin/failpedia", "diagnose", "--json", "train.log", cwd=elsewhere, env=env).stdout
    )
    assert json.loads(findings) == cli["findings"]
    assert summary.split() == ["cuda-out-of-memory", str(cli["findings"][0]["first"]["line"]), "packaged", "catalog"]


def test_the_wheel_is_small(installed: Path) -> None:
    wheel = next((installed / "dist").glob("failpedia-*.whl"))
    assert wheel.stat().st_size < 2_000_000
