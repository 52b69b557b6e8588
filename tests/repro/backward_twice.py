"""A second backward() through a graph whose saved tensors the first call freed."""

from __future__ import annotations

import torch

EXPECT = "backward-twice"

if __name__ == "__main__":
    x = torch.randn(3, requires_grad=True)
    loss = (x.exp() * 2).sum()
    loss.backward()
    loss.backward()
