"""Two NCCL ranks on the same GPU (both use cuda:0)."""

from __future__ import annotations

import sys
from pathlib import Path

import torch
import torch.distributed as dist

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from _launch import free_port

EXPECT = "nccl-duplicate-gpu"


def rank_main(rank: int, port: int) -> None:
    dist.init_process_group("nccl", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=2)
    torch.cuda.set_device(0)
    tensor = torch.ones(4, device="cuda:0")
    dist.all_reduce(tensor)
    torch.cuda.synchronize()
    dist.destroy_process_group()


if __name__ == "__main__":
    torch.multiprocessing.spawn(rank_main, args=(free_port(),), nprocs=2, join=True)
