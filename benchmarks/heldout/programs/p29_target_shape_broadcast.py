# heldout: expect=GD503 line=29 alt_lines=- static=yes
# A custom Dataset returns scalar targets; the model outputs (N, 1); MSELoss broadcasts to (N, N).
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(0)


class HousingLike(Dataset):
    def __init__(self, n=300):
        self.x = torch.randn(n, 7)
        self.y = self.x @ torch.randn(7) + 0.1 * torch.randn(n)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, idx):
        return self.x[idx], self.y[idx]


def train(model, loader, optimizer, epochs=5):
    criterion = nn.MSELoss()
    for epoch in range(epochs):
        total = 0.0
        for xb, yb in loader:
            optimizer.zero_grad()
            pred = model(xb)
            loss = criterion(pred, yb)
            loss.backward()
            optimizer.step()
            total += loss.item()
        print(epoch, total / len(loader))


model = nn.Sequential(nn.Linear(7, 32), nn.ReLU(), nn.Linear(32, 1))
loader = DataLoader(HousingLike(), batch_size=30, shuffle=True)
train(model, loader, torch.optim.Adam(model.parameters(), lr=1e-2))
