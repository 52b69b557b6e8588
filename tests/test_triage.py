"""Triage when nothing matched: error-like lines, each rank's last lines, next steps; never a cause."""

from __future__ import annotations

import io
import json
import re
import subprocess
from pathlib import Path

import pytest

from generator.diagnosis.diagnose import diagnose
from generator.diagnosis.explain import report_text
from generator.diagnosis.logread import Source
from generator.diagnosis.triage import MAX_LINES, TAIL_BYTES, TAIL_LINES, Triage, TriageReport, triage_report
from generator.records.pipeline import load_catalog
from generator.signatures.match import Matcher

from .realworld import load_cases, load_coverage
from .workspace import diagnose_cli

ROOT = Path(__file__).resolve().parent.parent
CATALOG = load_catalog([ROOT / "entries"], ROOT).catalog
MATCHER = Matcher(CATALOG.signatures)
TWO_RANKS = (
    "2024-05-01 10:00:03 [rank1]: step 9 loss 2.1\n"
    "[rank1]: Traceback (most recent call last):\n"
    '[rank1]:   File "train.py", line 7, in <module>\n'
    "[rank1]: ValueError: frobnicator 12 out of range\n"
    "[rank0]: ValueError: frobnicator 13 out of range\n"
    "[rank0]: exiting\n"
    "launcher: worker 1 FAILED\n"
)
# What triage may say besides the log's own lines: none of it names a cause.
CLAIMS = re.compile(r"(?i)\bcause|\blikely|\bbecause|\bdue to|\bprobabl|\broot\b|\bfix")


def triaged(*logs: tuple[str, str]) -> tuple[bool, TriageReport, str]:
    """Return (anything matched, the triage, the text a person sees) for named logs."""
    triage = Triage()
    sources = [Source(name, io.BytesIO(text.encode())) for name, text in logs]
    report = diagnose(sources, MATCHER, CATALOG, observe=triage.observe)
    result = triage_report(triage)
    return bool(report.findings), result, report_text(report, 3, False, "https://fp.test/", result)


def test_text_shows_lines_ranks_search_and_the_new_command() -> None:
    matched, _, text = triaged(("two.log", TWO_RANKS))
    assert not matched
    assert text.splitlines() == [
        "No known failure signature matched.",
        "Lines that look most like errors, first by time (shown as found, not a diagnosis):",
        "   two.log:2: [rank1]: Traceback (most recent call last):",
        "   two.log:4: [rank1]: ValueError: frobnicator 12 out of range",
        "   two.log:7: launcher: worker 1 FAILED",
        "Last lines of each rank:",
        "   two.log, no rank:",
        "     1: 2024-05-01 10:00:03 [rank1]: step 9 loss 2.1",
        "     7: launcher: worker 1 FAILED",
        "   two.log, rank 0:",
        "     5: [rank0]: ValueError: frobnicator 13 out of range",
        "     6: [rank0]: exiting",
        "   two.log, rank 1:",
        "     2: [rank1]: Traceback (most recent call last):",
        '     3: [rank1]:   File "train.py", line 7, in <module>',
        "     4: [rank1]: ValueError: frobnicator 12 out of range",
        "Search for the key line: https://fp.test/?q=ValueError%3A+frobnicator+12+out+of+range",
        "Start a record from this log: failpedia new value-error-frobnicator-out-of-range --category CATEGORY"
        " --from-log two.log",
        "   (CATEGORY: one of communication, launcher, memory, hardware, numerical, data,",
        "   compilation, checkpoint, sharding, performance)",
    ]


def test_the_first_line_by_time_wins_across_files_and_copies_count_once() -> None:
    _, result, _ = triaged(
        ("b.log", "2024-01-01 10:00:05 ERROR late\n2024-01-01 10:00:01 fatal: early 3\n"),
        ("a.log", "2024-01-01 10:00:00 Killed\n2024-01-01 10:00:02 fatal: early 4\n"),
    )
    assert [(i.file, i.line, i.text) for i in result.lines] == [
        ("a.log", 1, "2024-01-01 10:00:00 Killed"),
        ("b.log", 2, "2024-01-01 10:00:01 fatal: early 3"),
        ("b.log", 1, "2024-01-01 10:00:05 ERROR late"),
    ]
    assert result.key is not None and (result.key.file, result.key.line) == ("a.log", 1)


def test_stdin_and_names_with_spaces_give_a_command_that_runs() -> None:
    assert triaged(("<stdin>", "OSError: gone\n"))[1].new_file == "LOG-FILE"
    _, result, text = triaged(("my run.log", "OSError: gone\n"))
    assert "failpedia new oserror-gone --category CATEGORY --from-log 'my run.log'" in text
    assert result.query == "OSError: gone"


def test_memory_is_bounded_on_a_long_log() -> None:
    # 1.5 MB: longer than the TAIL_BYTES a block's tail is read from (a mutant runs this test too)
    lines = "".join(f"[rank{n % 64}]: error {chr(97 + n % 26)}{n} at step\n" for n in range(50_000))
    assert len(lines) > TAIL_BYTES
    _, result, _ = triaged(("big.log", lines))
    assert len(result.lines) == MAX_LINES
    assert [i.line for i in result.lines] == list(range(1, MAX_LINES + 1))
    assert len(result.tails) == 16 and result.omitted_groups == 48
    triage = Triage()
    diagnose([Source("big.log", io.BytesIO(lines.encode()))], MATCHER, CATALOG, observe=triage.observe)
    assert len(triage.kept) == MAX_LINES and len(triage.tails[0][1]) == TAIL_LINES


def without_log_text(text: str, log: str) -> str:
    """Return the triage text with every line taken from the log (and each file name) removed."""
    kept = []
    for line in text.splitlines():
        body = line.split(": ", 1)[-1] if line.startswith("   ") else line
        if body.strip() and body.strip() in log:
            continue
        kept.append(line)
    return "\n".join(kept)


NO_MATCH_CASES = [(c.name, c.log) for c in load_cases("benign")] + [
    (c.name, c.log) for c in load_coverage() if c.label not in CATALOG.by_id
]


@pytest.mark.parametrize(("name", "log"), NO_MATCH_CASES, ids=[n for n, _ in NO_MATCH_CASES])
def test_no_triage_line_claims_a_cause(name: str, log: str) -> None:
    matched, result, text = triaged((f"{name}.log", log))
    if matched:
        return  # a record answered; triage is not shown
    assert text.startswith("No known failure signature matched.\n")
    assert all(i.text in log for i in result.lines) and all(t in log for g in result.tails for _, t in g.lines)
    assert not CLAIMS.search(without_log_text(text.replace(f"{name}.log", ""), log))


def test_the_corpora_reach_triage() -> None:
    unmatched = [name for name, log in NO_MATCH_CASES if not triaged((name, log))[0]]
    benign = {c.name for c in load_cases("benign")}
    assert len([n for n in unmatched if n in benign]) == len(benign)  # every healthy log reaches triage
    # and enough failure logs the catalog does not cover yet (42 at 176 records; it falls as records are added)
    assert len([n for n in unmatched if n not in benign]) >= 30


def cli(*args: str, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    return diagnose_cli(*args, stdin=stdin)  # never the terminal's input


def test_json_carries_the_triage_only_when_nothing_matched(tmp_path: Path) -> None:
    import jsonschema

    log = tmp_path / "two.log"
    log.write_text(TWO_RANKS, encoding="utf-8")
    result = cli("--json", "--site-url", "https://fp.test", str(log))
    assert result.returncode == 1, result.stderr
    data = json.loads(result.stdout)
    jsonschema.validate(data, json.loads((ROOT / "schema" / "diagnosis.schema.json").read_text(encoding="utf-8")))
    triage = data["triage"]
    assert triage["key_line"] == {"file": str(log), "line": 4}
    assert triage["search"] == {
        "query": "ValueError: frobnicator 12 out of range",
        "url": "https://fp.test/?q=ValueError%3A+frobnicator+12+out+of+range",
    }
    assert (
        triage["new_command"]
        == f"failpedia new value-error-frobnicator-out-of-range --category CATEGORY --from-log {log}"
    )
    assert [g["rank"] for g in triage["tails"]] == [None, 0, 1] and triage["omitted_groups"] == 0
    oom = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB."
    matched = json.loads(cli("--json", "-", stdin=oom.encode()).stdout)
    assert matched["findings"] and "triage" not in matched


def test_error_segments_take_the_first_error_segment_of_each_line_of_the_block() -> None:
    from generator.diagnosis.triage import error_segments
    from generator.signatures.match import Block

    data = b"skip ERROR\nok\nloading 10%\rstep Error here\rnext\n\xff fatal y FAILED\n"
    block = Block(data, 11, len(data) - 1)  # from line "ok" (numbered 5) to before the last newline
    assert error_segments(block, 5) == [(6, "step Error here"), (7, "\ufffd fatal y FAILED")]
    long = b"x" * 500 + b" ERROR " + b"y" * 500 + b"\n"
    assert error_segments(Block.of(long), 1) == [(1, "x" * 400)]


def test_last_lines_cut_at_a_line_start_within_the_last_bytes(monkeypatch: pytest.MonkeyPatch) -> None:
    from generator.diagnosis import triage
    from generator.signatures.match import Block

    data = b"aa\nbb\ncc\ndd\n"
    monkeypatch.setattr(triage, "TAIL_BYTES", 3)  # the cut falls just after the newline of "cc"
    assert triage.last_lines(Block.of(data), 10) == [(13, "dd")]
    monkeypatch.setattr(triage, "TAIL_BYTES", 2)  # "d\n": no whole line, though "dd" starts one byte earlier
    assert triage.last_lines(Block.of(data), 10) == []
    monkeypatch.setattr(triage, "TAIL_BYTES", 5)
    assert triage.last_lines(Block(data, 3, 11), 2) == [(3, "cc"), (4, "dd")]
    monkeypatch.setattr(triage, "TAIL_BYTES", 100)
    monkeypatch.setattr(triage, "TAIL_LINES", 2)
    assert triage.last_lines(Block.of(data + b"e\xff"), 1) == [(4, "dd"), (5, "e\ufffd")]


def test_rank_groups_show_the_last_non_blank_lines_of_each_rank_unranked_first() -> None:
    from collections import deque

    from generator.diagnosis.triage import rank_groups, tail_text

    assert tail_text("50%\rdone  \r\r") == "done"
    assert tail_text("x" * 500) == "x" * 400
    tail = deque([(1, "[rank1]: a"), (2, "plain"), (3, "[rank0]: b"), (4, "   \r"), (5, "[rank1]: c")])
    tail.extend([(6, "[rank1]: d"), (7, "[rank1]: e"), (8, "[rank10]: f")])
    assert [(g.file, g.rank, g.lines) for g in rank_groups("f.log", tail)] == [
        ("f.log", None, ((2, "plain"),)),
        ("f.log", 0, ((3, "[rank0]: b"),)),
        ("f.log", 1, ((5, "[rank1]: c"), (6, "[rank1]: d"), (7, "[rank1]: e"))),
        ("f.log", 10, ((8, "[rank10]: f"),)),
    ]


def line(text: str, number: int = 1, name: str = "a.log"):  # type: ignore[no-untyped-def]
    from generator.diagnosis.triage import TriageLine, timestamp_of

    return TriageLine(name, number, text, timestamp_of(text), (0, number))


def test_the_key_line_is_the_first_raised_exception_else_the_first_but_a_traceback_header() -> None:
    from generator.diagnosis.triage import key_line

    header, plain = line("[rank0]: Traceback (most recent call last):", 1), line("x ERROR y", 2)
    raised = line("[rank0]: torch.OutOfMemoryError: CUDA out of memory", 3)
    assert key_line((header, plain, raised)) == raised
    assert key_line((header, plain)) == plain
    assert key_line((header,)) is None and key_line(()) is None


def test_query_slug_url_and_command_of_a_key_line() -> None:
    from generator.diagnosis.triage import search_query, slug_of

    words = "[rank0]: " + " ".join(f"word{n:02}" for n in range(30))  # 30 words of 6 characters
    assert search_query(words) == " ".join(f"word{n:02}" for n in range(17))  # 118 characters
    assert search_query("OSError: gone  ") == "OSError: gone"
    exactly = " ".join(f"word{n:02}" for n in range(17)) + " a"  # 120 characters: kept whole
    assert search_query(exactly) == exactly
    tabbed = " ".join(f"word{n:02}" for n in range(17)) + "\tword17"  # only a space ends a word (as in JS)
    assert search_query(tabbed) == " ".join(f"word{n:02}" for n in range(16))
    assert slug_of("RuntimeError: CUDA error 700 an illegal memory access") == "runtime-error-cuda-error-an-illegal"
    assert slug_of("alphabetical betweenness consequential deliberations everywhere") == (
        "alphabetical-betweenness-consequential"
    )
    assert slug_of("a" * 60) == "a" * 48
    assert slug_of("a" * 23 + " " + "b" * 24) == "a" * 23 + "-" + "b" * 24  # 48 characters: kept
    assert slug_of("a" * 24 + " " + "b" * 24) == "a" * 24  # 49: cut at the last hyphen
    assert slug_of("!!! 42 ???") == "new-failure"


def test_a_report_names_its_file_and_search_even_without_a_key_line() -> None:
    from generator.diagnosis.triage import Triage, new_command, search_url, triage_json, triage_report
    from generator.signatures.match import Block

    triage = Triage()
    triage.observe(0, "a b.log", 1, Block.of(b"Traceback (most recent call last):\n"))
    report = triage_report(triage)
    assert (report.key, report.query, report.new_id, report.new_file) == (None, "", "new-failure", "a b.log")
    assert search_url(report, "https://fp.test/") is None
    assert new_command(report) == "failpedia new new-failure --category CATEGORY --from-log 'a b.log'"
    assert triage_json(report, "https://fp.test")["lines"] == [
        {"file": "a b.log", "line": 1, "text": "Traceback (most recent call last):", "timestamp": None}
    ]
    assert triage_json(report, "")["key_line"] is None
    quiet = Triage()
    quiet.observe(0, "q.log", 1, Block.of(b"all good\n"))
    assert triage_report(quiet).new_file == "q.log" and triage_report(Triage()).new_file == "LOG-FILE"
    many = Triage()
    many.observe(0, "r.log", 1, Block.of("".join(f"[rank{n}]: ok\n" for n in range(20)).encode()))
    grouped = triage_report(many)
    assert (len(grouped.tails), grouped.omitted_groups, grouped.tails[-1].rank) == (16, 4, 15)
    raised = Triage()
    raised.observe(0, "<stdin>", 1, Block.of(b"2024-01-01 10:00:00 ValueError: bad x\n"))
    shown = triage_report(raised)
    assert search_url(shown, "https://fp.test//") == "https://fp.test/?q=ValueError%3A+bad+x"
    assert search_url(shown, "") is None
    assert search_url(shown, "https://fp.test/X/") == "https://fp.test/X/?q=ValueError%3A+bad+x"
    text = "2024-01-01 10:00:00 ValueError: bad x"
    assert triage_json(shown, "https://fp.test") == {
        "lines": [{"file": "<stdin>", "line": 1, "text": text, "timestamp": "2024-01-01 10:00:00"}],
        "tails": [{"file": "<stdin>", "rank": None, "lines": [{"line": 1, "text": text}]}],
        "omitted_groups": 0,
        "key_line": {"file": "<stdin>", "line": 1},
        "search": {"query": "ValueError: bad x", "url": "https://fp.test/?q=ValueError%3A+bad+x"},
        "new_command": "failpedia new value-error-bad-x --category CATEGORY --from-log LOG-FILE",
    }
    data = triage_json(grouped, "")
    assert (data["omitted_groups"], data["search"]) == (4, {"query": "", "url": None})
    assert data["tails"][0] == {"file": "r.log", "rank": 0, "lines": [{"line": 1, "text": "[rank0]: ok"}]}


def test_copies_keep_the_earliest_by_time_and_later_lines_are_dropped_when_full() -> None:
    from generator.diagnosis.triage import Triage

    triage = Triage()
    triage.keep(line("2024-01-01 10:00:05 error 5", 1))
    triage.keep(line("2024-01-01 10:00:02 error 7", 2))  # the same text, numbers blanked: earlier wins
    triage.keep(line("2024-01-01 10:00:09 error 8", 3))  # a later copy is dropped
    triage.keep(line("no time FAILED", 4))  # untimed lines sort after every timestamp
    triage.keep(line("2024-01-01 10:00:03 fatal", 5))
    assert [(i.line, i.text) for _, i in triage.kept] == [
        (2, "2024-01-01 10:00:02 error 7"),
        (5, "2024-01-01 10:00:03 fatal"),
        (4, "no time FAILED"),
    ]
    for n in range(10):
        triage.keep(line(f"2024-01-01 09:00:0{n} Killed {'x' * n}", 10 + n))
    assert [i.line for _, i in triage.kept] == list(range(10, 18))


def test_error_segments_stay_inside_the_block_and_their_line() -> None:
    from generator.diagnosis.triage import error_segments
    from generator.signatures.match import Block

    # logread's blocks end at a line end, before the partial line it carries to the next block
    data = b"ok\nx ERROR y\nnext\rz\nFAILED first\na\rb\rc Error d\re\rf\npartial FAILED"
    assert error_segments(Block(data, 0, len(data) - len("partial FAILED")), 1) == [
        (2, "x ERROR y"),
        (4, "FAILED first"),
        (5, "c Error d"),
    ]
    assert error_segments(Block.of(b"x ERROR\nFAILED y\n"), 1) == [(1, "x ERROR"), (2, "FAILED y")]


def test_tail_text_is_the_last_segment_without_the_space_both_sides_strip() -> None:
    from generator.diagnosis.triage import tail_text

    assert tail_text("a\rb\rc") == "c"
    assert tail_text("a\rb\r  ") == ""
    assert tail_text("ends in X") == "ends in X"
    assert tail_text("nbsp\xa0") == "nbsp\xa0"  # only " \t\r\n\f\v", as in the browser


def test_a_slug_loses_one_word_at_a_time() -> None:
    from generator.diagnosis.triage import slug_of

    assert slug_of(" ".join(("a" * 10, "b" * 10, "c" * 30))) == "a" * 10 + "-" + "b" * 10


def test_numbers_blanked_to_hash_match_a_written_hash() -> None:
    from generator.diagnosis.triage import Triage

    triage = Triage()
    triage.keep(line("error # here", 1))
    triage.keep(line("error 5 here", 2))
    assert [i.line for _, i in triage.kept] == [1]


def test_tails_keep_the_latest_lines_across_blocks_and_a_window_seen_again_once() -> None:
    from generator.diagnosis.triage import TAIL_LINES, Triage, triage_report
    from generator.signatures.match import Block

    triage = Triage()
    triage.observe(0, "a.log", 1, Block.of(b"[rank5]: old\n"))
    triage.observe(0, "a.log", 2, Block.of(b"".join(b"[rank0]: step %d\n" % n for n in range(TAIL_LINES))))
    assert [g.rank for g in triage_report(triage).tails] == [0]
    windows = Triage()
    windows.observe(0, "w.log", 7, Block.of(b"x" * 10))
    windows.observe(0, "w.log", 7, Block.of(b"x" * 12))
    assert list(windows.tails[0][1]) == [(7, "x" * 12)]


def test_the_new_command_names_the_key_lines_file_else_the_first_lines_file() -> None:
    from generator.diagnosis.triage import Triage, triage_report
    from generator.signatures.match import Block

    triage = Triage()
    triage.observe(0, "a.log", 1, Block.of(b"2024-01-01 10:00:00 Traceback (most recent call last):\n"))
    triage.observe(1, "b.log", 1, Block.of(b"2024-01-01 10:00:01 ValueError: bad\n"))
    assert triage_report(triage).new_file == "b.log"
    headers = Triage()
    headers.observe(0, "q.log", 1, Block.of(b"all good\n"))
    headers.observe(1, "t.log", 1, Block.of(b"Traceback (most recent call last):\n"))
    assert triage_report(headers).new_file == "t.log"
