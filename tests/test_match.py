"""The matcher on small blocks, on both paths: Hyperscan with RE2 confirmation, and RE2 alone."""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.patterns.normalize import normalize_line
from generator.records.model import Signature
from generator.records.pipeline import load_catalog
from generator.signatures import match
from generator.signatures.facts import diagnosis_signatures, pseudo_signature
from generator.signatures.match import Block, Matcher

from .realworld import Case, load_cases

ROOT = Path(__file__).resolve().parent.parent
CATALOG = load_catalog([ROOT / "entries"], ROOT).catalog
STUCK = "fp16-loss-scale-overflow-stuck-at-one"
# Hyperscan sees the prefilter (anchors dropped): "1(\.0)?([^0-9.]|)" matches "reducing to 1"
# in front of ".5"; only RE2 on the whole pattern knows that "$" does not follow.
NEAR_MISS = b"[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 1, reducing to 1.5\n"
HIT = b"[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 1, reducing to 1\n"
OOM = b"[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n"


# The Hyperscan databases of the whole catalog, compiled once at import: a mutation run forks
# a process per mutant after importing the tests, and compiling them takes about a second.
FAST = Matcher(CATALOG.signatures)
FACTS = Matcher(diagnosis_signatures(CATALOG))  # with the facts and condition lines, as diagnose scans


@pytest.fixture(params=["hyperscan", "re2-only"])
def matcher(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Matcher:
    """Return a matcher of every real signature, on the fast path or the slow one."""
    if request.param == "hyperscan":
        return Matcher(CATALOG.signatures, FAST.database)
    monkeypatch.setattr(match, "hyperscan", None)
    built = Matcher(CATALOG.signatures)
    assert built.database is None
    return built


def hits(matcher: Matcher, data: bytes) -> list[tuple[str, int, str]]:
    """Return (signature id, line offset, text) of every hit, sorted."""
    return sorted((hit.signature.id, hit.line_offset, hit.text) for hit in matcher.scan_block(data))


def test_a_prefilter_candidate_that_re2_refuses_is_no_hit(matcher: Matcher) -> None:
    assert hits(matcher, b"step 1\n" + NEAR_MISS + b"step 2\n") == []


def test_a_refused_candidate_does_not_hide_a_later_real_hit(matcher: Matcher) -> None:
    assert hits(matcher, NEAR_MISS + b"step 2\n" + HIT) == [(STUCK, 2, HIT.decode().rstrip("\n"))]


def test_hits_carry_their_exact_line_offset(matcher: Matcher) -> None:
    data = b"a\nb\n" + OOM + b"c\n"
    assert hits(matcher, data) == [("cuda-out-of-memory-allocator", 2, OOM.decode().rstrip("\n"))]


def test_the_first_line_is_offset_zero(matcher: Matcher) -> None:
    assert hits(matcher, OOM) == [("cuda-out-of-memory-allocator", 0, OOM.decode().rstrip("\n"))]


def test_carriage_returns_split_segments_but_not_line_numbers(matcher: Matcher) -> None:
    data = b"a\n 50%|##  |\r" + OOM
    assert hits(matcher, data) == [("cuda-out-of-memory-allocator", 1, OOM.decode().rstrip("\n"))]


def test_ansi_codes_are_removed_before_matching(matcher: Matcher) -> None:
    data = b"x\n\x1b[31mtorch.OutOfMemoryError: CUDA out of memory.\x1b[0m Tried to allocate 1.00 GiB\n"
    assert hits(matcher, data) == [
        ("cuda-out-of-memory-allocator", 1, "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.00 GiB")
    ]


def test_each_signature_reports_every_line_it_matches(matcher: Matcher) -> None:
    line = OOM.decode().rstrip("\n")
    assert hits(matcher, b"x\n" + OOM + OOM) == [
        ("cuda-out-of-memory-allocator", 1, line),
        ("cuda-out-of-memory-allocator", 2, line),
    ]


def signature(pattern: str, ignore_case: bool = False) -> Signature:
    """Return a bare signature with ``pattern``."""
    return Signature("s", "e", pattern, ignore_case, "", "specific", (), (), 0)


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        ("^abc$", "abc"),
        ("(^a|b$)x", "(a|b)x"),
        (r"\$x\^", r"\$x\^"),
        ("a[^$]b^", "a[^$]b"),
        ("[]$^]^$", "[]$^]"),
        (r"[\]$]$", r"[\]$]"),
        ("a^[x]$", "a[x]"),
        ("aXb", "aXb"),
    ],
)
def test_prefilter_drops_anchors_outside_classes_and_escapes(pattern: str, expected: str) -> None:
    assert match.prefilter_pattern(pattern) == expected


def test_block_parts() -> None:
    block = Block(b"xa\nb\nx", 1, 5)
    assert Block.of(b"abc") == Block(b"abc", 0, 3)
    assert (block.view().tobytes(), block.copy()) == (b"a\nb\n", b"a\nb\n")
    assert (block.count(b"\n"), block.count(b"x"), block.count(b"a\nb")) == (2, 0, 1)
    assert (block.contains(b"b\n"), block.contains(b"x"), block.contains(b"\nx")) == (True, False, False)
    assert Block.of(b"ab").contains(b"a")


@pytest.mark.parametrize("after", [0, 1 << 40], ids=["numpy", "bytes.count"])
def test_a_large_block_counts_only_its_own_bytes(after: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(match, "NUMPY_AFTER", after)
    lines = match.NUMPY_FROM // 3 + 10
    block = Block(b"\n\n\n" + b"ab\n" * lines, 3, 3 + 3 * lines)
    counts = [block.count(needle) for needle in (b"\n", b"a", b"\na", b"b\na")]
    assert counts == [lines, lines, lines - 1, lines - 1]


@pytest.mark.parametrize(
    ("block", "expected"),
    [
        (Block(b"aa\nbb\ncc\n", 0, 9), (Block(b"aa\nbb\ncc\n", 0, 6), Block(b"aa\nbb\ncc\n", 6, 9))),
        (Block(b"zz\naa\nbb\ncc\n", 3, 12), (Block(b"zz\naa\nbb\ncc\n", 3, 9), Block(b"zz\naa\nbb\ncc\n", 9, 12))),
        (Block(b"abcdef\n", 0, 7), (Block(b"abcdef\n", 0, 7),)),
        (Block(b"a\nbcdef", 0, 7), (Block(b"a\nbcdef", 0, 7),)),
        (Block(b"a\nb\nc\nd\ne\n", 0, 10), (Block(b"a\nb\nc\nd\ne\n", 0, 6), Block(b"a\nb\nc\nd\ne\n", 6, 10))),
        (Block(b"abcde\n\n", 0, 7), (Block(b"abcde\n\n", 0, 6), Block(b"abcde\n\n", 6, 7))),
        (
            Block(b"a\nb\nc\nd\n" + b"x" * 20, 0, 8),
            (Block(b"a\nb\nc\nd\n" + b"x" * 20, 0, 6), Block(b"a\nb\nc\nd\n" + b"x" * 20, 6, 8)),
        ),
    ],
)
def test_a_block_splits_at_the_line_end_after_its_middle(block: Block, expected: tuple[Block, ...]) -> None:
    assert block.split() == expected


def test_split_lines_numbers_lines_by_newline() -> None:
    assert list(match.split_lines(b"a\r b\nc\n")) == [(0, b"a"), (0, b" b"), (1, b"c"), (2, b"")]


@pytest.mark.parametrize(
    ("offset", "low", "high", "expected"),
    [(0, 0, None, (0, 2)), (3, 0, None, (3, 5)), (5, 0, None, (3, 5)), (6, 0, None, (3, 5)), (8, 0, None, (7, 9))],
)
def test_line_bounds(offset: int, low: int, high: int | None, expected: tuple[int, int]) -> None:
    assert match.line_bounds(b"ab\ncd\r\nef", offset, low, high) == expected


@pytest.mark.parametrize(
    ("data", "offset", "expected"),
    [
        (b"ab\ncd", 1, (0, 2)),
        (b"a\nXb", 2, (2, 4)),
        (b"a\nb\n", 3, (2, 3)),
        (b"a\rb\rc", 4, (4, 5)),
        (b"a\rb\ncd", 5, (4, 6)),
        (b"x\ry\nab\rcd", 8, (7, 9)),
    ],
)
def test_line_bounds_of_the_whole_data(data: bytes, offset: int, expected: tuple[int, int]) -> None:
    assert match.line_bounds(data, offset) == expected


@pytest.mark.parametrize("case", [*load_cases("failures"), *load_cases("benign")], ids=lambda case: case.name)
def test_the_block_scan_finds_what_the_line_scanner_finds(case: Case) -> None:
    data = case.log.encode("utf-8")
    scanned = [(h.line_offset, h.signature.id, h.text) for h in FACTS.scan_block(data)]
    every = FACTS.scan_lines(data, range(len(FACTS.signatures)))
    assert [line for line, *_ in scanned] == sorted(line for line, *_ in scanned)  # in line order
    assert sorted(scanned) == sorted((h.line_offset, h.signature.id, h.text) for h in every)


def test_line_bounds_stay_within_low_and_high() -> None:
    assert match.line_bounds(b"ab\ncdef\n", 5, 4, 6) == (4, 6)
    assert match.line_bounds(b"abcdef", 2, 1, 3) == (1, 3)


def test_a_given_database_is_used_as_is() -> None:
    given = object()
    assert Matcher([signature("^a")], database=given).database is given


def test_facts_and_records_are_found_on_every_line_in_one_pass() -> None:
    fact = pseudo_signature("fact.nccl", r"NCCL version [0-9.]+", "the nccl a log states")
    built = Matcher([signature("Boom"), fact])
    block = b"NCCL version 2.18.1\nok\nBoom\nNCCL version 2.19.3\nBoom\n"
    found = [(h.signature.id, h.line_offset) for h in built.scan_block(block)]
    assert found == [("fact.nccl", 0), ("s", 2), ("fact.nccl", 3), ("s", 4)]
    inner = match.Block(b"Boom\n" + block, 5, 5 + len(block))  # the bytes before the block are not read
    assert [(h.signature.id, h.line_offset) for h in built.scan_block(inner)] == found


LONG = "Tensors must be CUDA and dense"


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        (LONG, (LONG.encode(),)),
        (r"(CUDA error: |\): )peer access is not supported", (b"peer access is not supported",)),
        (
            r"NCCL error [0-9]+: (unhandled system error|remote process exited)",
            (b"remote process exited", b"unhandled system error"),
        ),
        ("loss is nan", ()),  # too short: most healthy lines could hold it
        (r"Boom [0-9]+", ()),
    ],
)
def test_literal_texts_are_the_required_texts_when_long_enough(pattern: str, expected: tuple[bytes, ...]) -> None:
    match.literal_texts.cache_clear()  # the catalog compiled at import holds some of these patterns already
    assert match.literal_texts(pattern) == expected
    assert match.block_expression(pattern) == (
        "|".join(match.escape_literal(t.decode()) for t in expected) or match.prefilter_pattern(pattern)
    )


def test_literal_and_regex_signatures_find_every_line_each() -> None:
    sigs = [
        signature(LONG),
        signature(r"loss [0-9.]+ is nan"),
        signature("TENSORS MUST BE CUDA AND DENSE", ignore_case=True),
    ]
    built = Matcher(sigs)
    block = f"ok\n{LONG} (1)\nloss 2.5 is nan\nx {LONG}\r{LONG} again\nloss 1 is nan\n".encode()
    found = [(h.signature.pattern[:6], h.line_offset, h.text) for h in built.scan_block(block)]
    assert found == [
        (LONG[:6], 1, f"{LONG} (1)"),
        ("TENSOR", 1, f"{LONG} (1)"),
        ("loss [", 2, "loss 2.5 is nan"),
        (LONG[:6], 3, f"x {LONG}"),
        ("TENSOR", 3, f"x {LONG}"),
        (LONG[:6], 3, f"{LONG} again"),
        ("TENSOR", 3, f"{LONG} again"),
        ("loss [", 4, "loss 1 is nan"),
    ]


def test_escaped_literals_match_only_themselves() -> None:
    text = "[Errno 28] No space (left) on device.* $1 ^x|y+ {2} \\ C++_a-b"
    built = Matcher([signature(escape(text))])
    assert match.literal_texts(escape(text)) == (text.encode(),)
    assert [h.text for h in built.scan_block(f"{text}\n{text.replace('.', 'x')}\n".encode())] == [text]


def escape(text: str) -> str:
    """Return ``text`` as a portable pattern matching it literally."""
    return "".join(f"\\{char}" if char in "\\^$.|?*+()[]{}" else char for char in text)


def test_the_required_texts_are_the_set_whose_shortest_text_is_longest() -> None:
    # "zz " is the set that sorts last, but three letters filter far less than either long text
    assert match.required_texts("zz (alpha-long-text|beta-long-text)") == ["alpha-long-text", "beta-long-text"]
    assert match.required_texts("(ab|cdefgh) middle-long-text") == [" middle-long-text"]
    assert match.required_texts("[0-9]+") == []


def hyperscan_matcher(sigs: list[Signature]) -> Matcher:
    """Return a matcher on the fast path; fail loudly where Hyperscan is missing."""
    if match.hyperscan is None:
        pytest.fail("hyperscan is not installed: the fast path is untested")
    return Matcher(sigs)


def test_the_database_compiles_a_prefilter_that_can_match_nothing() -> None:
    built = hyperscan_matcher([signature("(x)?")])  # Hyperscan refuses an empty-matching expression without ALLOWEMPTY
    assert [h.line_offset for h in built.scan_block(b"a\nx\n")] == [0, 1]


def test_only_ignore_case_signatures_are_caseless_candidates() -> None:
    built = hyperscan_matcher([signature(LONG), signature(LONG.upper(), ignore_case=True)])
    block = Block.of(f"{LONG.upper()}\n".encode())
    assert sorted(index for _, index in built.candidates(block)) == [1]


def test_a_first_candidate_line_at_byte_one_is_decoded() -> None:
    built = hyperscan_matcher([signature(LONG)])
    assert [(h.line_offset, h.text) for h in built.scan_block(f"\n{LONG}\n".encode())] == [(1, LONG)]


def test_no_signatures_no_database() -> None:
    assert match.block_database(()) is None
    assert Matcher([]).scan_block(b"anything\n") == []


def test_compiled_holds_one_regex_per_signature() -> None:
    compiled = Matcher([signature("^a$"), signature("b", ignore_case=True)]).compiled
    assert [bool(regex.search(text)) for regex in compiled for text in ("a", "B")] == [True, False, False, True]


SMALL = [signature("^ERR [0-9]+$", ignore_case=True), signature("warn$")]


def small_hits(matcher: Matcher, block: Block | bytes) -> list[tuple[str, int, str]]:
    """Return (pattern, line offset, text) of every hit in scan order."""
    return [(hit.signature.pattern, hit.line_offset, hit.text) for hit in matcher.scan_block(block)]


@pytest.mark.parametrize("path", ["hyperscan", "re2-only"])
def test_scan_block_of_a_block_inside_larger_data(path: str, monkeypatch: pytest.MonkeyPatch) -> None:
    if path == "re2-only":
        monkeypatch.setattr(match, "hyperscan", None)
    data = b"err 1\nx\nerr 2\nWARN\r a warn\nerr 3x\nerr 4\n\xff warn\n"
    assert small_hits(Matcher(SMALL), Block(data, 6, data.index(b"err 4"))) == [
        ("^ERR [0-9]+$", 1, "err 2"),
        ("warn$", 2, " a warn"),
    ]
    assert small_hits(Matcher(SMALL), data) == [
        ("^ERR [0-9]+$", 0, "err 1"),
        ("^ERR [0-9]+$", 2, "err 2"),
        ("warn$", 3, " a warn"),
        ("^ERR [0-9]+$", 5, "err 4"),
        ("warn$", 6, "\ufffd warn"),
    ]


@pytest.mark.parametrize("path", ["hyperscan", "re2-only"])
def test_a_one_character_match_at_a_line_start_is_on_that_line(path: str, monkeypatch: pytest.MonkeyPatch) -> None:
    if path == "re2-only":
        monkeypatch.setattr(match, "hyperscan", None)
    assert small_hits(Matcher([signature("^x$")]), b"ab\nx\n") == [("^x$", 1, "x")]
    assert small_hits(Matcher([signature("^x$")]), b"x\n") == [("^x$", 0, "x")]


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (" \t[rank1]: \t[2]: 3: boom \t\r\f\v", "boom"),
        ("[1]: [2]: [3]: [4]: [5]: [6]: [7]: [8]: [9]: boom", "[9]: boom"),
        ("[1]: [2]: [3]: [4]: [5]: [6]: [7]: [8]: boom", "boom"),
        ("\x1b[31m[rank0]:\x1b[0m boom\x1b]0;title\x07", "boom"),
        ("boom\x1c\x85\u3000", "boom\x1c\x85\u3000"),
        ("\n[rank0]: boom", "\n[rank0]: boom"),
        ("", ""),
        ("Xid 79: boom", "Xid 79: boom"),
    ],
)
def test_normalize_strips_leading_prefixes_up_to_eight_and_only_ascii_trailing_space(line: str, expected: str) -> None:
    assert normalize_line(line) == expected


@pytest.mark.parametrize("path", ["hyperscan", "re2-only"])
@pytest.mark.parametrize(
    "data, start, end",
    [
        (b"err 1\nx\nerr 2\nWARN\r a warn\nerr 3x\nerr 4\n\xff warn\n", 0, None),
        (b"err 1\nx\nerr 2\nWARN\r a warn\nerr 3x\nerr 4\n\xff warn\n", 6, 27),
        (b"x\ny\nz\n", 0, None),  # no hit: every line is counted after the (empty) confirmation
        (b"\x1b[31merr 7\x1b[0m\nx\n\x1b]0;title\x07warn\nlast", 0, None),  # escapes are cut, newlines stay
        (b"no newline at all, warn", 0, None),
    ],
)
def test_scan_counted_gives_the_hits_and_the_blocks_newlines(
    path: str, data: bytes, start: int, end: int | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    if path == "re2-only":
        monkeypatch.setattr(match, "hyperscan", None)
    block = Block(data, start, len(data) if end is None else end)
    hits, newlines = Matcher(SMALL).scan_counted(block)
    assert newlines == data.count(b"\n", block.start, block.end)
    assert [(h.signature.pattern, h.line_offset, h.text) for h in hits] == small_hits(Matcher(SMALL), block)
    assert hits or b"err" not in block.copy()


@pytest.mark.parametrize("numpy_from", [None, 0])
@pytest.mark.parametrize("granule", [4, 7, 4096])
def test_line_offsets_count_like_bytes_count(
    numpy_from: int | None, granule: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The numpy path (per-granule sums, then the offset's own granule) gives bytes.count's answer.
    if numpy_from is not None:
        monkeypatch.setattr(match, "NUMPY_FROM", numpy_from)
        monkeypatch.setattr(match, "NUMPY_AFTER", -1)
    monkeypatch.setattr(match, "GRANULE", granule)
    monkeypatch.setattr(match, "NUMPY_SLICE", granule * 3)
    data = b"ab\n\ncdefghij\nk\n\n\nlmnopqrstuvwxyz\n" * 5 + b"tail"
    for start, end in [(0, len(data)), (5, len(data) - 2), (13, 60)]:
        block = Block(data, start, end)
        starts = [at for at in range(start, end, 3)]
        lines, total = match.line_offsets(block, starts)
        assert lines == [data.count(b"\n", start, at) for at in starts]
        assert total == data.count(b"\n", start, end)
