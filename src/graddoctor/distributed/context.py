"""Which rank this process is, from the environment torchrun sets."""

from __future__ import annotations

import os
from dataclasses import dataclass


@dataclass(frozen=True)
class DistContext:
    rank: int
    world_size: int
    run_key: str  # the same on every rank of one launch (and restart)
    agent_store: tuple[str, int] | None  # torchrun's own store, alive for the whole launch

    @property
    def is_main(self) -> bool:
        return self.rank == 0


def from_env(environ: dict[str, str] | None = None) -> DistContext | None:
    """The distributed context, or None when this is not one rank of several."""
    env = os.environ if environ is None else environ
    try:
        rank, world = int(env["RANK"]), int(env["WORLD_SIZE"])
    except (KeyError, ValueError):
        return None
    if world < 2 or not 0 <= rank < world:
        return None
    run_id = env.get("TORCHELASTIC_RUN_ID", "")
    restart = env.get("TORCHELASTIC_RESTART_COUNT", "0")
    master = f"{env.get('MASTER_ADDR', 'localhost')}:{env.get('MASTER_PORT', '')}"
    agent = None
    if env.get("TORCHELASTIC_USE_AGENT_STORE", "").lower() == "true" and env.get("MASTER_PORT", "").isdigit():
        agent = (env.get("MASTER_ADDR", "localhost"), int(env["MASTER_PORT"]))
    return DistContext(rank, world, f"{run_id or master}/{restart}", agent)
