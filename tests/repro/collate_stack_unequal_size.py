"""The default collate function stacks samples of different lengths."""

from __future__ import annotations

import torch
from torch.utils.data import DataLoader

EXPECT = "collate-stack-unequal-size"

if __name__ == "__main__":
    samples = [torch.zeros(5), torch.zeros(7)]
    for _ in DataLoader(samples, batch_size=2):
        pass
