# Train/validate loop; validation collects predictions for a metric without no_grad (2024).
import torch
import torch.nn as nn

torch.manual_seed(0)

X_tr, X_va = torch.randn(200, 8), torch.randn(80, 8)
w = torch.randn(8, 1)
y_tr, y_va = X_tr @ w, X_va @ w


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 1))

    def forward(self, x):
        return self.layers(x)


def r2_score(pred, target):
    ss_res = ((target - pred) ** 2).sum()
    ss_tot = ((target - target.mean()) ** 2).sum()
    return 1 - ss_res / ss_tot


def validate(model, X, y, bs=20):
    model.eval()
    preds = []
    for i in range(0, len(X), bs):
        preds.append(model(X[i:i + bs]))
    return r2_score(torch.cat(preds), y)


model = Net()
opt = torch.optim.Adam(model.parameters(), lr=5e-3)
loss_fn = nn.MSELoss()
val_history = []
for epoch in range(6):
    model.train()
    for i in range(0, 200, 25):
        loss = loss_fn(model(X_tr[i:i + 25]), y_tr[i:i + 25])
        opt.zero_grad()
        loss.backward()
        opt.step()
    r2 = validate(model, X_va, y_va)
    val_history.append(r2)
    print(f"epoch {epoch} train_loss {loss.item():.4f} val_r2 {r2:.4f}")
