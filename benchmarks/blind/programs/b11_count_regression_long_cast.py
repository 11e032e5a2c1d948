# Poisson-ish count regression; the model's rate is cast to integer counts before the loss (2025).
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

X = torch.rand(240, 5)
counts = torch.poisson(torch.exp(X @ torch.tensor([1.0, 0.5, -0.3, 0.8, 0.2])))


class RateModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(5, 1)

    def forward(self, x):
        return self.linear(x).squeeze(-1).exp()

    def predict_counts(self, x):
        return self.forward(x).round().long()


model = RateModel()
optimizer = torch.optim.Adam(model.parameters(), lr=0.05)

for epoch in range(10):
    epoch_loss = 0.0
    for i in range(0, 240, 60):
        xb, yb = X[i:i + 60], counts[i:i + 60]
        pred = model.predict_counts(xb)
        loss = F.mse_loss(pred.float(), yb)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        epoch_loss += loss.item()
    print(f"epoch {epoch} mse {epoch_loss / 4:.4f}")
