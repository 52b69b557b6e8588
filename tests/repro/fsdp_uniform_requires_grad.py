"""FSDP (use_orig_params=False) wrapping a module with one frozen and one trainable parameter."""

from __future__ import annotations

import torch
from _launch import spawn_gloo
from torch.distributed.fsdp import FullyShardedDataParallel

EXPECT = "fsdp-uniform-requires-grad"


def wrap(rank: int) -> None:
    model = torch.nn.Linear(4, 4)
    model.bias.requires_grad_(False)
    FullyShardedDataParallel(model, device_id=torch.device("cpu"), use_orig_params=False)


if __name__ == "__main__":
    spawn_gloo(wrap, world=1)
