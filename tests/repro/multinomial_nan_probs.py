"""Sampling from logits that went NaN: torch.multinomial rejects the probabilities."""

from __future__ import annotations

import torch

EXPECT = "nan-inf-gradients"

if __name__ == "__main__":
    logits = torch.tensor([[1.0, float("nan"), 0.5]])
    torch.multinomial(torch.softmax(logits, dim=-1), num_samples=1)
