"""How ranks hand their results to rank 0 at the end of a run, and get the verdict back.

The user's process group cannot carry this: scripts destroy it before they
end, or crash with it in an unknown state. Instead every rank talks to a
key-value store that outlives the script:

- under torchrun, the elastic agent's own TCPStore (TORCHELASTIC_USE_AGENT_STORE,
  at MASTER_ADDR:MASTER_PORT), which lives as long as the launch and works
  across nodes;
- otherwise a FileStore in the temp directory, named after the run, which
  works for ranks on one machine.

Keys are prefixed with the run id and restart count, so restarts and other
tools sharing the store do not collide. Rank 0 waits for the others with a
timeout and reports ranks that never answered instead of hanging.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import time
from datetime import timedelta

from graddoctor.distributed.context import DistContext

PREFIX = "graddoctor"


class Channel:
    def __init__(self, ctx: DistContext, timeout_s: float) -> None:
        import torch.distributed as dist

        self.ctx = ctx
        self.timeout = timedelta(seconds=timeout_s)
        self.prefix = f"{PREFIX}/{ctx.run_key}/"
        if ctx.agent_store is not None:
            host, port = ctx.agent_store
            self.store = dist.TCPStore(host, port, is_master=False, timeout=self.timeout, wait_for_workers=False)
        else:
            digest = hashlib.sha1(ctx.run_key.encode()).hexdigest()[:16]
            path = os.path.join(tempfile.gettempdir(), f"graddoctor-{digest}.store")
            self.store = dist.FileStore(path, ctx.world_size)
            self.store.set_timeout(self.timeout)

    def _key(self, name: str) -> str:
        return self.prefix + name

    def publish(self, payload: dict) -> None:
        self.store.set(self._key(f"rank/{self.ctx.rank}"), json.dumps(payload))

    def collect(self, wait_s: float) -> dict[int, dict]:
        """Rank 0: every rank's payload that arrives within `wait_s` seconds."""
        deadline = time.monotonic() + wait_s
        out: dict[int, dict] = {}
        for rank in range(self.ctx.world_size):
            key = self._key(f"rank/{rank}")
            if self._wait(key, deadline):
                out[rank] = json.loads(self.store.get(key).decode())
        return out

    def announce(self, verdict: int, present: list[int]) -> None:
        """Rank 0: the exit code for all, and the ranks that answered (the others may be stuck)."""
        self.store.set(self._key("verdict"), json.dumps({"code": verdict, "present": present}))

    def verdict(self, wait_s: float) -> tuple[int, list[int]] | None:
        """Other ranks: the exit code rank 0 chose and who answered, or None if it never said."""
        key = self._key("verdict")
        if not self._wait(key, time.monotonic() + wait_s):
            return None
        data = json.loads(self.store.get(key).decode())
        return int(data["code"]), list(data["present"])

    def arrive(self, name: str) -> None:
        self.store.set(self._key(f"{name}/{self.ctx.rank}"), "1")

    def await_all(self, name: str, ranks: list[int], wait_s: float) -> None:
        """A barrier on `name` among `ranks` that gives up after `wait_s` (a rank may be gone)."""
        deadline = time.monotonic() + wait_s
        for rank in ranks:
            self._wait(self._key(f"{name}/{rank}"), deadline)

    def _wait(self, key: str, deadline: float) -> bool:
        left = max(deadline - time.monotonic(), 0.05)
        try:
            self.store.wait([key], timedelta(seconds=left))
            return True
        except Exception:  # a timeout, or the store is gone (rank 0's launcher ended)
            return False
