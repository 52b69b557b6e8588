"""Check signatures against the released artifacts that print their messages.

A signature's ``printed_by`` names a package on the package index, the files inside its
release archives that hold the message (Python sources, or compiled libraries whose bytes
hold the C strings), the literal texts to look for, and the versions that must and must
not contain them. Releases are fetched once into a cache outside the repository; the
results go to a committed ledger so that validation and tests stay offline.
"""

from __future__ import annotations

import fnmatch
import json
import tarfile
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from generator.records.errors import Issue
from generator.records.ledger import LEDGER_FILE, issue, ledger_digest, needles
from generator.records.model import Catalog, Signature

CHUNK = 1 << 22

Fetch = Callable[[str, str], Path]


@dataclass(frozen=True)
class Outcome:
    """What one release held for one signature: found, or why it could not tell."""

    version: str
    found: bool | None  # None: the release or the file could not be read
    detail: str = ""


def archive_members(archive: Path, pattern: str) -> Iterator[tuple[str, IO[bytes]]]:
    """Yield (name, stream) of each file of a wheel or sdist whose path matches the glob ``pattern``."""
    return zip_members(archive, pattern) if archive.suffix in (".whl", ".zip") else tar_members(archive, pattern)


def wanted_path(name: str, pattern: str) -> bool:
    """Return True when a member's path, or the path below an sdist's NAME-VERSION/ folder, matches."""
    return fnmatch.fnmatch(name, pattern) or fnmatch.fnmatch(name.split("/", 1)[-1], pattern)


def zip_members(archive: Path, pattern: str) -> Iterator[tuple[str, IO[bytes]]]:
    """Yield the matching files of a zip archive (a wheel, or an old zip sdist)."""
    with zipfile.ZipFile(archive) as zipped:
        for name in zipped.namelist():
            if wanted_path(name, pattern) and not name.endswith("/"):
                with zipped.open(name) as stream:
                    yield name, stream


def tar_members(archive: Path, pattern: str) -> Iterator[tuple[str, IO[bytes]]]:
    """Yield the matching files of a tar sdist."""
    with tarfile.open(archive) as tarred:
        for member in tarred:
            stream = tarred.extractfile(member) if member.isfile() and wanted_path(member.name, pattern) else None
            if stream is not None:
                yield member.name, stream


def stream_contains(stream: IO[bytes], wanted: list[bytes]) -> set[bytes]:
    """Return which of ``wanted`` occur in the stream, read in chunks that overlap."""
    found: set[bytes] = set()
    overlap = max(len(w) for w in wanted) - 1
    tail = b""
    while chunk := stream.read(CHUNK):
        window = tail + chunk
        found.update(w for w in wanted if w not in found and w in window)
        tail = window[-overlap:] if overlap else b""
    return found


def release_outcome(archive: Path, file_pattern: str, texts: tuple[str, ...], version: str) -> Outcome:
    """Return whether every text occurs in the files of one release that match the pattern."""
    wanted = [text.encode("utf-8") for text in texts]
    found: set[bytes] = set()
    names = []
    for name, stream in archive_members(archive, file_pattern):
        names.append(name)
        found |= stream_contains(stream, wanted)
    if not names:
        return Outcome(version, None, f"no file matches {file_pattern!r} in {archive.name}")
    missing = [w.decode("utf-8") for w in wanted if w not in found]
    return Outcome(version, not missing, f"missing {missing[0]!r}" if missing else "")


def verify_signature(sig: Signature, fetch: Fetch, versions: tuple[str, ...] = ()) -> list[Outcome]:
    """Return one outcome per version claimed (present and absent), or per version asked for."""
    assert sig.printed_by is not None
    claimed = sig.printed_by.present + sig.printed_by.absent
    outcomes = []
    for version in versions or claimed:
        try:
            archive = fetch(sig.printed_by.package, version)
        except OSError as exc:
            outcomes.append(Outcome(version, None, f"could not fetch {sig.printed_by.package} {version}: {exc}"))
            continue
        outcomes.append(release_outcome(archive, sig.printed_by.file, needles(sig), version))
    return outcomes


def outcome_issues(catalog: Catalog, sig: Signature, outcomes: list[Outcome]) -> list[Issue]:
    """Return an issue for each release that contradicts the signature's claim."""
    assert sig.printed_by is not None
    entry = catalog.by_id[sig.entry_id]
    base = f"/signatures/{sig.index}/printed_by"
    found = []
    for outcome in outcomes:
        field = "present" if outcome.version in sig.printed_by.present else "absent"
        claims = sig.printed_by.present if field == "present" else sig.printed_by.absent
        pointer = f"{base}/{field}/{claims.index(outcome.version)}" if outcome.version in claims else base
        package = f"{sig.printed_by.package} {outcome.version}"
        if outcome.found is None:
            found.append(issue(entry, pointer, "verify.unreadable", outcome.detail))
        elif field == "present" and not outcome.found:
            found.append(issue(entry, pointer, "verify.absent", f"{package} does not print it: {outcome.detail}"))
        elif field == "absent" and outcome.found and outcome.version in claims:
            found.append(issue(entry, pointer, "verify.present", f"{package} already prints it"))
    return found


def ledger_entry(sig: Signature, outcomes: list[Outcome]) -> dict[str, Any]:
    """Return the ledger's record of one signature's verification."""
    assert sig.printed_by is not None
    return {
        "digest": ledger_digest(sig),
        "package": sig.printed_by.package,
        "file": sig.printed_by.file,
        "texts": list(needles(sig)),
        "results": {o.version: RESULT_WORDS[o.found] for o in outcomes},
    }


RESULT_WORDS = {True: "present", False: "absent", None: "unreadable"}


def ledger_text(entries: dict[str, dict[str, Any]]) -> str:
    """Return the ledger file's text: entries sorted by signature id, one JSON document."""
    data = {"about": f"written by failpedia verify; read offline by validate ({LEDGER_FILE})", "signatures": entries}
    return json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
