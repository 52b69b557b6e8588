"""DDP with find_unused_parameters and one layer run twice under reentrant checkpointing."""

from __future__ import annotations

import torch
from _launch import spawn_gloo
from torch.utils.checkpoint import checkpoint

EXPECT = "ddp-param-ready-twice"


class Shared(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.layer = torch.nn.Linear(4, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = checkpoint(self.layer, x, use_reentrant=True)
        return checkpoint(self.layer, x, use_reentrant=True)


def train(rank: int) -> None:
    model = torch.nn.parallel.DistributedDataParallel(Shared(), find_unused_parameters=True)
    model(torch.ones(2, 4, requires_grad=True)).sum().backward()


if __name__ == "__main__":
    spawn_gloo(train)
