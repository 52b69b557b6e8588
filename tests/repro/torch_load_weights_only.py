"""torch.load(weights_only=True), the default since 2.6, of a checkpoint that pickles a custom class."""

from __future__ import annotations

import tempfile
from pathlib import Path

import torch

EXPECT = "torch-load-weights-only"


class TrainState:
    def __init__(self) -> None:
        self.step = 3


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "state.pt"
        torch.save({"state": TrainState()}, path)
        torch.load(path, weights_only=True)
