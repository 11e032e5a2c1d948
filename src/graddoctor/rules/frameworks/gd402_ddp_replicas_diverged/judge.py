"""GD402 on rank 0: the first sampled step where a replica's parameters differ from rank 0's.

Each rank keeps, per sampled step, an exact fingerprint of every DDP parameter
(`ddp.py`), but sends rank 0 only one digest per sample: 8 bytes for the whole
model, whatever its size. Rank 0 compares digests; only when a rank's digest
differs does it ask that rank (a few of them at most) for the per-parameter
fingerprints of that step, to name the parameters. So what rank 0 receives
grows with ranks times samples, not with ranks times parameters.
"""

from __future__ import annotations

import hashlib
import json
from typing import Callable

from graddoctor.finding import Finding, Related
from graddoctor.graph.phrases import name_list, plural
from graddoctor.rules import make

# How many of the differing ranks rank 0 asks for their per-parameter fingerprints.
ASK_AT_MOST = 3


def digest(prints: dict[str, int]) -> str:
    """One exact summary of a sample: equal fingerprints give equal digests; a difference, a different one
    (64 bits: a collision is a 1 in 2^64 chance).

    Of the values in parameter order, not of the names: DDP holds the same parameters in the same
    order on every rank, while the names graddoctor gives them come from each rank's own script
    variables, which may differ without the replicas differing."""
    return hashlib.blake2b(json.dumps(list(prints.values())).encode(), digest_size=8).hexdigest()


def compact(sample: dict) -> dict:
    """What a rank sends of a sample: the digest in place of the per-parameter fingerprints."""
    out = {k: v for k, v in sample.items() if k != "prints"}
    out["digest"] = digest(sample["prints"])
    return out


def _digest_of(sample: dict) -> str:
    return sample["digest"] if "digest" in sample else digest(sample["prints"])


def first_divergence(samples: dict[int, list[dict]]) -> tuple[int, list[int]] | None:
    """The first sampled step (in rank 0's samples) where some rank's digest differs, and those ranks."""
    if 0 not in samples or len(samples) < 2:
        return None
    by_step = {r: {s["step"]: s for s in rank_samples} for r, rank_samples in samples.items()}
    for step in sorted(by_step[0]):
        base = _digest_of(by_step[0][step])
        ranks = [r for r in sorted(by_step) if r != 0 and step in by_step[r] and _digest_of(by_step[r][step]) != base]
        if ranks:
            return step, ranks
    return None


def replicas_diverged(samples: dict[int, list[dict]],
                      fetch: Callable[[int, int], dict[str, int] | None] | None = None) -> Finding | None:
    """GD402 at the first sampled step where some rank's parameters differ from rank 0's.

    `samples` holds each rank's samples, with "prints" (per parameter) or only their "digest"; rank 0's
    must have its prints. `fetch(rank, step)` gives another rank's prints when it sent only the digest.
    """
    found = first_divergence(samples)
    if found is None:
        return None
    step, ranks = found
    base = next(s for s in samples[0] if s["step"] == step)
    names: list[str] = []
    for rank in ranks[:ASK_AT_MOST]:
        other = next(s for s in samples[rank] if s["step"] == step)
        prints = other.get("prints") or (fetch(rank, step) if fetch else None) or {}
        names += [n for n, v in base["prints"].items() if n in prints and prints[n] != v and n not in names]
    what = (
        f"{name_list(names)} ({plural(len(names), 'parameter')}) {'differs' if len(names) == 1 else 'differ'}"
        if names else "the parameters differ"
    )
    message = (f"After optimizer step {step}, {what} between rank 0 and {ranks_phrase(ranks)}: the replicas "
               "are no longer the same model, so each rank trains its own copy on averaged gradients.")
    evidence = {"step": step, "ranks": list(ranks), "parameters": len(names)}
    cause = _cause(samples, [0, *ranks], step)
    if cause is None:
        # The line that made them differ is not known: the step is where it shows; say what to look for.
        return make("GD402", message + " Look above this step for the model called without its DDP wrapper "
                    "(`model.module(x)` while training), parameters changed on one rank only, or a dtype or device "
                    "conversion of the model after it was wrapped.",
                    subjects=names, step=step, file=base.get("file"), line=base.get("line"), evidence=evidence)
    return make(
        "GD402",
        message + " Here the wrapped model is called directly, not through DistributedDataParallel: its gradients "
        "skip DDP's all-reduce, so each rank applies its own.",
        hint="Call the DDP wrapper (`ddp_model(x)`), not `ddp_model.module(x)`, in every training forward.",
        subjects=names, step=step, file=cause["file"], line=cause["line"], evidence={**evidence, "cause": cause["kind"]},
        related=[Related(base.get("file"), base.get("line"), f"the replicas differ after this step (step {step})")],
    )


def _cause(samples: dict[int, list[dict]], ranks: list[int], step: int) -> dict | None:
    """The first recorded cause (a line that made the replicas differ) in a sample up to `step`."""
    for rank in ranks:
        for sample in samples.get(rank, []):
            if sample["step"] <= step and sample.get("cause"):
                return sample["cause"]
    return None


def ranks_phrase(ranks: list[int]) -> str:
    """"rank 1", "ranks 1 and 3", "ranks 1, 2, 3 and 4 more"."""
    return f"rank {ranks[0]}" if len(ranks) == 1 else "ranks " + name_list([str(r) for r in ranks])
