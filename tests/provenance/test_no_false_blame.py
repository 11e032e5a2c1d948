"""SPEC section 5's correct code, run under deep mode: no error, no warning."""

from __future__ import annotations

import pytest

CORRECT = {
    "gan_fake_detach": """
        import torch
        from torch import nn

        torch.manual_seed(0)
        G = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
        D = nn.Sequential(nn.Linear(2, 8), nn.ReLU(), nn.Linear(8, 1))
        opt_g = torch.optim.Adam(G.parameters(), lr=1e-3)
        opt_d = torch.optim.Adam(D.parameters(), lr=1e-3)
        bce = nn.BCEWithLogitsLoss()
        for _ in range(4):
            real = torch.randn(16, 2)
            fake = G(torch.randn(16, 4))
            d_loss = bce(D(real), torch.ones(16, 1)) + bce(D(fake.detach()), torch.zeros(16, 1))
            opt_d.zero_grad()
            d_loss.backward()
            opt_d.step()
            g_loss = bce(D(fake), torch.ones(16, 1))
            opt_g.zero_grad()
            g_loss.backward()
            opt_g.step()
            print(f"d={d_loss.item():.3f} g={g_loss.item():.3f}")
    """,
    "ema_under_no_grad": """
        import copy
        import torch
        from torch import nn

        model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
        ema = copy.deepcopy(model)
        for p in ema.parameters():
            p.requires_grad_(False)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        for _ in range(4):
            loss = model(torch.randn(8, 4)).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            with torch.no_grad():
                for e, p in zip(ema.parameters(), model.parameters()):
                    e.mul_(0.99).add_(p, alpha=0.01)
    """,
    "teacher_under_no_grad": """
        import torch
        from torch import nn
        import torch.nn.functional as F

        teacher = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
        student = nn.Sequential(nn.Linear(4, 3))
        opt = torch.optim.SGD(student.parameters(), lr=0.1)
        for _ in range(4):
            x = torch.randn(8, 4)
            with torch.no_grad():
                target = F.softmax(teacher(x), dim=-1)
            loss = F.kl_div(F.log_softmax(student(x), dim=-1), target, reduction="batchmean")
            opt.zero_grad()
            loss.backward()
            opt.step()
    """,
    "item_for_logging_and_detach_of_data": """
        import torch
        from torch import nn

        model = nn.Linear(4, 1)
        opt = torch.optim.SGD(model.parameters(), lr=0.05)
        history = []
        for _ in range(4):
            x = torch.randn(8, 4).detach()          # never required grad
            loss = (model(x) - 1).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            history.append(loss.item())
            acc = (model(x).argmax(dim=1) == 0).float().mean().item()
    """,
    "frozen_backbone": """
        import torch
        from torch import nn

        backbone = nn.Linear(4, 8)
        backbone.requires_grad_(False)
        head = nn.Linear(8, 1)
        opt = torch.optim.SGD(head.parameters(), lr=0.1)
        for _ in range(3):
            loss = head(torch.relu(backbone(torch.randn(8, 4)))).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
    """,
    "backward_inside_no_grad_on_a_loss_built_outside": """
        import torch
        from torch import nn

        model = nn.Linear(4, 1)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        for _ in range(3):
            loss = model(torch.randn(8, 4)).pow(2).mean()
            opt.zero_grad()
            with torch.no_grad():
                loss.backward()
            opt.step()
    """,
    "eval_loop_under_no_grad_and_inference_mode": """
        import torch
        from torch import nn

        model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        for _ in range(3):
            loss = model(torch.randn(8, 4)).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            model.eval()
            with torch.no_grad():
                val = model(torch.randn(8, 4)).mean().item()
            with torch.inference_mode():
                val = model(torch.randn(8, 4)).mean().item()
            model.train()
    """,
}


@pytest.mark.parametrize("name", sorted(CORRECT))
def test_correct_code_is_silent_under_deep_mode(run_script, name):
    ran = run_script({"train.py": CORRECT[name]})
    assert ran.exception is None, ran.exception
    assert not ran.serious(), [(f.code, f.line, f.message) for f in ran.serious()]
    provenance = next(o for o in ran.session.observers if o.name == "provenance")
    assert provenance.recorder.cuts or name in ("frozen_backbone", "backward_inside_no_grad_on_a_loss_built_outside")
