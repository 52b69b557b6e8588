"""A CUDA layer applied to a CPU batch."""

from __future__ import annotations

import torch

EXPECT = "tensors-on-different-devices"

if __name__ == "__main__":
    torch.nn.Linear(4, 4).cuda()(torch.ones(2, 4))
