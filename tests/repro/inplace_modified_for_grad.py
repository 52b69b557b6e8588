"""An in-place op overwrites a tensor that sigmoid's backward saved."""

from __future__ import annotations

import torch

EXPECT = "inplace-modified-for-grad"

if __name__ == "__main__":
    x = torch.randn(3, requires_grad=True)
    y = x.sigmoid()
    y.mul_(2)
    y.sum().backward()
