"""torch.load of a checkpoint file cut short, as by a full disk or an interrupted copy."""

from __future__ import annotations

import tempfile
from pathlib import Path

import torch

EXPECT = "checkpoint-corrupt"

if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "model.pt"
        torch.save({"weight": torch.zeros(256, 256)}, path)
        data = path.read_bytes()
        path.write_bytes(data[: len(data) // 2])
        torch.load(path)
