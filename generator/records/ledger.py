"""The verification ledger: what `failpedia verify` found in the released artifacts, read offline.

`schema/verified.json` holds, per signature, a digest of the claim it checked (pattern, flags,
printed_by) and the result for each release. Validation compares digests, so a signature
edited after its check is reported as stale, and a record may say `status: verified` only
when every signature is checked, found where claimed, and shown by a real line.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from generator.patterns.translate import key_text
from generator.records.errors import Issue
from generator.records.model import Catalog, Entry, Signature

LEDGER_FILE = "schema/verified.json"
MIN_RUN = 6  # shorter literal runs (": ", "at ") say nothing about where a line comes from
REAL_ORIGINS = ("log", "repro")


def needles(sig: Signature) -> tuple[str, ...]:
    """Return the literal texts a release must contain: the declared ones, else the pattern's long runs."""
    if sig.printed_by is not None and sig.printed_by.text:
        return sig.printed_by.text
    return tuple(run for run in key_text(sig.pattern).split(" … ") if len(run) >= MIN_RUN)


def ledger_digest(sig: Signature) -> str:
    """Return the digest of what a ledger entry vouches for: pattern, flags and printed_by."""
    claim = {"pattern": sig.pattern, "ignore_case": sig.ignore_case, "needles": list(needles(sig))}
    if sig.printed_by is not None:
        claim.update(sig.printed_by.as_dict())
    return hashlib.sha256(json.dumps(claim, sort_keys=True).encode("utf-8")).hexdigest()[:16]


def read_ledger(root: Path) -> dict[str, Any]:
    """Return the ledger's per-signature entries ({} when the project has none)."""
    path = root / LEDGER_FILE
    if not path.exists():
        return {}
    data = json.loads(path.read_text(encoding="utf-8"))
    return dict(data.get("signatures", {}))


def confirmed(sig: Signature, entry: dict[str, Any] | None) -> bool:
    """Return True when a fresh ledger entry found the text in every claimed release and in no absent one."""
    if sig.printed_by is None or entry is None or entry.get("digest") != ledger_digest(sig):
        return False
    results = entry.get("results", {})
    present = all(results.get(v) == "present" for v in sig.printed_by.present)
    return present and all(results.get(v) == "absent" for v in sig.printed_by.absent)


def issue(entry: Entry, pointer: str, code: str, message: str, severity: str = "error") -> Issue:
    """Return an Issue at the node ``pointer`` of an entry (or the nearest one above it)."""
    return Issue(entry.location(pointer), pointer, code, message, severity)


def signature_ledger_issues(entry: Entry, sig: Signature, ledger: dict[str, Any]) -> list[Issue]:
    """Return why a signature's ledger entry does not back it: stale, missing or contradicted."""
    base = f"/signatures/{sig.index}"
    if sig.printed_by is None:
        return []
    found = ledger.get(sig.id)
    if found is None:
        return [
            issue(entry, f"{base}/printed_by", "verify.unchecked", "not in the ledger: run failpedia verify", "warning")
        ]
    if found.get("digest") != ledger_digest(sig):
        message = "changed since failpedia verify checked it: run it again"
        return [issue(entry, f"{base}/printed_by", "verify.stale", message, "warning")]
    if not confirmed(sig, found):
        message = f"the ledger contradicts the claimed versions: {found.get('results')}"
        return [issue(entry, f"{base}/printed_by", "verify.failed", message)]
    return []


def status_issues(entry: Entry, ledger: dict[str, Any]) -> list[Issue]:
    """Return why a record marked verified is not: a signature unchecked or with no real example line."""
    if entry.get("status") != "verified":
        return []
    found = []
    for sig in entry.signatures:
        base = f"/signatures/{sig.index}"
        if not confirmed(sig, ledger.get(sig.id)):
            message = f"status is verified but {sig.id!r} has no passing check in {LEDGER_FILE}"
            found.append(issue(entry, "/status", "status.unverified", message))
        if not any(example.origin in REAL_ORIGINS for example in sig.examples):
            message = f"status is verified but {sig.id!r} has no example from a posted log or a reproduction"
            found.append(issue(entry, f"{base}/examples/match", "status.no-real-example", message))
    return found


def ledger_issues(catalog: Catalog, ledger: dict[str, Any]) -> list[Issue]:
    """Return the ledger problems of every signature and every record's status."""
    found = []
    for entry in catalog.entries:
        found.extend(status_issues(entry, ledger))
        for sig in entry.signatures:
            found.extend(signature_ledger_issues(entry, sig, ledger))
    return found


@dataclass(frozen=True)
class Checked:
    """The releases in which verify found a signature's text, and those in which it did not."""

    package: str
    file: str
    present: tuple[str, ...]
    absent: tuple[str, ...]


def version_key(version: str) -> tuple[int, ...]:
    """Return a sort key of a release number (its numeric parts in order)."""
    return tuple(int(part) for part in re.findall(r"\d+", version))


def checked_releases(catalog: Catalog, ledger: dict[str, Any]) -> dict[str, Checked]:
    """Return, per signature whose claim the ledger backs, what it found in each checked release."""
    found = {}
    for sig in catalog.signatures:
        entry = ledger.get(sig.id)
        if sig.printed_by is None or entry is None or not confirmed(sig, entry):
            continue
        results = entry.get("results", {})
        present = sorted((v for v, word in results.items() if word == "present"), key=version_key)
        absent = sorted((v for v, word in results.items() if word == "absent"), key=version_key)
        found[sig.id] = Checked(sig.printed_by.package, sig.printed_by.file, tuple(present), tuple(absent))
    return found
