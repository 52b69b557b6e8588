"""A DataLoader worker dies of SIGBUS, as from a bus error on a full /dev/shm."""

from __future__ import annotations

import os
import signal

import torch
from torch.utils.data import DataLoader, Dataset

EXPECT = "dataloader-shm-bus-error"


class Dying(Dataset[torch.Tensor]):
    def __len__(self) -> int:
        return 4

    def __getitem__(self, index: int) -> torch.Tensor:
        os.kill(os.getpid(), signal.SIGBUS)
        return torch.zeros(1)


if __name__ == "__main__":
    for _ in DataLoader(Dying(), num_workers=1):
        pass
