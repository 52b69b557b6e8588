"""GradScaler.unscale_ on a model whose parameters are float16."""

from __future__ import annotations

import torch

EXPECT = "gradscaler-fp16-params"

if __name__ == "__main__":
    model = torch.nn.Linear(2, 1).half()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cpu")
    scaler.scale(model(torch.ones(1, 2, dtype=torch.float16)).float().sum()).backward()
    scaler.unscale_(optimizer)
