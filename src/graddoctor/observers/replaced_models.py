"""A model replaced while training: `model = copy.deepcopy(best_model)` on rollback, or
`model = Net()` re-created, while the optimizer still holds the old model's parameters.

Found from what the graph walks already read: a walked backward reaches
`nn.Parameter`s that no known model and no optimizer holds. The session then
looks for models again (the new object is one), and GD106 reports the new
parameters, at the line that rebound the model's name when the script shows
one (an assignment to that name after the optimizer was built).
"""

from __future__ import annotations

import ast
from functools import lru_cache

import torch
from torch import nn

from graddoctor.finding import Finding, Related
from graddoctor.graph.phrases import plural
from graddoctor.locate import Location
from graddoctor.rules import make


class ReplacedModels:
    """Notices parameters that appear out of nowhere in a walked graph."""

    def __init__(self, max_rediscoveries: int = 3) -> None:
        self.max_rediscoveries = max_rediscoveries
        self.rediscoveries = 0
        self.seen_at: Location | None = None  # the backward that first reached a new model
        self.labels: list[str] = []  # the names that held the new model then

    def walked(self, session, leaves: list[torch.Tensor], where: Location) -> None:
        if self.rediscoveries >= self.max_rediscoveries:
            return
        optimizers = session.optimizers()
        if not optimizers:
            return
        known = {pid for r in optimizers for pid in r.param_ids()}
        fresh = [p for p in leaves if isinstance(p, nn.Parameter) and p.requires_grad and id(p) not in known]
        if not fresh:
            return
        owned = {id(p) for m in session.models().values() for p in m.parameters()}
        if all(id(p) in owned for p in fresh):
            return  # parameters of a known model left out of the optimizer: plain GD106
        self.rediscoveries += 1
        session.discovered.discover_models()
        if self.seen_at is None:
            self.seen_at = where
            # Named now, while the script's globals still say which name holds the new model.
            ids = {id(p) for p in fresh}
            self.labels = [label for label, m in session.models().items() if any(id(p) in ids for p in m.parameters())]

    def explain(self, finding: Finding, session) -> Finding:
        """GD106 for a replaced model: said as such, at the line that rebound its name."""
        if self.seen_at is None or finding.code != "GD106":
            return finding
        labels = self.labels
        optimizers = session.optimizers()
        built = optimizers[0].created_at if optimizers else None
        rebound = None
        for label in labels:
            variable = label.split("#")[0]  # `model#2`: the second object the name `model` held
            if built is not None and built.file:
                line = _assignment_after(built.file, variable, built.line or 0)
                if line is not None:
                    rebound = (variable, Location(built.file, line))
                    break
        n = len(finding.subjects)
        name = f"`{rebound[0]}`" if rebound else "the model"
        message = (
            f"{name} is a new object since the optimizer was built (replaced by a copy or re-created): its "
            f"{plural(n, 'parameter')} receive gradients but belong to no optimizer, which still updates the "
            "old model's parameters. Training goes on and this model never changes."
        )
        hint = (
            "Restore weights in place, `model.load_state_dict(best_model.state_dict())`, or build the optimizer "
            "again from the new model's parameters right after replacing it."
        )
        where = rebound[1] if rebound else built
        related = [Related(built.shown()["file"], built.line, "the optimizer, built for the old model")] if rebound and built else []
        fields = where.shown() if where is not None else {}
        evidence = {**finding.evidence, "replaced_model": labels[0] if labels else None}
        return make("GD106", message, hint=hint, subjects=finding.subjects, related=related or None,
                    evidence=evidence, **fields)


def _assignment_after(path: str, name: str, after: int) -> int | None:
    lines = _assignments(path, name)
    later = [n for n in lines if n > after]
    return later[0] if later else None


@lru_cache(maxsize=16)
def _assignments(path: str, name: str) -> tuple[int, ...]:
    try:
        with open(path, encoding="utf-8") as fh:
            tree = ast.parse(fh.read())
    except (OSError, SyntaxError, ValueError):
        return ()
    found = []
    for node in ast.walk(tree):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        if any(isinstance(t, ast.Name) and t.id == name for t in targets):
            found.append(node.lineno)
    return tuple(sorted(found))
