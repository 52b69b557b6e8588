"""verify: check signatures against the released artifacts and keep the ledger."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from generator.cli.common import EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE, load_or_report, print_issues

if TYPE_CHECKING:
    from typing import Any

    from generator.records.model import Signature
    from generator.records.pipeline import Loaded
    from generator.signatures.verify import Outcome


def claimed_signatures(loaded: Loaded, package: str | None) -> list[Signature]:
    """Return the signatures that name where they are printed (of one package when asked)."""
    claims = [(sig, sig.printed_by) for sig in loaded.catalog.signatures if sig.printed_by is not None]
    return [sig for sig, claim in claims if package is None or claim.package == package]


def verify_claims(sigs: list[Signature], versions: tuple[str, ...]) -> dict[str, list[Outcome]]:
    """Check the signatures' releases, each release downloaded and read once; say which on stderr."""
    from generator.signatures.releases import fetch_release
    from generator.signatures.verify import verify_signatures

    def fetch(package: str, version: str) -> Path:
        print(f"  {package} {version} ...", file=sys.stderr, flush=True)
        return fetch_release(package, version)

    return verify_signatures(sigs, fetch, versions)


def new_ledger_entry(sig: Signature, outcomes: list[Outcome], old: dict[str, Any] | None) -> dict[str, Any]:
    """Return a signature's ledger entry; results of releases not checked now are kept while it is unchanged."""
    from generator.signatures.verify import ledger_entry

    entry = ledger_entry(sig, outcomes)
    if old is not None and old.get("digest") == entry["digest"]:
        entry["results"] = {**old.get("results", {}), **entry["results"]}
    return entry


def cmd_verify(args: argparse.Namespace) -> int:
    """Check signatures against the released artifacts and write the ledger (or, offline, read it)."""
    from generator.output import write_atomically
    from generator.records.errors import has_errors
    from generator.records.ledger import LEDGER_FILE, ledger_issues, read_ledger
    from generator.signatures.verify import RESULT_WORDS, ledger_text, outcome_issues

    loaded = load_or_report()
    if loaded is None:
        return EXIT_USAGE
    ledger = read_ledger(Path.cwd())
    sigs = claimed_signatures(loaded, args.package)
    if args.offline:
        issues = ledger_issues(loaded.catalog, ledger)
    else:
        issues = []
        by_id = {sig.id: sig for sig in sigs}
        for sig_id, outcomes in verify_claims(sigs, tuple(args.versions)).items():
            sig = by_id[sig_id]
            ledger[sig_id] = new_ledger_entry(sig, outcomes, ledger.get(sig_id))
            issues.extend(outcome_issues(loaded.catalog, sig, outcomes))
            print(f"{sig_id}: " + " ".join(f"{o.version}={RESULT_WORDS[o.found]}" for o in outcomes), file=sys.stderr)
        write_atomically({Path(LEDGER_FILE): ledger_text(ledger).encode("utf-8")})
    print_issues(sorted(issues), "text")
    print(f"{len(sigs)} signature(s) with printed_by; {len(issues)} problem(s)", file=sys.stderr)
    return EXIT_PROBLEMS if has_errors(issues) else EXIT_OK
