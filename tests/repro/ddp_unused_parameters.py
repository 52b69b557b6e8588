"""DDP with a sub-module that forward never uses: the second forward raises."""

from __future__ import annotations

import torch
from _launch import spawn_gloo

EXPECT = "ddp-unused-parameters"


class TwoHeads(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.used = torch.nn.Linear(4, 4)
        self.unused = torch.nn.Linear(4, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.used(x)


def train(rank: int) -> None:
    torch.manual_seed(0)
    model = torch.nn.parallel.DistributedDataParallel(TwoHeads())
    for _ in range(2):
        model(torch.ones(2, 4)).sum().backward()


if __name__ == "__main__":
    spawn_gloo(train)
