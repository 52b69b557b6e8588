"""The Python API: `failpedia.diagnose` answers as `failpedia diagnose --json` does, with typed findings."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

import failpedia
from tests.realworld import load_cases

ROOT = Path(__file__).resolve().parent.parent
OOM = "[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.00 GiB"
SHM = "misc/shmutils.cc:72 NCCL WARN Error: failed to extend /dev/shm/nccl-KtwkT6 to 9637892 bytes"


def cli_json(path: Path) -> dict[str, object]:
    command = [sys.executable, "-m", "generator", "diagnose", "--json", str(path)]
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
    return json.loads(result.stdout)  # type: ignore[no-any-return]


def test_the_api_gives_the_cli_json_answer_for_each_real_case(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    for case in load_cases("failures")[:6]:
        log = tmp_path / f"{case.name}.log"
        log.write_text(case.log, encoding="utf-8")
        assert failpedia.diagnose(log).json == cli_json(log), case.name


def test_findings_are_typed_views_of_the_json(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    result = failpedia.diagnose("setting up\n" + OOM + "\n")
    schema = json.loads((ROOT / "schema/diagnosis.schema.json").read_text(encoding="utf-8"))
    jsonschema.validate(result.json, schema)
    finding = result.findings[0]
    assert (finding.id, finding.lines, finding.ranks, finding.first) == (
        "cuda-out-of-memory",
        1,
        (0,),
        failpedia.Place("<log 1>", 2, None),
    )
    assert finding.evidence == (failpedia.Evidence("<log 1>", 2, OOM, finding.evidence[0].signature),)
    assert isinstance(finding.fix, failpedia.Fix) and finding.fix.first_step
    assert all(isinstance(c, failpedia.Cause) for c in finding.causes) and finding.causes
    assert finding.url == "entries/cuda-out-of-memory/" and result.catalog == "local records in entries"


def test_text_bytes_and_paths_are_read_as_such(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    log = tmp_path / "rank1.log"
    log.write_text(SHM + "\n", encoding="utf-8")
    assert [f.id for f in failpedia.diagnose(str(log)).findings] == ["nccl-shm-exhausted"]
    assert failpedia.diagnose(str(log)).findings[0].files == (str(log),)
    assert [f.id for f in failpedia.diagnose(OOM.encode()).findings] == ["cuda-out-of-memory"]
    both = failpedia.diagnose([log, OOM])
    assert sorted(f.id for f in both.findings) == ["cuda-out-of-memory", "nccl-shm-exhausted"]
    assert failpedia.diagnose(str(tmp_path / "missing.log")).findings == ()  # a one-line text, not a file


def test_a_missing_file_given_as_a_path_is_a_problem_not_a_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    result = failpedia.diagnose(tmp_path / "missing.log")
    assert result.findings == () and result.problems == (f"{tmp_path / 'missing.log'}: no such file",)


def test_no_catalog_and_bad_arguments_raise_clear_errors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    with pytest.raises(ValueError, match="top must be at least 1, not 0"):
        failpedia.diagnose(OOM, top=0)
    with pytest.raises(failpedia.CatalogError, match=f"no such catalog directory: {tmp_path / 'nowhere'}"):
        failpedia.diagnose(OOM, catalog=tmp_path / "nowhere")
    monkeypatch.setenv("FAILPEDIA_CATALOG", str(ROOT))
    assert failpedia.diagnose(OOM, top=1).catalog == f"local records in {ROOT / 'entries'}"


def test_site_url_makes_the_urls_absolute(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    finding = failpedia.diagnose(OOM, site_url="https://example.test/fp/").findings[0]
    assert finding.url == "https://example.test/fp/entries/cuda-out-of-memory/"


def test_the_sites_api_example_runs_as_shown(tmp_path: Path) -> None:
    page = (ROOT / "generator/site/templates/reference-elsewhere.md.j2").read_text(encoding="utf-8")
    code = page.split("```python\n", 1)[1].split("```", 1)[0]
    (tmp_path / "train.log").write_text(OOM + "\n", encoding="utf-8")
    env = {"PYTHONPATH": str(ROOT), "FAILPEDIA_CATALOG": str(ROOT), "PATH": "/usr/bin:/bin"}
    env["FAILPEDIA_CACHE_DIR"] = str(tmp_path / "cache")
    result = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, env=env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[:2] == [
        "cuda-out-of-memory entries/cuda-out-of-memory/",
        "  first seen: train.log 1 None",
    ]
