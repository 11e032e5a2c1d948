"""Four learning-rate schedules compared: OneCycleLR and per-iteration cosine per batch, StepLR and plateau per epoch."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
EPOCHS = 3

x = torch.randn(480, 12)
y = (x[:, 0] * x[:, 1] > 0).long()
loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x[:400], y[:400]), batch_size=20, shuffle=True)
val_x, val_y = x[400:], y[400:]


def mlp():
    return nn.Sequential(nn.Linear(12, 64), nn.ReLU(), nn.Linear(64, 2))


def val_loss(model):
    model.eval()
    with torch.no_grad():
        out = F.cross_entropy(model(val_x), val_y).item()
    model.train()
    return out


models = {name: mlp() for name in ("onecycle", "cosine", "step", "plateau")}
opts = {
    "onecycle": torch.optim.SGD(models["onecycle"].parameters(), lr=0.05, momentum=0.9),
    "cosine": torch.optim.Adam(models["cosine"].parameters(), lr=1e-3),
    "step": torch.optim.SGD(models["step"].parameters(), lr=0.05, momentum=0.9),
    "plateau": torch.optim.Adam(models["plateau"].parameters(), lr=1e-3),
}
onecycle = torch.optim.lr_scheduler.OneCycleLR(opts["onecycle"], max_lr=0.1, epochs=EPOCHS,
                                               steps_per_epoch=len(loader))
cosine = torch.optim.lr_scheduler.CosineAnnealingLR(opts["cosine"], T_max=EPOCHS * len(loader))
step_lr = torch.optim.lr_scheduler.StepLR(opts["step"], step_size=2, gamma=0.5)
plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(opts["plateau"], patience=1)

for epoch in range(EPOCHS):
    for xb, yb in loader:
        for name, model in models.items():
            opt = opts[name]
            opt.zero_grad()
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            opt.step()
        onecycle.step()
        cosine.step()
    step_lr.step()
    plateau.step(val_loss(models["plateau"]))
    print(epoch, {name: round(val_loss(m), 4) for name, m in models.items()})
