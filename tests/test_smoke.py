def test_unused_branch_reported_with_backward_line(graddoctor_cli):
    ran = graddoctor_cli(
        "run",
        "train.py",
        script="""
        import torch
        from torch import nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.encoder = nn.Linear(8, 16)
                self.aux_head = nn.Linear(16, 2)
                self.head = nn.Linear(16, 2)

            def forward(self, x):
                return self.head(self.encoder(x))

        model = Net()
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        for _ in range(3):
            loss = model(torch.randn(4, 8)).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        """,
    )
    assert ran.returncode == 1, ran.stderr
    found = ran.finding("GD104")
    assert found["subjects"] == ["aux_head.weight", "aux_head.bias"]
    assert (found["file"], found["line"]) == ("train.py", 20)
