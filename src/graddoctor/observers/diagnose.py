"""`diagnose(loss, model, optimizer)`: a one-shot look at a loss before backward()."""

from __future__ import annotations

import sys
from collections.abc import Iterable

import torch
from torch import nn

from graddoctor.observers.graph_checks import check_loss_value, check_reach
from graddoctor.graph.naming import ModelIndex
from graddoctor.locate import user_location
from graddoctor.report.report import Report
from graddoctor.session.models import label_models, names_in_user_frames
from graddoctor.session.registry import record_for


def diagnose(
    loss: object,
    model: nn.Module | Iterable[nn.Module] | dict[str, nn.Module] | None = None,
    optimizer: torch.optim.Optimizer | Iterable[torch.optim.Optimizer] | None = None,
) -> Report:
    """Walk the autograd graph from `loss` and report what would go wrong in backward().

    Finds a loss that is a Python number (GD101), has no history (GD102/GD110)
    or is not a scalar (GD103) or not finite (GD301); trainable parameters the
    loss cannot reach (GD104); tensors that reach it but are not registered
    parameters (GD105); parameters reached but in no optimizer (GD106); frozen
    parameters in an optimizer (GD210). With a model but no optimizer the model
    is the judge; with neither, only what the loss itself shows is reported.
    Nothing is changed: no backward pass is run.

    >>> import torch, graddoctor
    >>> net = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.Linear(4, 1))
    >>> loss = net[1](torch.randn(2, 4)).mean()      # net[0] is skipped
    >>> report = graddoctor.diagnose(loss, net)
    >>> report.codes
    ['GD104']
    >>> report.findings[0].subjects
    ['net.0.weight', 'net.0.bias']
    """
    where = user_location(sys._getframe(1))
    findings, walked = check_loss_value(loss, where)
    models = _models(model)
    optimizers = record_for(_optimizers(optimizer))
    if models or optimizers:
        index = ModelIndex(models)
        _name_optimizer_params(index, optimizers)
        reached = walked.leaf_ids if walked is not None else set()
        if walked is not None:
            findings.extend(check_reach(index, optimizers, reached, where))
    return Report(command="diagnose", target=None, findings=findings)


def _models(model) -> dict[str, nn.Module]:
    if model is None:
        return {}
    if isinstance(model, dict):
        return dict(model)
    models = [model] if isinstance(model, nn.Module) else list(model)
    # named by the caller's variables (`net.0.weight`), as `run` and `watch()` name them
    held = names_in_user_frames({id(m) for m in models})
    fallback = {id(m): f"model{i}" for i, m in enumerate(models)} if len(models) > 1 else {id(models[0]): "model"}
    return label_models(models, None, {**fallback, **held})


def _optimizers(optimizer) -> list[torch.optim.Optimizer]:
    if optimizer is None:
        return []
    if isinstance(optimizer, torch.optim.Optimizer):
        return [optimizer]
    return list(optimizer)


def _name_optimizer_params(index: ModelIndex, optimizers) -> None:
    """Parameters known only to an optimizer are named by their place in it."""
    for record in optimizers:
        for g, group in enumerate(record.optimizer.param_groups):
            for i, p in enumerate(group["params"]):
                if id(p) not in index.names and id(p) not in index.hidden:
                    index.names[id(p)] = f"{record.label}.param_groups[{g}][{i}]"
                    index.params[id(p)] = p
                    index.module_of[id(p)] = ""
                    index.owner[id(p)] = record.label
