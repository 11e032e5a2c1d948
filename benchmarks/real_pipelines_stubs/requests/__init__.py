"""A stand-in for requests, for benchmarks/real_pipelines.py only: no network.

`get(url)` serves a local file named for that URL in GD_BENCH_URLS
("URL=PATH" entries separated by ";"), and fails for any other URL.
"""

from __future__ import annotations

import io
import os
from typing import Any

__version__ = "0.0.0+graddoctor-bench-stub"


class ConnectionError(OSError):
    pass


class Response:
    def __init__(self, url: str, data: bytes) -> None:
        self.url, self.content, self.status_code = url, data, 200
        self.raw = io.BytesIO(data)

    def __enter__(self) -> "Response":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.raw.close()

    def raise_for_status(self) -> None:
        return None

    def iter_content(self, chunk_size: int = 8192):
        for i in range(0, len(self.content), chunk_size):
            yield self.content[i:i + chunk_size]


def get(url: str, **_: Any) -> Response:
    for entry in filter(None, os.environ.get("GD_BENCH_URLS", "").split(";")):
        key, _, path = entry.partition("=")
        if key == url:
            with open(path, "rb") as f:
                return Response(url, f.read())
    raise ConnectionError(f"no network in the benchmark, and no local stand-in for {url}")
