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
        """Rank 0: every rank's payload that arrives within `wait_s` seconds.

        Two requests to the store when every rank answered (one wait on all the
        keys, one read of all the values); only when some are missing at the
        deadline does rank 0 ask for each key, to learn which arrived.
        """
        ranks = list(range(self.ctx.world_size))
        return self._read([f"rank/{rank}" for rank in ranks], ranks, wait_s)

    def _read(self, names: list[str], ranks: list[int], wait_s: float) -> dict[int, dict]:
        keys = [self._key(name) for name in names]
        if self._wait_keys(keys, time.monotonic() + wait_s):
            present = list(range(len(keys)))
        else:
            present = [i for i, key in enumerate(keys) if self._exists(key)]
        if not present:
            return {}
        values = self.store.multi_get([keys[i] for i in present])
        return {ranks[i]: json.loads(value.decode()) for i, value in zip(present, values)}

    def ask(self, wanted: dict[int, int]) -> None:
        """Rank 0: which ranks should send their per-parameter fingerprints, and of which step (may be none)."""
        self.store.set(self._key("asked"), json.dumps({str(r): step for r, step in wanted.items()}))

    def asked(self, deadline: float) -> dict[int, int] | None:
        """Other ranks: what rank 0 asked of whom, or None if it never said by the deadline."""
        key = self._key("asked")
        if not self._wait(key, deadline):
            return None
        return {int(r): int(step) for r, step in json.loads(self.store.get(key).decode()).items()}

    def send_prints(self, prints: dict[str, int]) -> None:
        self.store.set(self._key(f"prints/{self.ctx.rank}"), json.dumps(prints))

    def fetch_prints(self, ranks: list[int], wait_s: float) -> dict[int, dict[str, int]]:
        """Rank 0: the fingerprints of the ranks it asked, those that answer within `wait_s` seconds."""
        return self._read([f"prints/{r}" for r in ranks], ranks, wait_s)

    def announce(self, verdict: int, present: list[int]) -> None:
        """Rank 0: the exit code for all, and the ranks that answered (the others may be stuck).

        Said as the ranks missing, usually none: every rank reads this, so its size must not grow
        with the number of ranks (a list of 1,000 present ranks, read by each, is 5 MB in all)."""
        missing = sorted(set(range(self.ctx.world_size)) - set(present))
        self.store.set(self._key("verdict"), json.dumps({"code": verdict, "missing": missing}))

    def verdict(self, deadline: float) -> tuple[int, list[int]] | None:
        """Other ranks: the exit code rank 0 chose and who answered, or None if it never said by the deadline."""
        key = self._key("verdict")
        if not self._wait(key, deadline):
            return None
        data = json.loads(self.store.get(key).decode())
        missing = set(data["missing"])
        return int(data["code"]), [r for r in range(self.ctx.world_size) if r not in missing]

    def arrive(self, name: str, ranks: list[int]) -> None:
        """Count this rank in at the barrier `name` among `ranks`: the last to arrive opens it.

        One counter and one gate, so each rank makes at most three requests to
        the store whatever the number of ranks (a wait per peer would be
        world_size requests from every rank, a million at 1,000 ranks).
        """
        if self.ctx.rank in ranks and self.store.add(self._key(f"{name}/count"), 1) >= len(ranks):
            self.store.set(self._key(f"{name}/open"), "1")

    def await_all(self, name: str, wait_s: float) -> bool:
        """Wait until every rank of the barrier arrived, at most `wait_s` seconds (a rank may be gone)."""
        return self._wait(self._key(f"{name}/open"), time.monotonic() + wait_s)

    def _wait(self, key: str, deadline: float) -> bool:
        return self._wait_keys([key], deadline)

    def _wait_keys(self, keys: list[str], deadline: float) -> bool:
        left = max(deadline - time.monotonic(), 0.05)
        try:
            self.store.wait(keys, timedelta(seconds=left))
            return True
        except (RuntimeError, OSError):  # a timeout, or the store is gone (rank 0's launcher ended):
            return False  # torch's store errors (DistStoreError, DistNetworkError) are RuntimeErrors

    def _exists(self, key: str) -> bool:
        try:
            return bool(self.store.check([key]))
        except (RuntimeError, OSError):  # the store is gone, as in _wait_keys
            return False
