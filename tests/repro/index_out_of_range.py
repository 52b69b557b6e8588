"""An Embedding looked up with a token id equal to its vocabulary size."""

from __future__ import annotations

import torch

EXPECT = "index-out-of-range"

if __name__ == "__main__":
    embedding = torch.nn.Embedding(100, 8)
    embedding(torch.tensor([[1, 2, 100]]))
