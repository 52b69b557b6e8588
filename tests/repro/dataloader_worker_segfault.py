"""A DataLoader worker dies of SIGSEGV, as from a segmentation fault in a native decoder."""

from __future__ import annotations

import os
import signal

import torch
from torch.utils.data import DataLoader, Dataset

EXPECT = "dataloader-worker-exception"


class Dying(Dataset[torch.Tensor]):
    def __len__(self) -> int:
        return 4

    def __getitem__(self, index: int) -> torch.Tensor:
        os.kill(os.getpid(), signal.SIGSEGV)
        return torch.zeros(1)


if __name__ == "__main__":
    for _ in DataLoader(Dying(), num_workers=1):
        pass
