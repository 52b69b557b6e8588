"""Order a finding's causes by what the log shows: conditions a record gives each cause, decided here.

A cause may say `when` (evidence for it) and `unless` (evidence that rules it out). A condition
names a signature or a record seen anywhere in the report, a version the log states
("nccl<2.13", "torch>=2.2,<2.4"), or a pattern one of the finding's own lines matches
("Last error:.*shm"), or a pattern any line of the log matches (`log:`, e.g. a variable's
setting or a path), or a pattern the host of one of the finding's own lines matches (`host:`,
the host of NCCL's "host:pid:tid [dev]" prefix with a space either side, e.g. " [0-9a-f]{12} "
for a Docker container's default hostname).
Version conditions stay undecided when the log states no version.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from generator.patterns.dialect import compile_pattern, signature_matches
from generator.patterns.normalize import line_host
from generator.signatures.facts import FACT_NAMES, condition_id

VERSION_SPEC = re.compile(r"\s*(nccl|torch|cuda|driver)\s*((?:(?:>=|<=|==|<|>)\s*[0-9]+(?:\.[0-9]+)*\s*,?\s*)+)\Z")
BOUND = re.compile(r"(>=|<=|==|<|>)\s*([0-9]+(?:\.[0-9]+)*)")
REASON_TEXT = 160  # characters of a deciding line a reason quotes (the page's core uses the same)
VERDICT_ORDER = {"supported": 0, "possible": 1, "ruled out": 2}


@dataclass(frozen=True)
class Stated:
    """A fact the log states, and where."""

    value: str
    file: str
    line: int


@dataclass
class Seen:
    """What a whole report saw: signatures, records, stated versions and condition lines (the first by time)."""

    signatures: set[str] = field(default_factory=set)
    records: set[str] = field(default_factory=set)
    versions: dict[str, Stated] = field(default_factory=dict)
    lines: dict[str, Stated] = field(default_factory=dict)  # condition id: the first line it matched


@dataclass(frozen=True)
class Judged:
    """One cause of a record, with the verdict the log gives it and why."""

    index: int
    title: str
    verdict: str  # supported, possible or ruled out
    reasons: tuple[str, ...] = ()


def version_tuple(text: str) -> tuple[int, ...]:
    """Return a dotted version as a tuple of numbers for comparison."""
    return tuple(int(part) for part in re.findall(r"[0-9]+", text)[:4])


def in_range(version: str, bounds: str) -> bool:
    """Return True when ``version`` satisfies every bound (">=2.13,<2.20")."""
    have = version_tuple(version)
    checks = {">=": have.__ge__, "<=": have.__le__, "==": have.__eq__, "<": have.__lt__, ">": have.__gt__}
    return all(checks[op](version_tuple(number)) for op, number in BOUND.findall(bounds))


def version_condition(spec: str, seen: Seen) -> tuple[bool | None, str]:
    """Decide "nccl<2.13" against the version the log states, or leave it undecided."""
    parsed = VERSION_SPEC.match(spec)
    if parsed is None:
        return None, ""
    name, bounds = parsed.group(1), parsed.group(2).strip().rstrip(",")
    stated = seen.versions.get(name)
    if stated is None:
        return None, ""
    holds = in_range(stated.value, bounds)
    where = f"{stated.file}:{stated.line}"
    return holds, f"{FACT_NAMES[name]} {stated.value} {'is' if holds else 'is not'} {bounds} ({where})"


def line_condition(pattern: str, lines: Sequence[tuple[str, int, str]]) -> tuple[bool | None, str]:
    """Decide whether one of the finding's lines matches a pattern; say which."""
    compiled = compile_pattern(pattern)
    hit = next(((f, n, t) for f, n, t in lines if signature_matches(compiled, t)), None)
    if hit is None:
        return False, ""
    return True, f"{hit[0]}:{hit[1]}: {hit[2][:REASON_TEXT]}"


def host_condition(pattern: str, lines: Sequence[tuple[str, int, str]]) -> tuple[bool | None, str]:
    """Decide whether the host of one of the finding's lines matches a pattern; say which.

    The pattern sees the host with a space either side (hosts have none), so " name " anchors it.
    """
    compiled = compile_pattern(pattern)
    hosts = ((f, n, line_host(t)) for f, n, t in lines)
    hit = next(((f, n, host) for f, n, host in hosts if host is not None and compiled.search(f" {host} ")), None)
    if hit is None:
        return False, ""
    return True, f"{hit[0]}:{hit[1]}: host {hit[2][:REASON_TEXT]}"


def condition(item: Mapping[str, Any], seen: Seen, lines: Sequence[tuple[str, int, str]]) -> tuple[bool | None, str]:
    """Decide one condition: True, False or None (the log cannot tell), with the deciding evidence."""
    if "signature" in item:
        found = item["signature"] in seen.signatures
        return found, f"signature {item['signature']} matched" if found else ""
    if "record" in item:
        found = item["record"] in seen.records
        return found, f"{item['record']} is in this log too" if found else ""
    if "version" in item:
        return version_condition(item["version"], seen)
    if "log" in item:
        stated = seen.lines.get(condition_id(item["log"]))
        return (True, f"{stated.file}:{stated.line}: {stated.value}") if stated else (False, "")
    if "host" in item:
        return host_condition(item["host"], lines)
    return line_condition(item["line"], lines)


def judge(index: int, cause: Mapping[str, Any], seen: Seen, lines: Sequence[tuple[str, int, str]]) -> Judged:
    """Return one cause's verdict: ruled out by any `unless` that holds, supported by any `when` that holds."""
    against = [condition(item, seen, lines) for item in cause.get("unless", ())]
    ruled_out = [why for holds, why in against if holds]
    if ruled_out:
        return Judged(index, cause["title"], "ruled out", tuple(ruled_out))
    decided = [condition(item, seen, lines) for item in cause.get("when", ())]
    support = [why for holds, why in decided if holds]
    refuted = [why for holds, why in decided if holds is False and why]  # a stated version outside the range
    if support:
        return Judged(index, cause["title"], "supported", tuple(support))
    if refuted and len(refuted) == len(decided):
        return Judged(index, cause["title"], "ruled out", tuple(refuted))
    return Judged(index, cause["title"], "possible")


def judge_causes(
    causes: Sequence[Mapping[str, Any]], seen: Seen, lines: Sequence[tuple[str, int, str]]
) -> list[Judged]:
    """Return a record's causes ordered by the evidence: supported, then possible, then ruled out."""
    judged = [judge(index, cause, seen, lines) for index, cause in enumerate(causes)]
    return sorted(judged, key=lambda j: (VERDICT_ORDER[j.verdict], -len(j.reasons), j.index))


def undecided(judged: Sequence[Judged]) -> bool:
    """Return True when the log tells none of several causes apart."""
    return len(judged) > 1 and all(j.verdict == "possible" for j in judged)
