# Gated feature selector for tabular data; the gate is masked in place after the sigmoid (2025).
import torch
import torch.nn as nn

torch.manual_seed(0)


class GatedSelector(nn.Module):
    def __init__(self, n_features=10, hidden=24):
        super().__init__()
        self.gate_logits = nn.Linear(n_features, n_features)
        self.mlp = nn.Sequential(nn.Linear(n_features, hidden), nn.ReLU(), nn.Linear(hidden, 1))

    def forward(self, x, feature_mask):
        gate = torch.sigmoid(self.gate_logits(x))
        gate *= feature_mask
        return self.mlp(x * gate), gate


X = torch.randn(160, 10)
y = X[:, :3].sum(1, keepdim=True)
feature_mask = torch.ones(10)
feature_mask[7:] = 0.0

model = GatedSelector()
optimizer = torch.optim.Adam(model.parameters(), lr=5e-3)
for epoch in range(5):
    for i in range(0, 160, 32):
        pred, gate = model(X[i:i + 32], feature_mask)
        loss = nn.functional.mse_loss(pred, y[i:i + 32]) + 1e-3 * gate.abs().mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f"epoch {epoch} loss {loss.item():.4f} mean gate {gate.mean().item():.3f}")
