"""A float32 Linear layer fed a bfloat16 input."""

from __future__ import annotations

import torch

EXPECT = "dtype-mismatch"

if __name__ == "__main__":
    layer = torch.nn.Linear(4, 4)
    layer(torch.randn(2, 4, dtype=torch.bfloat16))
