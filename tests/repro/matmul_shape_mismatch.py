"""A Linear layer whose in_features does not match the last dimension of its input."""

from __future__ import annotations

import torch

EXPECT = "matmul-shape-mismatch"

if __name__ == "__main__":
    layer = torch.nn.Linear(512, 10)
    layer(torch.randn(8, 2048))
