"""An out-of-range index in a CUDA gather kernel trips a device-side assert."""

from __future__ import annotations

import torch

EXPECT = "cuda-device-side-assert"

if __name__ == "__main__":
    table = torch.zeros(4, device="cuda")
    print(table[torch.tensor([7], device="cuda")].sum().item())
