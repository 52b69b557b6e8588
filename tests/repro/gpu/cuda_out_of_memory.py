"""Allocate more GPU memory than the device has."""

from __future__ import annotations

import torch

EXPECT = "cuda-out-of-memory"

if __name__ == "__main__":
    total = torch.cuda.get_device_properties(0).total_memory
    torch.empty(2 * total, dtype=torch.uint8, device="cuda")
