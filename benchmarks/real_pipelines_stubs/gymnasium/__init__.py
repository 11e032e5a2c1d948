"""A stand-in for gymnasium's CartPole-v1, for benchmarks/real_pipelines.py only.

gymnasium is not installed beside the project's torch. The dynamics are the
classic cart-pole equations (Barto, Sutton and Anderson 1983) as gymnasium
writes them. GD_BENCH_REWARD_THRESHOLD lowers spec.reward_threshold so that
scripts which train "until solved" stop after a few episodes.
"""

from __future__ import annotations

import math
import os
from types import SimpleNamespace
from typing import Any, Optional

import numpy as np

__version__ = "0.0.0+graddoctor-bench-stub"


class CartPoleEnv:
    gravity, masscart, masspole, length, force_mag, tau = 9.8, 1.0, 0.1, 0.5, 10.0, 0.02
    theta_threshold_radians = 12 * 2 * math.pi / 360
    x_threshold = 2.4

    def __init__(self, render_mode: Optional[str] = None, max_episode_steps: int = 500) -> None:
        self.render_mode = render_mode
        self.spec = SimpleNamespace(id="CartPole-v1", max_episode_steps=max_episode_steps,
                                    reward_threshold=float(os.environ.get("GD_BENCH_REWARD_THRESHOLD", "475.0")))
        self.action_space = SimpleNamespace(n=2, sample=lambda: int(self._rng.integers(2)))
        self.observation_space = SimpleNamespace(shape=(4,))
        self._rng = np.random.default_rng()
        self.state: Any = None
        self._steps = 0

    def reset(self, *, seed: Optional[int] = None, options: Any = None):
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self.state = self._rng.uniform(-0.05, 0.05, size=(4,))
        self._steps = 0
        return np.array(self.state, dtype=np.float32), {}

    def step(self, action: int):
        x, x_dot, theta, theta_dot = self.state
        force = self.force_mag if action == 1 else -self.force_mag
        cos, sin = math.cos(theta), math.sin(theta)
        total_mass = self.masspole + self.masscart
        pml = self.masspole * self.length
        temp = (force + pml * theta_dot ** 2 * sin) / total_mass
        thetaacc = (self.gravity * sin - cos * temp) / (
            self.length * (4.0 / 3.0 - self.masspole * cos ** 2 / total_mass))
        xacc = temp - pml * thetaacc * cos / total_mass
        x, x_dot = x + self.tau * x_dot, x_dot + self.tau * xacc
        theta, theta_dot = theta + self.tau * theta_dot, theta_dot + self.tau * thetaacc
        self.state = (x, x_dot, theta, theta_dot)
        self._steps += 1
        terminated = bool(x < -self.x_threshold or x > self.x_threshold
                          or theta < -self.theta_threshold_radians or theta > self.theta_threshold_radians)
        truncated = self._steps >= self.spec.max_episode_steps
        return np.array(self.state, dtype=np.float32), 1.0, terminated, truncated, {}

    def render(self) -> None:
        return None

    def close(self) -> None:
        return None


def make(env_id: str, **kwargs: Any) -> CartPoleEnv:
    if env_id not in ("CartPole-v1", "CartPole-v0"):
        raise ValueError(f"the benchmark's gymnasium stand-in has only CartPole, not {env_id}")
    return CartPoleEnv(**kwargs)
