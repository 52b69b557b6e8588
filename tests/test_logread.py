"""Reading logs in bounded blocks: every line keeps its number whatever the block size."""

from __future__ import annotations

import gzip
import io
import random
from collections import defaultdict
from pathlib import Path

import pytest

from generator.diagnosis import logread
from generator.diagnosis.logread import (
    EMPTY,
    Source,
    blocks,
    close_source,
    failed_source,
    first_line_end,
    gunzip,
    last_line_end,
    open_source,
    peek,
)

LINES = [f"line {n} " + "x" * (n % 7) for n in range(1, 60)]
TEXT = "\n".join(LINES) + "\n"


def numbered(data: bytes, block_size: int) -> tuple[dict[int, bytes], list[str]]:
    """Return the bytes read per line number (from each block's first line) and the notes."""
    source = Source("log", io.BytesIO(data))
    found: dict[int, bytes] = defaultdict(bytes)
    for first, block in blocks(source, block_size):
        for offset, piece in enumerate(block.copy().split(b"\n")):
            found[first + offset] += piece
    return {n: text for n, text in found.items() if text}, source.notes


def expected(text: str) -> dict[int, bytes]:
    return {n: line.encode() for n, line in enumerate(text.split("\n"), 1) if line}


@pytest.mark.parametrize("block_size", [1, 2, 3, 5, 8, 13, 64, 1 << 20])
def test_every_line_keeps_its_number_across_block_cuts(block_size: int) -> None:
    assert numbered(TEXT.encode(), block_size) == (expected(TEXT), [])


@pytest.mark.parametrize("block_size", [1, 3, 7, 1 << 20])
def test_carriage_returns_are_no_new_lines_across_blocks(block_size: int) -> None:
    text = "a\r 10%\r 50%\r100%\nb\r\nc\rd\n"
    assert numbered(text.encode(), block_size) == (expected(text), [])


@pytest.mark.parametrize("block_size", [4, 9, 1 << 20])
def test_a_last_line_without_newline_is_read(block_size: int) -> None:
    assert numbered(b"one\ntwo\nthree", block_size) == ({1: b"one", 2: b"two", 3: b"three"}, [])


@pytest.mark.parametrize("block_size", [16, 1 << 20])
def test_every_member_of_a_concatenated_gzip_is_read(block_size: int) -> None:
    first, second = "\n".join(LINES[:20]) + "\n", "\n".join(LINES[20:]) + "\n"
    data = gzip.compress(first.encode()) + gzip.compress(second.encode())
    assert numbered(data, block_size) == (expected(TEXT), [])


def test_a_truncated_gzip_keeps_what_came_before_the_cut() -> None:
    data = gzip.compress(TEXT.encode() * 50)[:-20]
    lines, notes = numbered(data, 64)
    assert notes == ["gzip stream is truncated; hits before the cut are kept"]
    assert lines[1] == LINES[0].encode() and len(lines) > 100


def test_block_size_bounds_the_blocks() -> None:
    source = Source("log", io.BytesIO(TEXT.encode()))
    sizes = [block.end - block.start for _, block in blocks(source, 32)]
    assert max(sizes) <= 32 + max(len(line) for line in LINES) + 1
    assert len(sizes) > len(TEXT) // 64


def read(
    data: bytes | Source, block_size: int = 1 << 20, max_line: int = 1 << 20
) -> tuple[list[tuple[int, bytes]], list[str], bool]:
    """Return every (first line number, bytes) block of an input, its notes and whether it failed."""
    source = data if isinstance(data, Source) else Source("log", io.BytesIO(data))
    found = [(first, block.copy()) for first, block in blocks(source, block_size, max_line)]
    return found, source.notes, source.failed


def test_a_line_longer_than_the_limit_comes_in_overlapping_windows() -> None:
    long = b"ab" * 5000
    found, notes, _ = read(b"x\n" + long + b"\ny\n", 4096, 6000)
    assert [(first, len(text)) for first, text in found] == [(1, 2), (2, 8190), (2, 5907), (3, 2)]
    assert found[1][1] == long[:8190] and found[2][1] == long[8190 - 4096 :] + b"\n"
    assert notes == ["a line longer than 6000 bytes was scanned in overlapping windows"]


def test_a_line_exactly_at_the_limit_is_read_whole() -> None:
    found, notes, _ = read(b"a" * 12 + b"\n", 8, 12)
    assert found == [(1, b"a" * 12 + b"\n")] and notes == []


def test_nul_bytes_and_invalid_utf8_are_noted_once() -> None:
    found, notes, failed = read(b"ok\n\xff bad\nnul \x00 here\n\x00 again\n")
    assert notes == [
        "contains NUL bytes (scanned as text)",
        "contains invalid UTF-8 (shown with replacement characters)",
    ]
    assert found == [(1, b"ok\n\xff bad\nnul \x00 here\n\x00 again\n")] and not failed


def test_invalid_utf8_is_looked_for_in_the_first_block_only() -> None:
    assert read(b"ok\n" * 4 + b"\xff\n", 8)[1] == []
    assert read(b"\xff\n" + b"ok\n" * 4, 8)[1] == ["contains invalid UTF-8 (shown with replacement characters)"]


def test_nul_bytes_in_a_carried_or_last_line_are_noted() -> None:
    assert read(b"ab\n" + b"c" * 20 + b"\x00e\n", 4)[1] == ["contains NUL bytes (scanned as text)"]
    assert read(b"ab\n" + b"c" * 20 + b"\x00", 4)[1] == ["contains NUL bytes (scanned as text)"]
    assert read(b"\x00" + b"a" * 5000, 4096, 4096)[1] == [
        "a line longer than 4096 bytes was scanned in overlapping windows",
        "contains NUL bytes (scanned as text)",
    ]


@pytest.mark.parametrize(
    ("data", "notes", "failed"),
    [
        (b"\x00" * 11 + b"a" * 89, ["binary file (not a text log); skipped"], True),
        (b"\x00" * 10 + b"a" * 90, ["contains NUL bytes (scanned as text)"], False),
        (b"\xef\xbb\xbf" + b"\x00" * 10 + b"a" * 87, ["binary file (not a text log); skipped"], True),
    ],
)
def test_a_file_of_more_than_a_tenth_nul_bytes_is_binary(data: bytes, notes: list[str], failed: bool) -> None:
    found, got, was_failed = read(data)
    assert (got, was_failed) == (notes, failed)
    assert found == ([] if failed else [(1, data)])


def test_utf16_is_transcoded_by_its_byte_order_mark() -> None:
    for codec in ("utf-16-le", "utf-16-be"):
        bom = b"\xff\xfe" if codec.endswith("le") else b"\xfe\xff"
        found, notes, _ = read(bom + "één\ntwo\nthree".encode(codec), 3)
        assert b"".join(text for _, text in found) == "één\ntwo\nthree".encode() and notes == []
        assert [first for first, _ in found][-1] == 3


def test_a_gzipped_utf16_log_is_read() -> None:
    data = gzip.compress(b"\xff\xfe" + "a\nb\n".encode("utf-16-le"))
    assert read(data) == ([(1, b"a\nb\n")], [], False)


def test_corrupt_gzip_data_keeps_what_came_before() -> None:
    whole = gzip.compress(TEXT.encode() * 200)
    damaged = whole[:10] + bytes(byte ^ 0x55 for byte in whole[10:])
    found, notes, failed = read(damaged, 64)
    assert found == [] and not failed and len(notes) == 1
    assert notes[0].startswith("gzip data is corrupt (Error -3 while decompressing data: ")
    assert notes[0].endswith("); hits before the damage are kept")


def test_gzip_output_past_the_limit_is_not_read() -> None:
    source = Source("log", io.BytesIO(b"".join(gzip.compress(b"abc\n" * 10) for _ in range(3))))
    out = list(gunzip(source, iter([source.stream.read()]), limit=80, size=40))
    assert out == [b"abc\n" * 10, b"abc\n" * 10]
    assert source.notes == ["decompressed size passed 80 bytes; the rest was not read"]
    source = Source("log", io.BytesIO(gzip.compress(b"abc\n" * 20)))
    assert list(gunzip(source, iter([source.stream.read()]), limit=80, size=40)) == [b"abc\n" * 10, b"abc\n" * 10]
    assert source.notes == []


def test_an_empty_gzip_chunk_is_no_truncation() -> None:
    source = Source("log", io.BytesIO(b""))
    assert list(gunzip(source, iter([b""]))) == [] and source.notes == []


class FailingRead(io.BytesIO):
    """A stream whose second read fails, as a disk error would."""

    def __init__(self, first: bytes, error: OSError) -> None:
        super().__init__(first)
        self.reads = 0
        self.error = error

    def read(self, size: int | None = -1) -> bytes:
        self.reads += 1
        if self.reads > 1:
            raise self.error
        return super().read(size)


@pytest.mark.parametrize(
    ("error", "note"),
    [
        (OSError(5, "Input/output error"), "read failed: Input/output error; hits before it are kept"),
        (OSError("no errno"), "read failed: no errno; hits before it are kept"),
    ],
)
def test_a_read_error_ends_the_input_and_keeps_what_came_before(error: OSError, note: str) -> None:
    source = Source("log", FailingRead(b"one\ntwo\n", error))
    assert read(source, 8) == ([(1, b"one\ntwo\n")], [note], True)
    assert source.bytes_read == 8


def test_the_bytes_read_are_counted() -> None:
    source = Source("log", io.BytesIO(b"a\n" * 10))
    read(source, 3)
    assert source.bytes_read == 20


def test_peek_returns_the_head_and_every_chunk() -> None:
    head, rest = peek(iter([b"abc", b"def", b"ghi"]), 4)
    assert head == b"abcd" and list(rest) == [b"abc", b"def", b"ghi"]
    head, rest = peek(iter([b"abc", b"def", b"ghi"]), 3)
    assert head == b"abc" and list(rest) == [b"abc", b"def", b"ghi"]
    assert peek(iter([b"ab"]), 8)[0] == b"ab"


def test_line_ends_are_found_first_and_last() -> None:
    assert [first_line_end(text) for text in (b"ab", b"a\nb\r", b"a\rb\n", b"\n", b"a\rb\rc\n")] == [0, 2, 2, 1, 2]
    assert [last_line_end(b"a\nb\rc", start) for start in (0, 2, 4, 5)] == [4, 4, 4, 5]
    assert last_line_end(b"a\rb\rc", 0) == 4 and last_line_end(b"a\nb\nc", 0) == 4
    assert last_line_end(b"a\rb\nc", 0) == 4 and last_line_end(b"abc", 1) == 1


@pytest.mark.parametrize("seed", range(3))
def test_line_ends_agree_with_a_search_of_every_byte(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(2000):
        chunk = bytes(rng.choice(b"ab\n\r") for _ in range(rng.randrange(12)))
        ends = [index + 1 for index, byte in enumerate(chunk) if byte in b"\r\n"]
        assert first_line_end(chunk) == (ends[0] if ends else 0), chunk
        start = rng.randrange(len(chunk) + 1)
        assert last_line_end(chunk, start) == max([end for end in ends if end > start] or [start]), (chunk, start)


def test_sources_are_opened_or_fail_with_a_reason(tmp_path: Path) -> None:
    (tmp_path / "log.txt").write_bytes(b"a\n")
    opened = open_source(str(tmp_path / "log.txt"), None)
    assert (opened.name, opened.notes, opened.failed) == (str(tmp_path / "log.txt"), [], False)
    assert read(opened) == ([(1, b"a\n")], [], False)
    close_source(opened)
    assert opened.stream.closed
    reasons = [
        (source.name, source.notes, source.failed, source.stream is EMPTY)
        for source in (
            open_source(str(tmp_path), None),
            open_source(str(tmp_path / "missing"), None),
            open_source(str(tmp_path / ("x" * 300)), None),
            open_source("-", None),
        )
    ]
    assert reasons == [
        (str(tmp_path), ["is a directory"], True, True),
        (str(tmp_path / "missing"), ["no such file"], True, True),
        (str(tmp_path / ("x" * 300)), ["cannot be read: File name too long"], True, True),
        ("-", ["standard input is closed"], True, True),
    ]


def test_standard_input_is_read_and_never_closed() -> None:
    stdin = io.BytesIO(b"a\n")
    source = open_source("-", stdin)
    assert (source.name, source.stream is stdin, source.failed) == ("<stdin>", True, False)
    close_source(source)
    assert not stdin.closed
    stdin.close()
    assert open_source("-", stdin).notes == ["standard input is closed"]
    close_source(failed_source("x", "gone"))
    assert not EMPTY.closed


def test_broken_utf16_is_replaced_not_fatal() -> None:
    data = b"\xff\xfe" + "a\n".encode("utf-16-le") + b"\x00\xd8" + "b\n".encode("utf-16-le") + b"c"
    assert read(data, 4) == ([(1, b"a\n"), (2, "\ufffdb\n".encode()), (3, "\ufffd".encode())], [], False)


def test_a_long_unfinished_last_line_in_one_chunk_is_windowed() -> None:
    assert read(b"x\n" + b"a" * 20, 64, 8) == (
        [(1, b"x\n"), (2, b"a" * 20), (2, b"a" * 20)],
        ["a line longer than 8 bytes was scanned in overlapping windows"],
        False,
    )


def test_an_unfinished_line_exactly_at_the_limit_is_not_windowed() -> None:
    assert read(b"a" * 12, 4, 12) == ([(1, b"a" * 12)], [], False)


def test_a_window_past_the_first_block_is_not_checked_for_utf8() -> None:
    assert read(b"ok\n\xff" + b"a" * 5000, 4096, 4096)[1] == [
        "a line longer than 4096 bytes was scanned in overlapping windows"
    ]


def test_gzipped_blocks_are_bounded_by_the_block_size() -> None:
    source = Source("log", io.BytesIO(gzip.compress(TEXT.encode())))
    sizes = [block.end - block.start for _, block in blocks(source, 32)]
    assert max(sizes) <= 32 + max(len(line) for line in LINES) + 1 and sum(sizes) == len(TEXT)


def test_invalid_utf8_is_looked_for_in_the_first_sniff_bytes() -> None:
    filler = b"ok\n" * (logread.UTF8_SNIFF // 3 + 1)
    assert read(filler + b"\xff\n")[1] == []  # past the sniffed bytes: only matched lines are checked
    assert read(b"\xff\n" + filler)[1] == [logread.INVALID_UTF8]
    cut = b"a" * (logread.UTF8_SNIFF - 1) + "é".encode() + b"\n"  # a character cut by the sniff is valid
    assert read(cut)[1] == []
    assert logread.valid_utf8("naïve".encode()) and not logread.valid_utf8(b"na\xefve")
