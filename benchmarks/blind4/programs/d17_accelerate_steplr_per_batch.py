"""Image-classifier-style training (conv net on random 1x16x16 tensors) in an Accelerate-like loop."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class SmallCNN(nn.Module):
    def __init__(self, n_cls=4):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.AdaptiveAvgPool2d(1))
        self.classifier = nn.Linear(16, n_cls)

    def forward(self, x):
        return self.classifier(self.features(x).flatten(1))


def main(num_epochs=3, lr=0.05):
    torch.manual_seed(0)
    y = torch.randint(0, 4, (512,))
    x = torch.randn(512, 1, 16, 16) + y.view(-1, 1, 1, 1).float() * 0.5
    train_dl = DataLoader(TensorDataset(x, y), batch_size=32, shuffle=True)
    model = SmallCNN()
    optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9, nesterov=True)
    lr_scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.1)
    for epoch in range(num_epochs):
        model.train()
        for step, (inputs, targets) in enumerate(train_dl):
            outputs = model(inputs)
            loss = F.cross_entropy(outputs, targets)
            loss.backward()
            optimizer.step()
            lr_scheduler.step()
            optimizer.zero_grad()
        print(f"epoch {epoch} lr {lr_scheduler.get_last_lr()[0]:.2e} loss {loss.item():.3f}")


if __name__ == "__main__":
    main()
