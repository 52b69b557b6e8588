"""A Normal distribution built from a NaN mean, as from a policy network that diverged."""

from __future__ import annotations

import torch

EXPECT = "nan-inf-gradients"

if __name__ == "__main__":
    torch.distributions.Normal(torch.tensor([float("nan")]), torch.tensor([1.0]))
