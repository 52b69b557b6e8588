"""Exports: the library's schema, determinism and version lock, and conformance of every
export with the reference matcher, run in each target's own engine (GNU grep, ripgrep,
RE2 for LogQL, pySigma's Loki and Elasticsearch backends)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
import re2
import yaml

from generator.patterns.normalize import normalize_line
from generator.records.pipeline import load_catalog
from generator.records.schema import load_schema
from generator.signatures.export import EXPORTERS, ExportOptions, record_regex
from generator.signatures.library import LIBRARY_SCHEMA, read_lock, required_bump
from generator.signatures.match import Matcher

from .realworld import load_cases

ROOT = Path(__file__).resolve().parent.parent
CATALOG = load_catalog([ROOT / "entries"], ROOT).catalog
MATCHER = Matcher(CATALOG.signatures)
OPTIONS = ExportOptions(site_url="https://example.org/failpedia")


def corpus_lines() -> list[str]:
    """Every real-world log line and every signature example, raw (as users' tools see them)."""
    lines: list[str] = []
    for kind in ("failures", "benign"):
        for case in load_cases(kind):
            lines += case.log.splitlines()
    for sig in CATALOG.signatures:
        lines += [*sig.match, *sig.no_match]
    return [line for line in lines if "\r" not in line and "\n" not in line]


LINES = corpus_lines()
NORMALISED = [normalize_line(line) for line in LINES]


def ours(sig_index: int) -> set[int]:
    """Return the 1-based corpus line numbers the reference matcher matches for one signature."""
    rx = MATCHER.compiled[sig_index]
    return {n for n, line in enumerate(NORMALISED, 1) if rx.search(line)}


def require_tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        if os.environ.get("CI"):
            pytest.fail(f"{name} is required in CI (.ci/run installs it)")
        pytest.skip(f"{name} is not installed here; CI installs it")
    return path


@pytest.fixture(scope="module")
def grep_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("grep")
    bundle = EXPORTERS["grep"](CATALOG, OPTIONS)
    assert bundle.problems == []
    for name, data in bundle.files.items():
        (out / name).write_bytes(data)
    (out / "corpus.txt").write_text("\n".join(LINES) + "\n", encoding="utf-8")
    return out


def pattern_lines(path: Path) -> dict[str, str]:
    patterns = path.read_text(encoding="utf-8").splitlines()
    rows = path.with_name(path.name + ".map.tsv").read_text(encoding="utf-8").splitlines()[1:]
    return {row.split("\t")[1]: patterns[int(row.split("\t")[0]) - 1] for row in rows}


def run_tool(command: list[str]) -> set[int]:
    result = subprocess.run(command, capture_output=True, env={**os.environ, "LC_ALL": "C"})
    assert result.returncode in (0, 1), result.stderr
    return {int(line.split(b":", 1)[0]) for line in result.stdout.splitlines()}


@pytest.mark.parametrize("tool", ["grep", "rg"])
def test_pattern_files_match_exactly_what_the_matcher_matches(tool: str, grep_bundle: Path) -> None:
    exe = require_tool(tool)
    name = "failpedia.ere" if tool == "grep" else "failpedia.rg"
    by_id = pattern_lines(grep_bundle / name)
    corpus = str(grep_bundle / "corpus.txt")
    mismatched = []
    for index, sig in enumerate(MATCHER.signatures):
        single = grep_bundle / "one.pattern"
        single.write_text(by_id[sig.id] + "\n", encoding="utf-8")
        args = ["-E", "-n", "-f"] if tool == "grep" else ["-n", "--no-heading", "-f"]
        if run_tool([exe, *args, str(single), corpus]) != ours(index):
            mismatched.append(sig.id)
    assert mismatched == []
    everything = set().union(*(ours(i) for i in range(len(MATCHER.signatures))))
    args = ["-E", "-n", "-f"] if tool == "grep" else ["-n", "--no-heading", "-f"]
    assert run_tool([exe, *args, str(grep_bundle / name), corpus]) == everything


def test_loki_rules_match_exactly_per_record() -> None:
    bundle = EXPORTERS["loki"](CATALOG, OPTIONS)
    document = yaml.safe_load(bundle.files["failpedia-loki-rules.yaml"])
    rules = {rule["labels"]["failpedia_id"]: rule for rule in document["groups"][0]["rules"]}
    assert set(rules) == set(CATALOG.by_id)
    for entry in CATALOG.entries:
        rule = rules[entry.id]
        quoted = re.search(r'\|~ ("(?:[^"\\]|\\.)*") \[5m\]\) > 0$', rule["expr"])
        assert quoted, rule["expr"]
        regex = re2.compile(json.loads(quoted.group(1)))
        expected = set().union(*(ours(MATCHER.signatures.index(sig)) for sig in entry.signatures))
        assert {n for n, line in enumerate(NORMALISED, 1) if regex.search(line)} == expected, entry.id
        assert rule["annotations"]["runbook_url"] == f"https://example.org/failpedia/entries/{entry.id}/"
        assert json.loads(quoted.group(1)) == record_regex(entry)


def test_sigma_rules_parse_and_convert_with_loki_and_elasticsearch() -> None:
    from sigma.backends.elasticsearch import LuceneBackend
    from sigma.backends.loki import LogQLBackend
    from sigma.collection import SigmaCollection

    bundle = EXPORTERS["sigma"](CATALOG, OPTIONS)
    rules = {name: data for name, data in bundle.files.items() if name != "all.yml"}
    assert len(rules) == len(CATALOG.entries)
    collection = SigmaCollection.from_yaml(bundle.files["all.yml"].decode())
    assert len(collection.rules) == len(CATALOG.entries)
    assert all(not rule.errors for rule in collection.rules)
    loki = LogQLBackend().convert(collection)
    lucene = LuceneBackend().convert(collection)
    assert len(loki) == len(lucene) == len(CATALOG.entries)
    for entry, query in zip(CATALOG.entries, loki, strict=True):
        found = re.findall(r"message=~`((?:[^`])*)`|message=~\"((?:[^\"\\]|\\.)*)\"", query)
        regexes = [a if a else json.loads(f'"{b}"') for a, b in found]
        assert len(regexes) == len(entry.signatures), entry.id
        for sig, regex in zip(entry.signatures, regexes, strict=True):
            compiled = re2.compile(regex)
            matched = {n for n, line in enumerate(NORMALISED, 1) if compiled.search(line)}
            assert matched == ours(MATCHER.signatures.index(sig)), sig.id


def test_library_validates_and_is_deterministic() -> None:
    first = EXPORTERS["json"](CATALOG, OPTIONS).files["signatures.json"]
    second = EXPORTERS["json"](load_catalog([ROOT / "entries"], ROOT).catalog, OPTIONS).files["signatures.json"]
    assert first == second
    library = json.loads(first)
    jsonschema.Draft202012Validator(load_schema(LIBRARY_SCHEMA)).validate(library)
    assert len(library["signatures"]) == len(CATALOG.signatures)
    # The committed file itself, not read_lock(): a lock reader that lost the file would
    # return its default to both sides.
    committed = json.loads((ROOT / "schema" / "library.lock.json").read_text(encoding="utf-8"))
    assert committed["version"] != "0.0.0"
    assert library["library_version"] == committed["version"]


def test_library_lock_is_current() -> None:
    bump = required_bump(read_lock(), CATALOG)
    assert bump == "", f"signatures changed ({bump}); run `failpedia lock` and commit schema/library.lock.json"


def cli(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "generator", "export", *args], cwd=cwd, capture_output=True)


def test_unknown_format_exits_2_and_lists_formats() -> None:
    result = cli("--format", "splunk")
    assert result.returncode == 2
    assert b"choose from 'grep', 'json', 'loki', 'sigma'" in result.stderr


def test_outputs_to_file_directory_and_stdout(tmp_path: Path) -> None:
    assert cli("--format", "json", "-o", str(tmp_path / "lib.json")).returncode == 0
    assert json.loads((tmp_path / "lib.json").read_bytes())["schema"] == "signatures.schema.json"
    assert cli("--format", "sigma", "-o", str(tmp_path / "rules")).returncode == 0
    assert (tmp_path / "rules" / "cuda-out-of-memory.yml").is_file()
    stdout = cli("--format", "loki").stdout
    assert stdout.startswith(b"groups:")
    assert not list(tmp_path.rglob(".*"))


def test_unwritable_target_leaves_no_partial_file(tmp_path: Path) -> None:
    target = tmp_path / "lib.json"
    target.write_text("previous", encoding="utf-8")
    blocker = tmp_path / "file"
    blocker.write_text("x", encoding="utf-8")
    result = cli("--format", "grep", "-o", str(blocker / "sub"))
    assert result.returncode == 2 and b"cannot write" in result.stderr
    assert target.read_text(encoding="utf-8") == "previous"


def test_untranslatable_signature_is_reported_by_id(tmp_path: Path) -> None:
    text = (ROOT / "tests" / "fixtures" / "valid" / "minimal-record.yaml").read_text(encoding="utf-8")
    text = text.replace(
        'pattern: "Widget exploded after [0-9]+ tries"', 'pattern: "Widget[^\\\\S]exploded after [0-9]+ tries"'
    )
    folder = tmp_path / "entries" / "memory"
    folder.mkdir(parents=True)
    (folder / "minimal-record.yaml").write_text(text, encoding="utf-8")
    loaded = load_catalog([tmp_path / "entries"], tmp_path)
    assert loaded.ok, loaded.issues
    bundle = EXPORTERS["grep"](loaded.catalog, OPTIONS)
    assert [p.split(":")[1].strip() for p in bundle.problems] == ["minimal-record-exploded"] * 2
    assert bundle.files["failpedia.ere"] == b"" and bundle.files["failpedia.rg"] == b""
    result = cli("--format", "grep", "-o", str(tmp_path / "out"), cwd=tmp_path)
    assert result.returncode == 1
    assert b"not exported: failpedia.ere: minimal-record-exploded" in result.stderr
