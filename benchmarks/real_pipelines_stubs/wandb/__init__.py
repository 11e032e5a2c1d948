"""A stand-in for `wandb` (Weights & Biases) that logs nothing and needs no account or network.

vit-pytorch's train_vit_decorr.py calls `wandb.init(...)`, sets `wandb.run.name` and
`wandb.log(...)` every step; the benchmark has no wandb installed and no network.
"""

from __future__ import annotations

from typing import Any, Optional


class Run:
    def __init__(self, project: Optional[str] = None, name: Optional[str] = None, config: Any = None) -> None:
        self.project, self.name, self.config = project, name, dict(config or {})

    def log(self, data: dict, step: Optional[int] = None, commit: Optional[bool] = None) -> None:
        pass

    def finish(self, exit_code: Optional[int] = None) -> None:
        pass


run: Optional[Run] = None


def init(project: Optional[str] = None, name: Optional[str] = None, config: Any = None, **_: Any) -> Run:
    global run
    run = Run(project, name, config)
    return run


def log(data: dict, step: Optional[int] = None, commit: Optional[bool] = None) -> None:
    if run is None:
        raise RuntimeError("You must call wandb.init() before wandb.log()")


def finish(exit_code: Optional[int] = None) -> None:
    global run
    run = None
