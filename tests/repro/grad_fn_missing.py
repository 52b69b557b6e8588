"""backward() on a loss computed only from frozen parameters: nothing in the graph requires grad."""

from __future__ import annotations

import torch

EXPECT = "grad-fn-missing"

if __name__ == "__main__":
    model = torch.nn.Linear(4, 1)
    model.requires_grad_(False)
    loss = model(torch.randn(2, 4)).sum()
    loss.backward()
