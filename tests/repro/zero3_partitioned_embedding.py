"""An embedding used while its weight is a ZeRO-3 partition placeholder (an empty tensor), without DeepSpeed itself.

ZeRO-3 replaces each parameter's data with an empty tensor between gathers; code that runs the module outside
the engine's hooks (or GatheredParameters) sees that placeholder. torch's own check then raises.
"""

from __future__ import annotations

import torch

EXPECT = "deepspeed-zero3-partitioned-param-access"

if __name__ == "__main__":
    embedding = torch.nn.Embedding(10, 4)
    embedding.weight.data = torch.empty(0)
    embedding(torch.tensor([1, 2]))
