"""FSDP wrapping a module whose parameters have different dtypes."""

from __future__ import annotations

import torch
from _launch import spawn_gloo
from torch.distributed.fsdp import FullyShardedDataParallel

EXPECT = "fsdp-flat-param-dtype"


def wrap(rank: int) -> None:
    model = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.Linear(4, 4).half())
    FullyShardedDataParallel(model, device_id=torch.device("cpu"))


if __name__ == "__main__":
    spawn_gloo(wrap, world=1)
