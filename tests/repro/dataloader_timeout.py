"""A DataLoader worker that takes longer than the loader's timeout to produce a batch."""

from __future__ import annotations

import time

import torch
from torch.utils.data import DataLoader, Dataset

EXPECT = "dataloader-timeout"


class Slow(Dataset[torch.Tensor]):
    def __len__(self) -> int:
        return 2

    def __getitem__(self, index: int) -> torch.Tensor:
        time.sleep(10)
        return torch.zeros(1)


if __name__ == "__main__":
    for _ in DataLoader(Slow(), num_workers=1, timeout=2):
        pass
