# GRU demand forecaster with dropout between layers; after training, the
# forecast for the next week is produced without switching to eval mode.
import torch
import torch.nn as nn


class DemandGRU(nn.Module):
    def __init__(self, n_features=4, hidden=32):
        super().__init__()
        self.gru = nn.GRU(n_features, hidden, num_layers=2, dropout=0.3, batch_first=True)
        self.drop = nn.Dropout(0.3)
        self.out = nn.Linear(hidden, 7)

    def forward(self, x):
        y, _ = self.gru(x)
        return self.out(self.drop(y[:, -1]))


def train(model, X, Y, epochs=5):
    opt = torch.optim.Adam(model.parameters(), lr=2e-3)
    model.train()
    for epoch in range(epochs):
        for i in range(0, len(X), 32):
            loss = nn.functional.mse_loss(model(X[i:i + 32]), Y[i:i + 32])
            opt.zero_grad()
            loss.backward()
            opt.step()
    return model


X = torch.randn(256, 28, 4)
Y = X[:, -7:, 0] + 0.1 * torch.randn(256, 7)
model = train(DemandGRU(), X, Y)

last_month = torch.randn(1, 28, 4)
forecast = model(last_month).detach()
print("next week:", [round(v, 2) for v in forecast[0].tolist()])
