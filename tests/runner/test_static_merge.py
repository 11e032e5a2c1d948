"""`run` never says less than `lint` about the files it executed (SPEC section 5).

Real scripts through the real CLI: what `graddoctor lint` reports on the script
and on the user's modules it imports appears in `run`'s report, marked
`"source": "static"` where the run did not report it itself, and once only.
"""

from __future__ import annotations

import textwrap


def line_of(path, needle: str) -> int:
    return next(n for n, text in enumerate(path.read_text().splitlines(), 1) if needle in text)

# The bug sits in a helper this run never calls: only the source shows it. (When the run
# executes such a rewrap it reports GD101 itself, see tests/provenance/test_number_losses.py.)
ITEM_THEN_REWRAP = """
    import torch
    from torch import nn

    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 1))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    x_all, y_all = torch.randn(128, 10), torch.randn(128, 1)


    def finetune_step(x, y):
        loss_value = nn.functional.mse_loss(model(x), y).item(){noqa}
        loss = torch.tensor(loss_value, requires_grad=True)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


    for epoch in range(2):
        for i in range(0, 128, 32):
            x, y = x_all[i:i + 32], y_all[i:i + 32]
            loss = nn.functional.mse_loss(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(f"epoch {{epoch}} loss {{loss.item():.4f}}")
"""


def test_the_static_cause_is_in_the_run_report_at_the_item_line(graddoctor_cli):
    ran = graddoctor_cli("run", "train.py", script=ITEM_THEN_REWRAP.format(noqa=""))
    assert ran.returncode == 1
    static = [f for f in ran.report["findings"] if f.get("source") == "static"]
    item_line = line_of(graddoctor_cli.path / "train.py", ".item()")
    assert [(f["code"], f["file"], f["line"]) for f in static] == [("GD101", "train.py", item_line)]
    assert "(read in the code)" in ran.stdout
    # the run's own findings carry no source mark
    assert all("source" not in f for f in ran.report["findings"] if f["code"] != "GD101")


def test_noqa_and_the_projects_selection_apply_as_in_lint(graddoctor_cli):
    ran = graddoctor_cli("run", "train.py", script=ITEM_THEN_REWRAP.format(noqa="  # noqa: GD101"))
    assert "GD101" not in ran.codes()
    (graddoctor_cli.path / "pyproject.toml").write_text('[tool.graddoctor]\nignore = ["GD101"]\n')
    ran = graddoctor_cli("run", "train.py", script=ITEM_THEN_REWRAP.format(noqa=""))
    assert "GD101" not in ran.codes()


MISSING_ZERO_GRAD = """
    import torch
    from torch import nn

    torch.manual_seed(0)
    model = nn.Linear(8, 2)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    for step in range(6):
        x, y = torch.randn(16, 8), torch.randint(0, 2, (16,))
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
"""


def test_a_finding_both_see_is_reported_once_as_the_runs(graddoctor_cli):
    ran = graddoctor_cli("run", "train.py", script=MISSING_ZERO_GRAD)
    lint = graddoctor_cli("lint", "train.py", "--format", "json")
    assert "GD201" in lint.stdout  # lint sees it too
    gd201 = [f for f in ran.report["findings"] if f["code"] == "GD201"]
    assert len(gd201) == 1 and "source" not in gd201[0]


def test_the_users_imported_module_is_read_too_and_library_files_are_not(graddoctor_cli):
    path = graddoctor_cli.path
    (path / "metrics.py").write_text(textwrap.dedent("""
        import torch


        def running_total(history, loss):
            history.append(loss)
            return history
    """))
    (path / "model.py").write_text(textwrap.dedent("""
        import torch
        from torch import nn


        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.blocks = [nn.Linear(8, 8) for _ in range(2)]
                self.head = nn.Linear(8, 2)

            def forward(self, x):
                for block in self.blocks:
                    x = torch.relu(block(x))
                return self.head(x)
    """))
    ran = graddoctor_cli("run", "train.py", script="""
        import torch
        from torch import nn
        from model import Net

        torch.manual_seed(0)
        net = Net()
        optimizer = torch.optim.SGD(net.parameters(), lr=0.05)
        for step in range(4):
            x, y = torch.randn(16, 8), torch.randint(0, 2, (16,))
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(net(x), y)
            loss.backward()
            optimizer.step()
    """)
    lint = graddoctor_cli("lint", "model.py", "train.py", "--format", "json")
    assert '"GD105"' in lint.stdout
    gd105 = [f for f in ran.report["findings"] if f["code"] == "GD105"]
    assert [(f["file"], f["line"]) for f in gd105] == [("model.py", line_of(path / "model.py", "self.blocks = ["))]
    # metrics.py was never imported by the run: not read
    assert all(f["file"] != "metrics.py" for f in ran.report["findings"])
    assert all("site-packages" not in (f["file"] or "") for f in ran.report["findings"])


SOFTMAX_LAYER = """
    import torch
    from torch import nn

    torch.manual_seed(0)


    class Classifier(nn.Module):
        def __init__(self):
            super().__init__()
            self.mlp = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 4), nn.Softmax(dim=1))

        def forward(self, x):
            return self.mlp(x)


    centers = torch.randn(4, 10) * 3
    model = Classifier()
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(20):
        y = torch.randint(0, 4, (32,))
        loss = criterion(model(centers[y] + torch.randn(32, 10)), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
"""


def test_one_softmax_layer_is_one_finding_at_the_layer_with_the_runs_evidence(graddoctor_cli):
    ran = graddoctor_cli("run", "train.py", script=SOFTMAX_LAYER)
    path = graddoctor_cli.path / "train.py"
    found = [f for f in ran.report["findings"] if f["code"] == "GD501"]
    assert len(found) == 1, found
    [f] = found
    assert f["line"] == line_of(path, "nn.Softmax(dim=1)") and f.get("source") != "static"
    assert f["evidence"]["row_sum_error"] < 1e-3  # measured by the run: rows that sum to 1
    related = {r["line"] for r in f["related"]}
    assert {line_of(path, "return self.mlp(x)"), line_of(path, "loss = criterion(")} <= related
