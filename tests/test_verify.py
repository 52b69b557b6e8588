"""failpedia verify: signatures checked against release archives, and the committed ledger read offline."""

from __future__ import annotations

import html
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from generator.records.ledger import (
    LEDGER_FILE,
    Checked,
    checked_releases,
    confirmed,
    ledger_digest,
    ledger_issues,
    needles,
    read_ledger,
    status_issues,
    version_key,
)
from generator.records.model import Catalog
from generator.records.pipeline import load_catalog
from generator.signatures import releases, verify
from generator.signatures.verify import ledger_entry, ledger_text, outcome_issues, release_outcome, verify_signature

from .workspace import write_record

ROOT = Path(__file__).resolve().parent.parent
MESSAGE = b"misc/shmutils.cc:%d NCCL WARN Error: failed to extend %s to %ld bytes"
RECORD = Path("entries/communication/nccl-shm-exhausted.yaml")
OOM_RECORD = Path("entries/memory/cuda-out-of-memory.yaml")


def wheel(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w") as zipped:
        for name, data in members.items():
            zipped.writestr(name, data)
    return path


def sdist(path: Path, members: dict[str, bytes]) -> Path:
    with tarfile.open(path, "w:gz") as tarred:
        for name, data in members.items():
            info = tarfile.TarInfo(f"pkg-1.0/{name}")
            info.size = len(data)
            tarred.addfile(info, io.BytesIO(data))
    return path


def library(with_message: bool) -> bytes:
    """Bytes shaped like a compiled library: binary noise around NUL-terminated C strings."""
    strings = [b"NCCL INFO Bootstrap", MESSAGE if with_message else b"NCCL WARN something else"]
    return b"\x7fELF\x00\x01" + b"\x00\x00\xff".join(strings) + b"\x00" * 64


def test_a_compiled_library_holds_the_text(tmp_path: Path) -> None:
    archive = wheel(tmp_path / "a.whl", {"nvidia/nccl/lib/libnccl.so.2": library(True)})
    outcome = release_outcome(archive, "nvidia/nccl/lib/libnccl.so*", ("Error: failed to extend",), "2.22.3")
    assert outcome == verify.Outcome("2.22.3", True, "")


def test_a_release_without_the_text_says_which_text_is_missing(tmp_path: Path) -> None:
    archive = wheel(tmp_path / "a.whl", {"nvidia/nccl/lib/libnccl.so.2": library(False)})
    texts = ("NCCL INFO Bootstrap", "Error: failed to extend")
    outcome = release_outcome(archive, "nvidia/nccl/lib/libnccl.so*", texts, "2.11.4")
    assert (outcome.found, outcome.detail) == (False, "missing 'Error: failed to extend'")


def test_no_matching_file_is_unreadable_not_absent(tmp_path: Path) -> None:
    archive = wheel(tmp_path / "a.whl", {"nvidia/nccl/include/nccl.h": MESSAGE})
    outcome = release_outcome(archive, "nvidia/nccl/lib/libnccl.so*", ("Error: failed",), "2.0")
    assert outcome.found is None
    assert outcome.detail == "no file matches 'nvidia/nccl/lib/libnccl.so*' in a.whl"


def test_sdist_paths_are_matched_below_their_top_folder(tmp_path: Path) -> None:
    archive = sdist(
        tmp_path / "pkg-1.0.tar.gz", {"deepspeed/runtime/engine.py": b'raise ValueError("train_batch_size is not")'}
    )
    assert release_outcome(archive, "deepspeed/runtime/*.py", ("train_batch_size is not",), "1.0").found is True


def test_a_text_split_across_read_chunks_is_found(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(verify, "CHUNK", 16)
    data = b"x" * 10 + MESSAGE  # the message starts 10 bytes into the first 16-byte chunk
    archive = wheel(tmp_path / "a.whl", {"lib/libx.so": data})
    assert release_outcome(archive, "lib/*.so", ("Error: failed to extend",), "1").found is True


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A copy of the project's records with the real ledger beside them."""
    shutil.copytree(ROOT / "entries", tmp_path / "entries")
    shutil.copytree(ROOT / "schema", tmp_path / "schema")
    return tmp_path


@pytest.fixture
def two_records(tmp_path: Path) -> Path:
    """A project of the nccl-shm-exhausted and cuda-out-of-memory records with the real ledger beside them."""
    for record in (RECORD, OOM_RECORD):
        (tmp_path / record).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / record, tmp_path / record)
    shutil.copytree(ROOT / "schema", tmp_path / "schema")
    return tmp_path


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    """The project's catalog, loaded once for the tests that only read it (one load per mutant under mutmut)."""
    return load_catalog([ROOT / "entries"], ROOT).catalog


def shm_of(catalog: Catalog):  # type: ignore[no-untyped-def]
    return next(s for s in catalog.signatures if s.id == "nccl-shm-exhausted-extend")


def test_a_contradicted_claim_is_an_issue_at_the_version(catalog: Catalog, tmp_path: Path) -> None:
    sig = shm_of(catalog)
    archives = {
        v: wheel(tmp_path / f"{v}.whl", {"nvidia/nccl/lib/libnccl.so.2": library(v != "2.18.1")})
        for v in sig.printed_by.present
    }
    issues = outcome_issues(catalog, sig, verify_signature(sig, lambda _pkg, version: archives[version]))
    text = (ROOT / RECORD).read_text(encoding="utf-8").splitlines()
    line = next(n for n, row in enumerate(text, 1) if "present: [" in row and "2.18.1" in row)
    col = text[line - 1].index("2.18.1") + 1
    expected = (
        f"{RECORD}:{line}:{col}: error[verify.absent] /signatures/0/printed_by/present/1: "
        "nvidia-nccl-cu12 2.18.1 does not print it: missing 'Error: failed to extend'"
    )
    assert [str(i) for i in issues] == [expected]


def test_a_failed_download_is_reported_not_raised(catalog: Catalog) -> None:
    sig = shm_of(catalog)

    def refuse(package: str, version: str) -> Path:
        raise OSError(f"pip could not download {package}=={version}")

    issues = outcome_issues(catalog, sig, verify_signature(sig, refuse, ("9.9.9",)))
    assert [(i.code, i.pointer) for i in issues] == [("verify.unreadable", "/signatures/0/printed_by")]


def issue_codes(root: Path) -> list[tuple[str, str]]:
    loaded = load_catalog([root / "entries"], root, project=True)
    return [
        (i.code, i.location.path.rsplit("/", 1)[-1]) for i in loaded.issues if i.code.startswith(("verify.", "status."))
    ]


def test_editing_a_checked_signature_makes_its_ledger_entry_stale(two_records: Path) -> None:
    project = two_records
    path = project / RECORD
    path.write_text(
        path.read_text(encoding="utf-8").replace("failed to extend \\S+", "failed to extend \\S*"), encoding="utf-8"
    )
    # The record says `status: verified`, which an unchecked signature also withdraws.
    assert issue_codes(project) == [("status.unverified", RECORD.name), ("verify.stale", RECORD.name)]


def test_a_ledger_result_that_contradicts_the_claim_fails(two_records: Path) -> None:
    project = two_records
    ledger = json.loads((project / LEDGER_FILE).read_text(encoding="utf-8"))
    ledger["signatures"]["nccl-shm-exhausted-extend"]["results"]["2.18.1"] = "absent"
    (project / LEDGER_FILE).write_text(json.dumps(ledger), encoding="utf-8")
    assert issue_codes(project) == [("status.unverified", RECORD.name), ("verify.failed", RECORD.name)]


def test_verified_status_needs_a_passing_check_and_a_real_line(two_records: Path) -> None:
    project = two_records
    path = project / OOM_RECORD
    path.write_text(path.read_text(encoding="utf-8").replace("status: draft", "status: verified", 1), encoding="utf-8")
    mine = [code for code, name in issue_codes(project) if name == "cuda-out-of-memory.yaml"]
    sigs = load_catalog([path], project).catalog.signatures
    # A signature that names no printing release is unverified (the one that does is confirmed by
    # the real ledger copied beside it); one whose example lines are all templates has no real line.
    unverified = ["status.unverified"] * sum(sig.printed_by is None for sig in sigs)
    templates = ["status.no-real-example"] * sum(all(ex.origin == "template" for ex in sig.examples) for sig in sigs)
    assert unverified and templates  # the record still shows both rules
    assert sorted(mine) == sorted(unverified + templates)
    path.write_text(path.read_text(encoding="utf-8").replace("status: verified", "status: draft", 1), encoding="utf-8")
    assert [name for _, name in issue_codes(project)] == []


def test_the_ledger_entry_records_what_was_checked(catalog: Catalog) -> None:
    sig = shm_of(catalog)
    outcomes = [verify.Outcome("2.16.2", True), verify.Outcome("2.11.4", False), verify.Outcome("2.0", None, "x")]
    entry = ledger_entry(sig, outcomes)
    assert entry["results"] == {"2.16.2": "present", "2.11.4": "absent", "2.0": "unreadable"}
    assert entry["digest"] == ledger_digest(sig) and entry["texts"] == ["Error: failed to extend"]
    assert (entry["package"], entry["file"]) == ("nvidia-nccl-cu12", "nvidia/nccl/lib/libnccl.so*")
    assert json.loads(ledger_text({sig.id: entry}))["signatures"][sig.id] == entry


def test_the_committed_ledger_backs_every_claim(catalog: Catalog) -> None:
    """Every signature that names where it is printed has a fresh, passing ledger entry (runs offline)."""
    ledger = read_ledger(ROOT)
    assert ledger_issues(catalog, ledger) == []
    claims = {sig.id: sig for sig in catalog.signatures if sig.printed_by is not None}
    assert claims, "no signature names where it is printed"
    stale = sorted(sid for sid, sig in claims.items() if ledger.get(sid, {}).get("digest") != ledger_digest(sig))
    assert stale == [], "run `make verify` for these signatures"
    for sid, sig in claims.items():
        results = ledger[sid]["results"]
        assert all(results[v] == "present" for v in sig.printed_by.present), sid
        assert all(results[v] == "absent" for v in sig.printed_by.absent), sid
        assert ledger[sid]["texts"] == list(needles(sig)), sid
    assert sorted(set(ledger) - set(claims)) == [], "ledger entries for signatures that no longer claim a source"


def test_verify_offline_reads_the_ledger_and_downloads_nothing(project: Path) -> None:
    env = {**os.environ, "FAILPEDIA_CACHE_DIR": str(project / ".cache"), "FAILPEDIA_RELEASES": str(project / "none")}
    result = subprocess.run(
        [sys.executable, "-m", "generator", "verify", "--offline"], cwd=project, capture_output=True, text=True, env=env
    )
    assert result.returncode == 0, result.stderr
    assert not (project / "none").exists()
    assert "problem(s)" in result.stderr and " 0 problem(s)" in result.stderr


def test_each_release_is_fetched_and_read_once_for_every_signature(catalog: Catalog, tmp_path: Path) -> None:
    sigs = [s for s in catalog.signatures if s.printed_by is not None and s.printed_by.package == "nvidia-nccl-cu12"]
    versions = sorted({v for s in sigs for v in s.printed_by.present + s.printed_by.absent})
    fetched: list[str] = []

    def fetch(_package: str, version: str) -> Path:
        fetched.append(version)
        return wheel(tmp_path / f"{version}-{len(fetched)}.whl", {"nvidia/nccl/lib/libnccl.so.2": library(True)})

    outcomes = verify.verify_signatures(sigs, fetch)
    assert sorted(fetched) == versions and len(sigs) > 1
    shm = next(s for s in sigs if s.id == "nccl-shm-exhausted-extend")
    claimed = [*shm.printed_by.present, *shm.printed_by.absent]
    assert [o.version for o in outcomes[shm.id]] == claimed
    assert [o.found for o in outcomes[shm.id]] == [True] * len(claimed)
    other = next(s for s in sigs if "Error: failed to extend" not in needles(s))
    assert {o.found for o in outcomes[other.id]} == {False}


def test_one_read_answers_each_claim_from_its_own_files(tmp_path: Path) -> None:
    archive = wheel(tmp_path / "a.whl", {"lib/libnccl.so.2": library(True), "pkg/x.py": b"raise ValueError('left')\n"})
    claims = [
        verify.Claim("lib", "lib/*.so*", ("Error: failed to extend",)),
        verify.Claim("py", "pkg/*.py", ("Error: failed to extend",)),
        verify.Claim("none", "docs/*.md", ("left",)),
    ]
    outcomes = verify.read_release(archive, claims, "1.0")
    assert [outcomes[k].found for k in ("lib", "py", "none")] == [True, False, None]
    assert outcomes["py"].detail == "missing 'Error: failed to extend'"


def test_a_local_rebuild_is_not_taken_for_the_release(tmp_path: Path) -> None:
    from generator.signatures.releases import local_build

    assert local_build(tmp_path / "torch-2.13.0+cpu-cp311-cp311-linux_x86_64.whl")
    assert not local_build(tmp_path / "torch-2.13.0-cp311-cp311-manylinux_2_28_x86_64.whl")
    assert not local_build(tmp_path / "deepspeed-0.19.8.tar.gz")


def test_only_backed_claims_count_as_checked_and_releases_sort_by_number(catalog: Catalog) -> None:
    from generator.records.ledger import Checked, checked_releases

    sig = shm_of(catalog)
    ledger = read_ledger(ROOT)
    entry = ledger[sig.id]
    entry["results"] = {**entry["results"], "2.9.9": "present"}
    assert checked_releases(catalog, ledger)[sig.id] == Checked(
        "nvidia-nccl-cu12",
        sig.printed_by.file,
        ("2.9.9", *sorted(sig.printed_by.present, key=lambda v: tuple(map(int, v.split("."))))),
        tuple(sig.printed_by.absent),
    )
    entry["results"][sig.printed_by.present[0]] = "absent"
    assert sig.id not in checked_releases(catalog, ledger)
    entry["digest"] = "0" * 16
    assert sig.id not in checked_releases(catalog, ledger)


def test_an_entry_page_says_where_each_fingerprint_was_verified(catalog: Catalog) -> None:
    from generator.records.ledger import Checked
    from generator.site.render import render_site

    sig = shm_of(catalog)
    checks = {sig.id: Checked("nvidia-nccl-cu12", "nvidia/nccl/lib/libnccl.so*", ("2.16.2", "2.32.3"), ("2.11.4",))}
    page = next(p for p in render_site(catalog, checks=checks) if p.path == "entries/nccl-shm-exhausted.md")
    text = html.unescape(page.markdown)
    assert (
        "Verified against released artifacts: the text is in <code>nvidia-nccl-cu12</code> 2.16.2 to 2.32.3 "
        "(<code>nvidia/nccl/lib/libnccl.so*</code>; 2 releases checked: 2.16.2, 2.32.3), and not in 2.11.4."
    ) in text
    others = [s for s in catalog.by_id["nccl-shm-exhausted"].signatures if s.id != sig.id]
    assert text.count("Not yet verified: it names <code>nvidia-nccl-cu12</code>") == len(others)
    assert "status: verified · 1 of 3 fingerprints verified against released artifacts" in text
    home = next(p for p in render_site(catalog, checks=checks) if p.path == "index.md")
    assert f"1 of {len(catalog.signatures)} fingerprints verified against the releases" in home.markdown


def ledger_workspace(root: Path, status: str = "draft") -> Catalog:
    """Return the catalog of a record claiming pkg's lib/*.so (1.2, 1.10; not 1.0) and of one claiming nothing."""
    claim = "    printed_by:\n      package: pkg\n      file: lib/*.so\n"
    claim += "      present: ['1.2', '1.10']\n      absent: ['1.0']\n"
    write_record(root, "memory", "widget", extra=claim)
    write_record(root, "memory", "gizmo")
    path = root / "entries" / "memory" / "widget.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("status: draft", f"status: {status}"), encoding="utf-8")
    return load_catalog([root / "entries"], root).catalog


def test_the_ledger_backs_a_claim_only_when_fresh_and_as_claimed(tmp_path: Path) -> None:
    catalog = ledger_workspace(tmp_path)
    sig, plain = catalog.by_id["widget"].signatures[0], catalog.by_id["gizmo"].signatures[0]
    assert needles(sig) == ("Widget exploded after",) and len(ledger_digest(sig)) == 16
    good = {"digest": ledger_digest(sig), "results": {"1.10": "present", "1.2": "present", "1.0": "absent"}}
    assert (confirmed(sig, good), confirmed(sig, None), confirmed(plain, good)) == (True, False, False)
    assert confirmed(sig, {**good, "results": {"1.10": "present", "1.0": "absent"}}) is False
    assert confirmed(sig, {**good, "results": {"1.10": "present", "1.2": "present"}}) is False
    assert confirmed(sig, {"digest": ledger_digest(sig)}) is False
    where = "entries/memory/widget.yaml:42:7"
    contradicted = {"1.10": "present", "1.2": "present", "1.0": "present"}
    assert [str(i) for i in ledger_issues(catalog, {})] == [
        f"{where}: warning[verify.unchecked] /signatures/0/printed_by: not in the ledger: run failpedia verify"
    ]
    assert [str(i) for i in ledger_issues(catalog, {sig.id: {**good, "digest": "x"}})] == [
        f"{where}: warning[verify.stale] /signatures/0/printed_by: "
        "changed since failpedia verify checked it: run it again"
    ]
    assert [str(i) for i in ledger_issues(catalog, {sig.id: {**good, "results": contradicted}})] == [
        f"{where}: error[verify.failed] /signatures/0/printed_by: the ledger contradicts the claimed versions: "
        "{'1.10': 'present', '1.2': 'present', '1.0': 'present'}"
    ]
    assert ledger_issues(catalog, {sig.id: good}) == []
    assert checked_releases(catalog, {sig.id: good}) == {
        "widget-exploded": Checked("pkg", "lib/*.so", ("1.2", "1.10"), ("1.0",))
    }
    assert checked_releases(catalog, {sig.id: {**good, "digest": "x"}}) == {}
    more = {**good["results"], "0.10": "absent", "0.9": "absent", "1.9": "unreadable"}
    assert checked_releases(catalog, {sig.id: {**good, "results": more}})["widget-exploded"].absent == (
        "0.9",
        "0.10",
        "1.0",
    )
    assert version_key("2.10.3rc1") == (2, 10, 3, 1)


def test_a_ledger_without_signatures_reads_as_empty(tmp_path: Path) -> None:
    assert read_ledger(tmp_path) == {}
    (tmp_path / LEDGER_FILE).parent.mkdir(parents=True)
    (tmp_path / LEDGER_FILE).write_text('{"note": "no signature checked yet"}', encoding="utf-8")
    assert read_ledger(tmp_path) == {}


def test_a_verified_status_needs_each_signature_checked_and_a_real_line(tmp_path: Path) -> None:
    catalog = ledger_workspace(tmp_path, "verified")
    sig = catalog.by_id["widget"].signatures[0]
    good = {"digest": ledger_digest(sig), "results": {"1.10": "present", "1.2": "present", "1.0": "absent"}}
    no_real = (
        "entries/memory/widget.yaml:36:9: error[status.no-real-example] /signatures/0/examples/match: "
        "status is verified but 'widget-exploded' has no example from a posted log or a reproduction"
    )
    assert [str(i) for i in status_issues(catalog.by_id["widget"], {sig.id: good})] == [no_real]
    assert [str(i) for i in status_issues(catalog.by_id["widget"], {})] == [
        "entries/memory/widget.yaml:6:9: error[status.unverified] /status: status is verified but 'widget-exploded' "
        "has no passing check in schema/verified.json",
        no_real,
    ]
    assert status_issues(catalog.by_id["gizmo"], {}) == []


def test_a_release_is_downloaded_once_and_a_local_rebuild_is_set_aside(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAILPEDIA_RELEASES", str(tmp_path / "releases"))
    assert releases.releases_dir() == tmp_path / "releases"
    monkeypatch.delenv("FAILPEDIA_RELEASES")
    assert releases.releases_dir() == Path.home() / ".cache" / "failpedia" / "releases"
    monkeypatch.setenv("FAILPEDIA_RELEASES", str(tmp_path / "releases"))
    calls: list[tuple[str, tuple[str, ...]]] = []
    names = {"--only-binary=:all:": "torch-2.1.0+cpu-cp311-cp311-linux_x86_64.whl", "--python-version": ""}

    def download(requirement: str, folder: Path, extra: tuple[str, ...]) -> bool:
        calls.append((requirement, extra[:2]))
        name = names["--python-version"] if len(extra) > 1 and extra[1] == "--python-version" else names[extra[0]]
        if name:
            (folder / name).write_bytes(b"")
        return bool(name) or extra[0] != "--only-binary=:all:"

    monkeypatch.setattr(releases, "pip_download", download)
    names["--no-binary=:all:"] = "torch-2.1.0.tar.gz"
    archive = releases.fetch_release("torch", "2.1.0")
    assert archive == tmp_path / "releases" / "torch" / "2.1.0" / "torch-2.1.0.tar.gz"
    assert calls == [
        ("torch==2.1.0", ("--only-binary=:all:",)),
        ("torch==2.1.0", ("--only-binary=:all:", "--python-version")),
        ("torch==2.1.0", ("--no-binary=:all:", "--no-build-isolation")),
    ]
    assert sorted(p.name for p in archive.parent.iterdir()) == ["torch-2.1.0.tar.gz"]
    assert releases.fetch_release("torch", "2.1.0") == archive and len(calls) == 3
    names.update({"--only-binary=:all:": "", "--no-binary=:all:": ""})
    with pytest.raises(OSError, match=r"^pip could not download torch==2\.2\.0$"):
        releases.fetch_release("torch", "2.2.0")
    with pytest.raises(OSError, match=r"^pip could not download torch==2\.2\.0$"):  # its folder is left, empty
        releases.fetch_release("torch", "2.2.0")
    folder = tmp_path / "mixed"
    folder.mkdir()
    for name in ("b.zip", "a.tar.gz", "c.whl", "d.txt"):
        (folder / name).write_bytes(b"")
    assert releases.cached_archive(folder) == folder / "a.tar.gz"
    assert releases.cached_archive(tmp_path / "mixed" / "none") is None
    assert releases.WHEEL_TARGET[:4] == ("--only-binary=:all:", "--python-version", "3.11", "--implementation")


def test_pip_download_runs_pip_without_dependencies(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[list[str]] = []

    def run(command: list[str], capture_output: bool, check: bool) -> subprocess.CompletedProcess[bytes]:
        seen.append(command)
        assert capture_output and not check
        return subprocess.CompletedProcess(command, 0 if "ok==1" in command else 1)

    monkeypatch.setattr(releases.subprocess, "run", run)
    assert releases.pip_download("ok==1", tmp_path, ("--x",)) is True
    assert releases.pip_download("bad==1", tmp_path, ()) is False
    assert seen[0] == [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--quiet",
        "-d",
        str(tmp_path),
        "--x",
        "ok==1",
    ]


def test_each_outcome_is_an_issue_at_the_version_it_contradicts(tmp_path: Path) -> None:
    catalog = ledger_workspace(tmp_path)
    sig = catalog.by_id["widget"].signatures[0]
    outcomes = [
        verify.Outcome("1.2", False, "missing 'Widget exploded after'"),
        verify.Outcome("1.10", None, "no file matches 'lib/*.so' in pkg.whl"),
        verify.Outcome("1.0", True),
        verify.Outcome("1.10", True),
        verify.Outcome("9.9", True),
        verify.Outcome("9.8", False),
        verify.Outcome("9.7", None, "could not fetch pkg 9.7: gone"),
    ]
    assert [str(i) for i in outcome_issues(catalog, sig, outcomes)] == [
        "entries/memory/widget.yaml:44:17: error[verify.absent] /signatures/0/printed_by/present/0: "
        "pkg 1.2 does not print it: missing 'Widget exploded after'",
        "entries/memory/widget.yaml:44:24: error[verify.unreadable] /signatures/0/printed_by/present/1: "
        "no file matches 'lib/*.so' in pkg.whl",
        "entries/memory/widget.yaml:45:16: error[verify.present] /signatures/0/printed_by/absent/0: "
        "pkg 1.0 already prints it",
        "entries/memory/widget.yaml:42:7: error[verify.unreadable] /signatures/0/printed_by: "
        "could not fetch pkg 9.7: gone",
    ]


def test_asked_versions_replace_the_claimed_ones_and_a_failed_fetch_names_the_release(tmp_path: Path) -> None:
    catalog = ledger_workspace(tmp_path)
    sig = catalog.by_id["widget"].signatures[0]
    archive = wheel(tmp_path / "pkg.whl", {"lib/": b"", "lib/a.so": b"\x00Widget exploded after\x00"})
    asked: list[tuple[str, str]] = []

    def fetch(package: str, version: str) -> Path:
        asked.append((package, version))
        if version == "2.0":
            raise OSError("no such release")
        return archive

    assert verify_signature(sig, fetch, ("3.0", "2.0")) == [
        verify.Outcome("3.0", True),
        verify.Outcome("2.0", None, "could not fetch pkg 2.0: no such release"),
    ]
    assert asked == [("pkg", "3.0"), ("pkg", "2.0")]
    assert [o.version for o in verify_signature(sig, lambda _p, _v: archive)] == ["1.2", "1.10", "1.0"]


def test_single_byte_texts_and_texts_across_chunks_are_found(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(verify, "CHUNK", 4)
    assert verify.stream_contains(io.BytesIO(b"abcdefgh"), [b"d", b"z"]) == {b"d"}
    assert verify.stream_contains(io.BytesIO(b"abcdefgh"), [b"cdef", b"gh", b"ha"]) == {b"cdef", b"gh"}
    assert verify.stream_contains(io.BytesIO(b"abcdefghij"), [b"defghi"]) == {b"defghi"}


def test_the_ledger_text_is_sorted_indented_json_with_its_own_note() -> None:
    text = ledger_text({"b-sig": {"texts": ["é"], "digest": "x"}, "a-sig": {}})
    assert text == (
        "{\n"
        ' "about": "written by failpedia verify; read offline by validate (schema/verified.json)",\n'
        ' "signatures": {\n'
        '  "a-sig": {},\n'
        '  "b-sig": {\n'
        '   "digest": "x",\n'
        '   "texts": [\n'
        '    "é"\n'
        "   ]\n"
        "  }\n"
        " }\n"
        "}\n"
    )


def test_members_are_read_from_a_tar_sdist_but_not_its_folders_or_links(tmp_path: Path) -> None:
    path = tmp_path / "pkg-1.0.tar.gz"
    with tarfile.open(path, "w:gz") as tarred:
        folder = tarfile.TarInfo("pkg-1.0/lib")
        folder.type = tarfile.DIRTYPE
        tarred.addfile(folder)
        link = tarfile.TarInfo("pkg-1.0/lib/link.so")
        link.type, link.linkname = tarfile.SYMTYPE, "real.so"
        tarred.addfile(link)
        data = b"Widget exploded after"
        info = tarfile.TarInfo("pkg-1.0/lib/real.so")
        info.size = len(data)
        tarred.addfile(info, io.BytesIO(data))
    names = [name for name, _ in verify.archive_members(path, lambda name: verify.wanted_path(name, "lib*"))]
    assert names == ["pkg-1.0/lib/real.so"]
    assert verify.wanted_path("pkg-1.0/lib/a.so", "lib/*.so") and not verify.wanted_path("x/y/lib/a.so", "lib/*.so")


def test_reads_keep_every_file_s_texts_and_only_real_files_count(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    both = wheel(tmp_path / "a.whl", {"lib/a.so": b"first text", "lib/b.so": b"second text"})
    assert release_outcome(both, "lib/*.so", ("first text", "second text"), "1") == verify.Outcome("1", True)
    folder_only = wheel(tmp_path / "b.whl", {"lib/": b"", "README": b"first text"})
    assert release_outcome(folder_only, "lib/*", ("first text",), "2") == verify.Outcome(
        "2", None, "no file matches 'lib/*' in b.whl"
    )
    old_sdist = wheel(tmp_path / "pkg-1.0.zip", {"pkg-1.0/lib/a.py": b"first text"})
    assert release_outcome(old_sdist, "lib/*.py", ("first text",), "3") == verify.Outcome("3", True)
    assert not verify.wanted_path("README", "lib/*")
    monkeypatch.setattr(verify, "CHUNK", 2)
    assert verify.stream_contains(io.BytesIO(b"abc"), [b"X"]) == set()
    assert verify.stream_contains(io.BytesIO(b"abc"), [b"XXab"]) == set()


def test_a_failed_fetch_does_not_stop_the_releases_after_it(tmp_path: Path) -> None:
    catalog = ledger_workspace(tmp_path)
    sig = catalog.by_id["widget"].signatures[0]
    archive = wheel(tmp_path / "pkg.whl", {"lib/a.so": b"\x00Widget exploded after\x00"})

    def fetch(_package: str, version: str) -> Path:
        if version == "2.0":
            raise OSError("no such release")
        return archive

    assert [o.found for o in verify_signature(sig, fetch, ("2.0", "3.0"))] == [None, True]
