"""Facts a log states about its environment (library and driver versions), scanned with the signatures.

They are not failures: the matcher finds their lines in the same pass as the signatures, and
the diagnosis reads them to decide between a record's causes ("NCCL 2.25.1 >= 2.13"). The
lines that records' `log:` cause conditions name (a variable's setting, a path) are found
the same way, each pattern once as a pseudo-signature.
"""

from __future__ import annotations

import hashlib
import re

from generator.records.model import Catalog, Signature

FACT_PREFIX = "fact."
CONDITION_PREFIX = "cond."
# name -> (portable pattern for the scan, Python regex whose group 1 is the version)
FACT_PATTERNS = {
    "nccl": r"NCCL version:? ?v?([0-9]+\.[0-9]+\.[0-9]+)",
    "torch": r"(?:PyTorch version|[Tt]orch version|torch==|torch-)[: ]*([0-9]+\.[0-9]+(?:\.[0-9]+)?)",
    "cuda": r"(?:CUDA runtime version|CUDA used to build PyTorch|NCCL version [0-9.]+\+cuda):? ?([0-9]+\.[0-9]+)",
    "driver": r"(?:Driver Version|[Dd]river version): ?([0-9]+\.[0-9]+(?:\.[0-9]+)?)",
}
# Watchdog lines that say how far a rank got (diagnosis/progress reads them to find a rank behind).
PROGRESS_PATTERNS = {
    "progress": r"last enqueued (?:NCCL )?work: -?[0-9]+, last completed (?:NCCL )?work: -?[0-9]+",
    "timeout": r"Watchdog caught collective operation timeout: WorkNCCL\(SeqNum=[0-9]+",
}
FACT_NAMES = {"nccl": "NCCL", "torch": "PyTorch", "cuda": "CUDA", "driver": "the NVIDIA driver"}


def pseudo_signature(signature_id: str, pattern: str, description: str) -> Signature:
    """Return a signature of no record (entry_id "", strength "fact"): the matcher finds it, no finding comes of it."""
    return Signature(
        id=signature_id,
        entry_id="",
        pattern=pattern,
        ignore_case=False,
        description=description,
        strength="fact",
        match=(),
        no_match=(),
        index=-1,
    )


def fact_signatures() -> tuple[Signature, ...]:
    """Return one pseudo-signature per fact for the matcher."""
    patterns = {**FACT_PATTERNS, **PROGRESS_PATTERNS}
    return tuple(
        pseudo_signature(f"{FACT_PREFIX}{name}", p, f"the {name} a log states") for name, p in patterns.items()
    )


def condition_id(pattern: str) -> str:
    """Return the id of the pseudo-signature that finds the lines a `log:` cause condition names."""
    return CONDITION_PREFIX + hashlib.sha256(pattern.encode("utf-8")).hexdigest()[:12]


def condition_patterns(catalog: Catalog) -> list[str]:
    """Return every `log:` pattern the records' cause conditions give, each once, sorted."""
    found: set[str] = set()
    for entry in catalog.entries:
        for cause in entry.raw.get("causes", ()):
            conditions = (*cause.get("when", ()), *cause.get("unless", ()))
            found.update(item["log"] for item in conditions if "log" in item)
    return sorted(found)


def diagnosis_signatures(catalog: Catalog) -> tuple[Signature, ...]:
    """Return what a diagnosis scans for: the records' signatures, the facts, the condition lines."""
    conditions = [
        pseudo_signature(condition_id(p), p, "a line a cause condition names") for p in condition_patterns(catalog)
    ]
    return (*catalog.signatures, *fact_signatures(), *conditions)


def fact_value(signature_id: str, text: str) -> tuple[str, str] | None:
    """Return (fact name, version) stated by a line a fact signature matched, or None."""
    name = signature_id.removeprefix(FACT_PREFIX)
    found = re.search(FACT_PATTERNS[name], text) if name in FACT_PATTERNS else None
    return (name, found.group(1)) if found else None
