"""A DataLoader worker dies of SIGKILL, as from the kernel OOM killer's SIGKILL."""

from __future__ import annotations

import os
import signal

import torch
from torch.utils.data import DataLoader, Dataset

EXPECT = "host-oom-kill"


class Dying(Dataset[torch.Tensor]):
    def __len__(self) -> int:
        return 4

    def __getitem__(self, index: int) -> torch.Tensor:
        os.kill(os.getpid(), signal.SIGKILL)
        return torch.zeros(1)


if __name__ == "__main__":
    for _ in DataLoader(Dying(), num_workers=1):
        pass
