"""The whole corpus of benchmarks/real_pipelines.py: the first five repositories'
configurations (real_pipelines_configs.py) and those added for issue 29 (real_pipelines_more.py)."""

from __future__ import annotations

from real_pipelines_configs import CONFIGS as FIRST
from real_pipelines_configs import REPOS as FIRST_REPOS
from real_pipelines_more import CONFIGS as MORE
from real_pipelines_more import REPOS as MORE_REPOS

REPOS = {**FIRST_REPOS, **MORE_REPOS}
CONFIGS = FIRST + MORE
