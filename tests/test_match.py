"""The matcher on small blocks, on both paths: Hyperscan with RE2 confirmation, and RE2 alone."""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.records.pipeline import load_catalog
from generator.signatures import match
from generator.signatures.match import Matcher

ROOT = Path(__file__).resolve().parent.parent
CATALOG = load_catalog([ROOT / "entries"], ROOT).catalog
STUCK = "fp16-loss-scale-overflow-stuck-at-one"
# Hyperscan sees the prefilter (anchors dropped): "1(\.0)?([^0-9.]|)" matches "reducing to 1"
# in front of ".5"; only RE2 on the whole pattern knows that "$" does not follow.
NEAR_MISS = b"[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 1, reducing to 1.5\n"
HIT = b"[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 1, reducing to 1\n"
OOM = b"[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n"


@pytest.fixture(params=["hyperscan", "re2-only"])
def matcher(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Matcher:
    """Return a matcher of every real signature, on the fast path or the slow one."""
    if request.param == "re2-only":
        monkeypatch.setattr(match, "hyperscan", None)
    built = Matcher(CATALOG.signatures)
    assert (built.database is None) == (request.param == "re2-only")
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
