"""clip_grad_norm_ with error_if_nonfinite=True on an infinite gradient."""

from __future__ import annotations

import torch

EXPECT = "nonfinite-grad-norm"

if __name__ == "__main__":
    layer = torch.nn.Linear(2, 1)
    (layer(torch.ones(1, 2)) * float("inf")).sum().backward()
    torch.nn.utils.clip_grad_norm_(layer.parameters(), max_norm=1.0, error_if_nonfinite=True)
