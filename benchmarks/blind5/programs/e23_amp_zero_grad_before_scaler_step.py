"""Mixed-precision training loop (GradScaler) for an image classifier on random 3x16x16 data."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
device = "cuda" if torch.cuda.is_available() else "cpu"


class SmallCNN(nn.Module):
    def __init__(self, classes=10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
        )
        self.classifier = nn.Linear(32, classes)

    def forward(self, x):
        return self.classifier(self.features(x).flatten(1))


def train_one_epoch(model, loader, optimizer, scaler, amp_dtype):
    model.train()
    for images, targets in loader:
        images, targets = images.to(device), targets.to(device)
        with torch.autocast(device_type=device, dtype=amp_dtype):
            loss = F.cross_entropy(model(images), targets)
        scaler.scale(loss).backward()
        optimizer.zero_grad(set_to_none=True)
        scaler.step(optimizer)
        scaler.update()
    return loss.item()


def main():
    images = torch.randn(192, 3, 16, 16)
    targets = torch.randint(0, 10, (192,))
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(images, targets), batch_size=32,
                                         shuffle=True)
    model = SmallCNN().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, nesterov=True)
    scaler = torch.amp.GradScaler(device)
    amp_dtype = torch.float16 if device == "cuda" else torch.bfloat16
    for epoch in range(2):
        print(epoch, train_one_epoch(model, loader, optimizer, scaler, amp_dtype))


if __name__ == "__main__":
    main()
