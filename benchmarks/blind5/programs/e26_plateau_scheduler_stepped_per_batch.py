"""Regression MLP with ReduceLROnPlateau; the learning rate collapses within the first epoch."""
import torch
import torch.nn as nn

torch.manual_seed(0)


def build_model(din=10):
    return nn.Sequential(nn.Linear(din, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 1))


def make_loaders(n=1200, din=10):
    x = torch.randn(n, din)
    y = (x[:, :2].prod(1) + torch.sin(x[:, 2])).unsqueeze(1)
    train = torch.utils.data.TensorDataset(x[:1000], y[:1000])
    val = torch.utils.data.TensorDataset(x[1000:], y[1000:])
    return (torch.utils.data.DataLoader(train, batch_size=20, shuffle=True),
            torch.utils.data.DataLoader(val, batch_size=100))


def validate(model, loader, criterion):
    model.eval()
    with torch.no_grad():
        losses = [criterion(model(xb), yb).item() for xb, yb in loader]
    model.train()
    return sum(losses) / len(losses)


def main():
    train_loader, val_loader = make_loaders()
    model = build_model()
    criterion = nn.MSELoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, mode="min", factor=0.5, patience=3)
    for epoch in range(3):
        for xb, yb in train_loader:
            optimizer.zero_grad()
            loss = criterion(model(xb), yb)
            loss.backward()
            optimizer.step()
            scheduler.step(loss.item())
        val = validate(model, val_loader, criterion)
        print(f"epoch {epoch} val {val:.4f} lr {optimizer.param_groups[0]['lr']:.2e}")


if __name__ == "__main__":
    main()
