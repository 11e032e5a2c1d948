"""Modules are named as the user's code holds them, and layer rows without a finding are not red."""

from __future__ import annotations

from pathlib import Path

import pytest

TEMPLATE = """\
import torch
from torch import nn

torch.manual_seed(0)
encoder_layer = nn.TransformerEncoderLayer(d_model=32, nhead=4, dim_feedforward=64, batch_first=True)
encoder = nn.TransformerEncoder(encoder_layer, num_layers=2, enable_nested_tensor=False)
embed, head = nn.Linear(6, 32), nn.Linear(32, 3)
optimizer = torch.optim.AdamW([*embed.parameters(), *encoder.parameters(), *head.parameters()], lr=1e-3)
for step in range(6):
    x, y = torch.randn(16, 5, 6), torch.randint(0, 3, (16,))
    loss = nn.functional.cross_entropy(head(encoder(embed(x)).mean(1)), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
"""


@pytest.mark.slow  # a `graddoctor run` subprocess that trains: ~3 s of CPU
def test_template_layer_is_no_red_row_and_layers_carry_variable_names(graddoctor_cli):
    ran = graddoctor_cli("run", "train.py", script=TEMPLATE)
    assert ran.report["findings"] == [], ran.stdout
    rows = {r["name"]: r for r in ran.report["layers"]}
    assert {"embed", "head", "encoder.layers.0.linear1", "encoder.layers.1.norm2"} <= set(rows)
    assert all(r["has_grad"] for r in rows.values()), [n for n, r in rows.items() if not r["has_grad"]]
    assert not any(n.startswith(("Linear", "TransformerEncoder")) for n in rows)


@pytest.mark.slow  # a `graddoctor run` subprocess that trains: ~3 s of CPU
def test_a_layer_in_the_optimizer_without_gradient_stays_red_with_its_finding(graddoctor_cli):
    script = TEMPLATE.replace("head(encoder(embed(x)).mean(1))", "head(embed(x).mean(1))")
    ran = graddoctor_cli("run", "train.py", script=script)
    rows = {r["name"]: r for r in ran.report["layers"]}
    assert not rows["encoder.layers.0.linear1"]["has_grad"]
    assert "GD104" in ran.codes()


# an encoder built in main() and never handed to the optimizer (also used by tests/fix/test_printed_fixes_apply.py)
ENCODER_IN_MAIN = (Path(__file__).parents[1] / "fix" / "printed" / "gd106_encoder_left_out.py").read_text()


@pytest.mark.slow  # a `graddoctor run` subprocess that trains: ~3 s of CPU
def test_modules_local_to_a_function_are_named_by_their_variables(graddoctor_cli):
    ran = graddoctor_cli("run", "train.py", script=ENCODER_IN_MAIN)
    gd106 = ran.finding("GD106")
    assert gd106["subjects"] == ["encoder.0.weight", "encoder.0.bias"]
    assert "replaced" not in gd106["message"] + gd106["hint"]
    assert "torch.optim.Adam([*head.parameters(), *encoder.parameters()], lr=1e-3)" in gd106["hint"]
    # the encoder gets gradients but is measured by no optimizer: no row rather than a false "no gradient"
    assert [(r["name"], r["has_grad"]) for r in ran.report["layers"]] == [("head", True)]


def test_watch_given_a_list_of_modules_names_them_by_their_variables():
    import torch
    from torch import nn

    from graddoctor import watch

    torch.manual_seed(0)
    encoder = nn.Sequential(nn.Linear(8, 16), nn.ReLU())
    aux = nn.Linear(16, 2)
    optimizer = torch.optim.SGD([*encoder.parameters(), *aux.parameters()], lr=0.1)
    with watch([encoder, aux], optimizer) as w:
        for _ in range(3):
            loss = aux(encoder(torch.randn(4, 8))).pow(2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    assert [r.name for r in w.report().layers] == ["encoder.0", "aux"]
