"""GD309: a returns regressor trained under float16 autocast whose GradScaler a config typo disabled.

Built from a common mixed-precision report: "with fp16 my model stops improving and many gradients
are exactly zero; bf16 works". The config says "float16" where the code tests for "fp16", so the
scaler is created with enabled=False and the small gradients of a model fitting daily returns
(targets near 1e-3, and an output layer initialised at that scale, as a returns model often is)
underflow in float16's backward from the first steps.
"""
# allow: GD306
import torch
from torch import nn

config = {"precision": "float16", "lr": 1e-3, "batch_size": 128}

torch.manual_seed(0)
features = torch.randn(1024, 24)
returns = 1e-3 * torch.tanh(features[:, :4].sum(1, keepdim=True))
loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(features, returns),
                                     batch_size=config["batch_size"], shuffle=True)

model = nn.Sequential(nn.Linear(24, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(),
                      nn.Linear(128, 128), nn.ReLU(), nn.Linear(128, 1))
nn.init.normal_(model[-1].weight, std=2e-3)  # predictions start at the scale of daily returns
nn.init.zeros_(model[-1].bias)
optimizer = torch.optim.Adam(model.parameters(), lr=config["lr"])
scaler = torch.amp.GradScaler("cpu", enabled=config["precision"] == "fp16")  # "float16" != "fp16": disabled
for epoch in range(3):
    for x, y in loader:
        with torch.autocast("cpu", dtype=torch.float16):
            loss = nn.functional.mse_loss(model(x), y)
        optimizer.zero_grad()
        scaler.scale(loss).backward()  # expect: GD309
        scaler.step(optimizer)
        scaler.update()
    print(f"epoch {epoch}: loss {loss.item():.2e}")
