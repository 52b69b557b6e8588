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


Wants = Callable[[str], bool]


def archive_members(archive: Path, wants: Wants) -> Iterator[tuple[str, IO[bytes]]]:
    """Yield (name, stream) of each file of a wheel or sdist whose path ``wants`` accepts."""
    return zip_members(archive, wants) if archive.suffix in (".whl", ".zip") else tar_members(archive, wants)


def wanted_path(name: str, pattern: str) -> bool:
    """Return True when a member's path, or the path below an sdist's NAME-VERSION/ folder, matches."""
    return fnmatch.fnmatch(name, pattern) or fnmatch.fnmatch(name.split("/", 1)[-1], pattern)


def zip_members(archive: Path, wants: Wants) -> Iterator[tuple[str, IO[bytes]]]:
    """Yield the wanted files of a zip archive (a wheel, or an old zip sdist)."""
    with zipfile.ZipFile(archive) as zipped:
        for name in zipped.namelist():
            if not name.endswith("/") and wants(name):
                with zipped.open(name) as stream:
                    yield name, stream


def tar_members(archive: Path, wants: Wants) -> Iterator[tuple[str, IO[bytes]]]:
    """Yield the wanted files of a tar sdist."""
    with tarfile.open(archive) as tarred:
        for member in tarred:
            stream = tarred.extractfile(member) if member.isfile() and wants(member.name) else None
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


@dataclass(frozen=True)
class Claim:
    """What one signature asks of a release: the files to read and the texts they must hold."""

    key: str
    file_pattern: str
    texts: tuple[str, ...]


def read_release(archive: Path, claims: list[Claim], version: str) -> dict[str, Outcome]:
    """Return each claim's outcome in one release, reading the archive once for all of them."""
    found: dict[str, set[bytes]] = {claim.key: set() for claim in claims}
    seen: set[str] = set()

    def wants(name: str) -> bool:
        return any(wanted_path(name, claim.file_pattern) for claim in claims)

    for name, stream in archive_members(archive, wants):
        wanting = [claim for claim in claims if wanted_path(name, claim.file_pattern)]
        seen.update(claim.key for claim in wanting)
        hits = stream_contains(stream, sorted({text.encode("utf-8") for claim in wanting for text in claim.texts}))
        for claim in wanting:
            found[claim.key] |= hits
    return {claim.key: claim_outcome(claim, archive, version, found[claim.key], claim.key in seen) for claim in claims}


def claim_outcome(claim: Claim, archive: Path, version: str, found: set[bytes], seen: bool) -> Outcome:
    """Return one claim's outcome from the texts found in the files it names."""
    if not seen:
        return Outcome(version, None, f"no file matches {claim.file_pattern!r} in {archive.name}")
    missing = [text for text in claim.texts if text.encode("utf-8") not in found]
    return Outcome(version, not missing, f"missing {missing[0]!r}" if missing else "")


def release_outcome(archive: Path, file_pattern: str, texts: tuple[str, ...], version: str) -> Outcome:
    """Return whether every text occurs in the files of one release that match the pattern."""
    return read_release(archive, [Claim("", file_pattern, texts)], version)[""]


def signature_claim(sig: Signature) -> Claim:
    """Return what a signature with printed_by asks of its releases."""
    assert sig.printed_by is not None
    return Claim(sig.id, sig.printed_by.file, needles(sig))


def releases_wanted(sigs: list[Signature], versions: tuple[str, ...]) -> dict[tuple[str, str], list[Signature]]:
    """Return, per (package, version), the signatures to check in it: their claims, or ``versions``."""
    wanted: dict[tuple[str, str], list[Signature]] = {}
    for sig in sigs:
        assert sig.printed_by is not None
        for version in versions or sig.printed_by.present + sig.printed_by.absent:
            wanted.setdefault((sig.printed_by.package, version), []).append(sig)
    return wanted


def verify_signatures(sigs: list[Signature], fetch: Fetch, versions: tuple[str, ...] = ()) -> dict[str, list[Outcome]]:
    """Return each signature's outcomes, one per version claimed or asked for; each release is read once."""
    outcomes: dict[str, list[Outcome]] = {sig.id: [] for sig in sigs}
    for (package, version), group in releases_wanted(sigs, versions).items():
        try:
            archive = fetch(package, version)
        except OSError as exc:
            for sig in group:
                outcomes[sig.id].append(Outcome(version, None, f"could not fetch {package} {version}: {exc}"))
            continue
        results = read_release(archive, [signature_claim(sig) for sig in group], version)
        for sig in group:
            outcomes[sig.id].append(results[sig.id])
    return outcomes


def verify_signature(sig: Signature, fetch: Fetch, versions: tuple[str, ...] = ()) -> list[Outcome]:
    """Return one outcome per version claimed (present and absent), or per version asked for."""
    return verify_signatures([sig], fetch, versions)[sig.id]


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
