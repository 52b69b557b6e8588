"""Two ranks call different collectives; TORCH_DISTRIBUTED_DEBUG=DETAIL reports the mismatch."""

from __future__ import annotations

import os

os.environ["TORCH_DISTRIBUTED_DEBUG"] = "DETAIL"

import torch
import torch.distributed as dist
from _launch import spawn_gloo

EXPECT = "collective-mismatch-desync"


def step(rank: int) -> None:
    tensor = torch.ones(4)
    if rank == 0:
        dist.all_reduce(tensor)
    else:
        dist.broadcast(tensor, src=0)


if __name__ == "__main__":
    spawn_gloo(step)
