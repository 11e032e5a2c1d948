# heldout: expect=GD503 line=28 alt_lines=- static=yes
# A CSV-like Dataset returning torch.tensor(float target) per row; model output (N, 1).
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(0)


class Rows(Dataset):
    def __init__(self, n=240):
        self.features = torch.randn(n, 5)
        self.targets = (self.features[:, 0] * 2 - self.features[:, 1]).tolist()

    def __len__(self):
        return len(self.targets)

    def __getitem__(self, i):
        return self.features[i], torch.tensor(self.targets[i], dtype=torch.float32)


def fit(model, loader, epochs=4):
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    loss_fn = nn.MSELoss()
    for epoch in range(epochs):
        for features, target in loader:
            optimizer.zero_grad()
            loss = loss_fn(model(features), target)
            loss.backward()
            optimizer.step()
        print(epoch, loss.item())


fit(nn.Sequential(nn.Linear(5, 16), nn.ReLU(), nn.Linear(16, 1)), DataLoader(Rows(), batch_size=24, shuffle=True))
