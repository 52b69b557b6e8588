"""A Dataset whose __getitem__ raises inside a DataLoader worker."""

from __future__ import annotations

import torch
from torch.utils.data import DataLoader, Dataset

EXPECT = "dataloader-worker-exception"


class Broken(Dataset[torch.Tensor]):
    def __len__(self) -> int:
        return 4

    def __getitem__(self, index: int) -> torch.Tensor:
        raise KeyError(f"reproduction: no sample {index}")


if __name__ == "__main__":
    for _ in DataLoader(Broken(), num_workers=1):
        pass
