"""Break one line of a correct corpus program the way people do, and the matching code must fire there.

This checks the rules on real, full programs (helpers, classes, several loops),
not only on the small fixtures, and that the quiet corpus is quiet for the
right reason.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from graddoctor.lint import lint_source

CORPUS = Path(__file__).parent / "corpus"

MUTATIONS = [
    ("mnist_example", "        optimizer.zero_grad()\n", "", "GD201", "        optimizer.step()"),
    ("mnist_example", "F.nll_loss(output, target)\n", 'F.nll_loss(output, target, reduction="none")\n', "GD103", "        loss.backward()"),
    ("vae", "        train_loss += loss.item()", "        train_loss += loss", "GD207", "        train_loss += loss"),
    ("gpt_amp_accumulation", "        scaler.unscale_(optimizer)\n", "", "GD209", "        torch.nn.utils.clip_grad_norm_"),
    ("amp_classifier", "        scaler.unscale_(optimizer)\n", "", "GD209", "        grad_norm = "),
    (
        "distillation",
        "            t_logits = teacher(images)\n        s_logits = student(images)",
        "            t_logits = teacher(images)\n            s_logits = student(images)",
        "GD110",
        "        with torch.no_grad():",
    ),
    (
        "frozen_backbone_finetune",
        "        optimizer.step()\n        correct",
        "        optimizer.step()\n        scheduler.step()\n        correct",
        "GD205",
        "        scheduler.step()",
    ),
    ("onecycle_resnet", "            loss.backward()", "            loss.item().backward()", "GD101", "            loss.item().backward()"),
    (
        "char_rnn_tbptt",
        "            nn.utils.clip_grad_norm_(model.parameters(), 5.0)\n            optimizer.step()",
        "            optimizer.step()\n            nn.utils.clip_grad_norm_(model.parameters(), 5.0)",
        "GD206",
        "            nn.utils.clip_grad_norm_",
    ),
    (
        "multitask_losses",
        "nn.ModuleDict({name: nn.Linear(64, n) for name, n in tasks.items()})",
        "{name: nn.Linear(64, n) for name, n in tasks.items()}",
        "GD105",
        "        self.heads = ",
    ),
    (
        "manual_sgd_regression",
        "        with torch.no_grad():\n            w -= lr * w.grad",
        "        w -= lr * w.grad\n        with torch.no_grad():",
        "GD109",
        "        w -= lr * w.grad",
    ),
    (
        "retain_graph_two_losses",
        "    optimizer.zero_grad()\n    loss_a.backward(retain_graph=True)\n    loss_b.backward()\n",
        "    loss_a.backward(retain_graph=True)\n    loss_b.backward()\n    optimizer.zero_grad()\n",
        "GD202",
        "    optimizer.zero_grad()",
    ),
    ("hf_gpt2_accumulation", "            optimizer.step()\n", "", "GD203", "        loss.backward()"),
    ("custom_autograd_function", "loss_fn(model(x), y)", "loss_fn(model(x).detach(), y)", "GD102", "    loss = loss_fn("),
]


@pytest.mark.parametrize("name,old,new,code,at", MUTATIONS, ids=[f"{m[0]}-{m[3]}" for m in MUTATIONS])
def test_mutation_fires(name, old, new, code, at):
    source = (CORPUS / f"{name}.py").read_text()
    assert source.count(old) == 1, f"mutation anchor not unique in {name}: {old!r}"
    broken = source.replace(old, new)
    lines = broken.splitlines()
    expected_line = next(i for i, text in enumerate(lines, 1) if text.startswith(at))
    found = [(f.code, f.line) for f in lint_source(broken, f"{name}.py").findings]
    assert (code, expected_line) in found, f"{code} at line {expected_line} not in {found}"
