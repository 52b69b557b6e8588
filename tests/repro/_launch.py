"""Launch helpers for the reproductions: gloo process groups and torchrun, on 127.0.0.1 only."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Callable
from datetime import timedelta


def free_port() -> int:
    """Return a TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _rank_main(rank: int, world: int, port: int, body: Callable[[int], None]) -> None:
    """Join a gloo group as `rank`, run the body, and leave the group."""
    import torch.distributed as dist

    url = f"tcp://127.0.0.1:{port}"
    dist.init_process_group("gloo", init_method=url, rank=rank, world_size=world, timeout=timedelta(seconds=30))
    try:
        body(rank)
    finally:
        dist.destroy_process_group()


def spawn_gloo(body: Callable[[int], None], world: int = 2) -> None:
    """Run `body(rank)` in `world` gloo processes; a rank's exception is raised here."""
    import torch.multiprocessing as mp

    mp.spawn(_rank_main, args=(world, free_port(), body), nprocs=world, join=True)


def under_torchrun() -> bool:
    """Return True inside a worker started by torchrun."""
    return "TORCHELASTIC_RUN_ID" in os.environ


def torchrun_self(script: str, *args: str) -> int:
    """Run `script` under torchrun (one node on 127.0.0.1) and return its exit status."""
    command = [sys.executable, "-m", "torch.distributed.run", *args, script]
    if not any(arg.startswith(("--rdzv", "--nnodes")) for arg in args):
        command[3:3] = ["--standalone", "--nproc_per_node=1"]
    return subprocess.run(command, timeout=120, check=False).returncode


class SelfKillingDataset:
    """A map-style dataset whose __getitem__ kills its own (worker) process with a signal."""

    def __init__(self, signum: int) -> None:
        self.signum = signum

    def __len__(self) -> int:
        return 4

    def __getitem__(self, index: int) -> int:
        os.kill(os.getpid(), self.signum)
        return index


def die_in_worker(signum: int) -> None:
    """Iterate a one-worker DataLoader whose worker dies of `signum`; the loader raises here."""
    from torch.utils.data import DataLoader

    for _ in DataLoader(SelfKillingDataset(signum), num_workers=1):
        pass
