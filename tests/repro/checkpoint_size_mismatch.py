"""load_state_dict of a checkpoint saved from a layer of another width."""

from __future__ import annotations

import torch

EXPECT = "checkpoint-size-mismatch"

if __name__ == "__main__":
    saved = torch.nn.Sequential(torch.nn.Linear(4, 8)).state_dict()
    torch.nn.Sequential(torch.nn.Linear(4, 16)).load_state_dict(saved)
