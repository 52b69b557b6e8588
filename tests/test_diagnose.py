"""failpedia diagnose: ranking on the real-world corpus, the JSON contract, and hostile inputs."""

from __future__ import annotations

import gzip
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from generator.diagnosis.diagnose import SPLIT_FROM, diagnose
from generator.diagnosis.logread import Source, blocks, read_blocks
from generator.records.pipeline import load_catalog
from generator.signatures.match import Block, Matcher

from .realworld import load_cases
from .workspace import diagnose_cli

ROOT = Path(__file__).resolve().parent.parent
CATALOG = load_catalog([ROOT / "entries"], ROOT).catalog
MATCHER = Matcher(CATALOG.signatures)
OOM = (
    "[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. "
    "GPU 3 has a total capacity of 79.15 GiB of which 1.02 GiB is free."
)
TIMEOUT = (
    "[rank0]:[E1206 18:44:12.715298746 ProcessGroupNCCL.cpp:607] [Rank 0] Watchdog caught collective operation "
    "timeout: WorkNCCL(SeqNum=7753, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600012 "
    "milliseconds before timing out."
)


def run_text(text: str, name: str = "log") -> list[str]:
    report = diagnose([Source(name, io.BytesIO(text.encode()))], MATCHER, CATALOG)
    return [f.entry.id for f in report.findings]


FAILURES = load_cases("failures")


@pytest.mark.parametrize("case", FAILURES, ids=[case.name for case in FAILURES])
def test_realworld_case_ranks_its_record_first(case) -> None:
    # Exact per case: a record whose signatures regress names itself. A case whose excerpt
    # also holds an earlier cause says which record is first in ``top`` (and why, in ``note``).
    assert run_text(case.log)[:1] == [case.top or case.expect]


def test_benign_logs_match_nothing() -> None:
    assert [case.name for case in load_cases("benign") if run_text(case.log)] == []


def test_initiating_rank_beats_downstream_timeouts() -> None:
    sources = [
        Source("rank0.log", io.BytesIO(f"step 10\n{TIMEOUT}\n".encode())),
        Source("rank1.log", io.BytesIO(f"step 10\n{TIMEOUT}\n".encode())),
        Source("rank3.log", io.BytesIO(f"step 10\n{OOM}\n".encode())),
    ]
    report = diagnose(sources, MATCHER, CATALOG)
    assert [(f.entry.id, f.role) for f in report.findings[:2]] == [
        ("cuda-out-of-memory", "initiating"),
        ("nccl-watchdog-timeout", "downstream"),
    ]
    assert report.findings[0].evidence[0].file == "rank3.log" and report.findings[0].evidence[0].line == 2


def test_wrapper_never_outranks_what_it_wraps() -> None:
    log = "\n".join(
        [
            OOM,
            "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
            "train.py FAILED",
        ]
    )
    ids = run_text(log)
    assert ids[0] == "cuda-out-of-memory"


def test_ansi_codes_and_carriage_returns_do_not_hide_errors() -> None:
    log = (
        "100%|#####| 10/10 [00:01<00:00]\r 50%|##   |\r"
        "\x1b[31mtorch.OutOfMemoryError: CUDA out of memory.\x1b[0m Tried to allocate 1.00 GiB\n"
    )
    assert run_text(log)[:1] == ["cuda-out-of-memory"]


def test_line_numbers_count_newlines_across_blocks() -> None:
    text = "".join(f"step {i}\n" for i in range(5000)) + OOM + "\n"
    source = Source("big.log", io.BytesIO(text.encode()))
    report = diagnose([source], MATCHER, CATALOG)
    assert report.findings[0].evidence[0].line == 5001


def test_blocks_scanned_in_halves_keep_exact_line_numbers() -> None:
    # Blocks of SPLIT_FROM bytes or more are cut in two for two scanning threads; a failure
    # on each side of the cut keeps its exact line number, and the earlier one ranks first.
    filler = [f"[rank0]: step {i} | loss 2.5 | lr 3.0e-04" for i in range(SPLIT_FROM // 20)]
    lines = [*filler[:100], OOM, *filler[100:], "RuntimeError: CUDA error: an illegal memory access was encountered"]
    source = Source("split.log", io.BytesIO(("\n".join(lines) + "\n").encode()))
    report = diagnose([source], MATCHER, CATALOG)
    found = {finding.entry.id: finding.evidence[0].line for finding in report.findings}
    assert found == {"cuda-out-of-memory": 101, "cuda-illegal-memory-access": len(lines)}


def test_small_blocks_and_windows_keep_hits() -> None:
    text = ("step 1\n" + "x" * 5000 + OOM + "y" * 5000 + "\nstep 3\n" + "z" * 3000 + "\n" + OOM + "\n").encode()
    source = Source("long.log", io.BytesIO(text))
    found = {
        (first + hit.line_offset, hit.signature.entry_id)
        for first, block in blocks(source, 1024, 2048)
        for hit in MATCHER.scan_block(block)
    }
    assert found == {(2, "cuda-out-of-memory"), (5, "cuda-out-of-memory")}
    assert source.notes == ["a line longer than 2048 bytes was scanned in overlapping windows"]


cli = diagnose_cli


def test_json_contract(tmp_path: Path) -> None:
    import jsonschema

    log = tmp_path / "rank3.log"
    log.write_text(f"step 1\n{OOM}\n", encoding="utf-8")
    result = cli("--json", "--site-url", "https://example.test/fp/", str(log))
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    schema = json.loads((ROOT / "schema" / "diagnosis.schema.json").read_text(encoding="utf-8"))
    jsonschema.validate(data, schema)
    top = data["findings"][0]
    assert top["id"] == "cuda-out-of-memory" and top["role"] == "initiating"
    assert top["evidence"] == [{"file": str(log), "line": 2, "text": OOM, "signature": "cuda-out-of-memory-allocator"}]
    assert top["url"] == "https://example.test/fp/entries/cuda-out-of-memory/"
    assert (top["lines"], top["ranks"], top["files"]) == (1, [3], [str(log)])
    assert top["first"] == top["last"] == {"file": str(log), "line": 2, "timestamp": None}
    assert top["fix"]["first_step"] == CATALOG.by_id["cuda-out-of-memory"].data["fix"]["steps"][0]["text"]
    assert data["scanned"]["bytes"] == log.stat().st_size


def ranked(text: str, matcher: Matcher = MATCHER) -> list[tuple[str, int, list[int]]]:
    report = diagnose([Source("log", io.BytesIO(text.encode()))], matcher, CATALOG)
    return [(f.entry.id, f.lines, [e.line for e in f.evidence]) for f in report.findings]


def test_every_matching_line_is_evidence_once() -> None:
    three = "".join(f"[rank{r}]: {OOM.split(': ', 1)[1]}\n" for r in (0, 1, 3))
    assert ranked(f"step 1\n{three}") == [("cuda-out-of-memory", 3, [2, 3, 4])]
    report = diagnose([Source("log", io.BytesIO(three.encode()))], MATCHER, CATALOG)
    assert sorted(report.findings[0].ranks) == [0, 1, 3]


def test_lines_past_the_cap_are_counted_not_listed() -> None:
    many = "".join(f"{OOM}\nstep {i}\n" for i in range(8))
    assert ranked(many) == [("cuda-out-of-memory", 8, [1, 3, 5, 7, 9])]


def test_without_hyperscan_every_line_is_found_too() -> None:
    slow = Matcher(CATALOG.signatures)
    slow.database = None
    text = f"a\n{OOM}\nb\n{OOM}\n{OOM}\n"
    assert ranked(text, slow) == ranked(text) == [("cuda-out-of-memory", 3, [2, 4, 5])]


def test_exit_1_when_nothing_matches() -> None:
    result = cli("-", stdin=b"step 1 loss 2.3\nstep 2 loss 2.1\n")
    assert result.returncode == 1
    assert b"No known failure signature matched." in result.stdout


def test_bad_inputs_are_named_and_the_rest_is_diagnosed(tmp_path: Path) -> None:
    good = tmp_path / "good.log"
    good.write_text(OOM + "\n", encoding="utf-8")
    binary = tmp_path / "core.bin"
    binary.write_bytes(b"\x7fELF" + b"\x00" * 4000)
    truncated = tmp_path / "cut.log.gz"
    truncated.write_bytes(gzip.compress((TIMEOUT + "\n").encode() * 2000)[:-200])
    bad_utf8 = tmp_path / "latin1.log"
    bad_utf8.write_bytes(b"caf\xe9\n" + OOM.encode() + b"\n")
    result = cli(
        "--json", str(good), str(tmp_path / "missing.log"), str(tmp_path), str(binary), str(truncated), str(bad_utf8)
    )
    assert result.returncode == 2
    err = result.stderr.decode()
    assert "missing.log: no such file" in err
    assert f"{tmp_path}: is a directory" in err
    assert "core.bin: binary file" in err
    assert "cut.log.gz: gzip stream is truncated" in err
    assert "latin1.log: contains invalid UTF-8" in err
    assert "Traceback" not in err
    ids = [f["id"] for f in json.loads(result.stdout)["findings"]]
    assert ids[0] == "cuda-out-of-memory" and "nccl-watchdog-timeout" in ids


def test_gzip_and_utf16_inputs(tmp_path: Path) -> None:
    gz = tmp_path / "rank0.log.gz"
    gz.write_bytes(gzip.compress(f"step\n{OOM}\n".encode()))
    utf16 = tmp_path / "win.log"
    utf16.write_bytes(f"step\n{TIMEOUT}\n".encode("utf-16"))
    result = cli("--json", str(gz), str(utf16))
    assert result.returncode == 0, result.stderr
    found = {f["id"]: f["evidence"][0]["line"] for f in json.loads(result.stdout)["findings"]}
    assert found["cuda-out-of-memory"] == 2 and found["nccl-watchdog-timeout"] == 2


def test_printed_lines_cannot_drive_the_terminal(tmp_path: Path) -> None:
    log = tmp_path / "evil.log"
    log.write_bytes(b"\x1b]0;owned\x07" + OOM.encode() + b"\x1b]52;c;ZXZpbA==\x07\n")
    result = cli(str(log))
    assert result.returncode == 0
    assert b"\x1b" not in result.stdout and b"\x07" not in result.stdout


def test_empty_stdin_matches_nothing() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "generator", "diagnose", "-"], cwd=ROOT, capture_output=True, stdin=subprocess.DEVNULL
    )
    assert result.returncode == 1
    assert b"Traceback" not in result.stderr


def test_closed_stdin_is_an_input_error() -> None:
    command = f"'{sys.executable}' -m generator diagnose - 0<&-"
    result = subprocess.run(["bash", "-c", command], cwd=ROOT, capture_output=True)
    assert result.returncode == 2
    assert b"standard input is closed" in result.stderr
    assert b"Traceback" not in result.stderr


def test_cache_gives_the_same_answer_and_survives_damage(tmp_path: Path) -> None:
    log = tmp_path / "rank0.log"
    log.write_text(f"step 1\n{TIMEOUT}\n{OOM}\n", encoding="utf-8")
    env = {**os.environ, "FAILPEDIA_CACHE_DIR": str(tmp_path / "cache")}
    command = [sys.executable, "-m", "generator", "diagnose", "--json", str(log)]
    cold = subprocess.run(command, cwd=ROOT, capture_output=True, env=env)
    cached = list((tmp_path / "cache").glob("*"))
    assert {p.suffix for p in cached} == {".json", ".hs"}
    warm = subprocess.run(command, cwd=ROOT, capture_output=True, env=env)
    assert cold.returncode == warm.returncode == 0
    assert cold.stdout == warm.stdout
    for path in cached:
        path.write_bytes(b"garbage")
    damaged = subprocess.run(command, cwd=ROOT, capture_output=True, env=env)
    assert damaged.stdout == cold.stdout and b"Traceback" not in damaged.stderr


def test_the_observer_sees_parts_until_a_finding_is_known(monkeypatch: pytest.MonkeyPatch) -> None:
    from functools import partial

    from generator.diagnosis import diagnose as diagnose_module

    monkeypatch.setattr(diagnose_module, "read_blocks", partial(read_blocks, block_size=64))
    data = ("step 1 | loss 2.0\n" * 20 + OOM + "\n" + "step 2 | loss 2.0\n" * 40).encode()
    numbered = list(blocks(Source("log", io.BytesIO(data)), block_size=64))
    with_oom = next(i for i, (_, block) in enumerate(numbered) if OOM.encode() in block.copy())
    seen: list[int] = []

    def observe(index: int, name: str, first: int, block: Block) -> None:
        seen.append(first)

    report = diagnose([Source("log", io.BytesIO(data))], MATCHER, CATALOG, observe=observe)
    assert report.findings[0].entry.id == "cuda-out-of-memory"
    # Every part up to the one holding the first hit is watched, with its first line's number.
    assert with_oom > 2 and seen == [first for first, _ in numbered[: with_oom + 1]]
