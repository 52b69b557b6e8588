"""torch.compile with a backend that raises while compiling the graph."""

from __future__ import annotations

from typing import Any

import torch

EXPECT = "torch-compile-failure"


def failing_backend(graph: torch.fx.GraphModule, example_inputs: list[Any]) -> Any:
    raise NotImplementedError("reproduction: this backend cannot compile the graph")


if __name__ == "__main__":
    torch.compile(lambda x: x.sin() + 1, backend=failing_backend)(torch.ones(3))
