"""Facts a log states about its environment (library and driver versions), scanned with the signatures.

They are not failures: the matcher finds their lines in the same pass as the signatures, and
the diagnosis reads them to decide between a record's causes ("NCCL 2.25.1 >= 2.13").
"""

from __future__ import annotations

import re

from generator.records.model import Signature

FACT_PREFIX = "fact."
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


def fact_signatures() -> tuple[Signature, ...]:
    """Return one pseudo-signature per fact (entry_id "", strength "fact") for the matcher."""
    patterns = {**FACT_PATTERNS, **PROGRESS_PATTERNS}
    return tuple(
        Signature(
            id=f"{FACT_PREFIX}{name}",
            entry_id="",
            pattern=pattern,
            ignore_case=False,
            description=f"the {name} a log states",
            strength="fact",
            match=(),
            no_match=(),
            index=-1,
        )
        for name, pattern in patterns.items()
    )


def fact_value(signature_id: str, text: str) -> tuple[str, str] | None:
    """Return (fact name, version) stated by a line a fact signature matched, or None."""
    name = signature_id.removeprefix(FACT_PREFIX)
    found = re.search(FACT_PATTERNS[name], text) if name in FACT_PATTERNS else None
    return (name, found.group(1)) if found else None
