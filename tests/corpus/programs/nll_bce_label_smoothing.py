"""A two-head classifier in the style of the PyTorch MNIST example: log_softmax + NLLLoss for the class,
sigmoid + BCELoss for a binary attribute, CrossEntropyLoss with label smoothing on a third head, and
the model's own predictions turned into probabilities with softmax for the accuracy only."""
import torch
from torch import nn
from torch.nn import functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(20, 64), nn.ReLU())
        self.cls = nn.Linear(64, 5)
        self.attr = nn.Linear(64, 1)
        self.aux = nn.Linear(64, 5)

    def forward(self, x):
        h = self.body(x)
        return F.log_softmax(self.cls(h), dim=1), torch.sigmoid(self.attr(h)), self.aux(h)


centers = torch.randn(5, 20) * 2
labels = torch.randint(0, 5, (256,))
data = TensorDataset(centers[labels] + torch.randn(256, 20), labels, (labels % 2).float().unsqueeze(1))
loader = DataLoader(data, batch_size=32, shuffle=True)
model = Net()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
smooth = nn.CrossEntropyLoss(label_smoothing=0.1)
for epoch in range(3):
    for x, y, a in loader:
        log_probs, attr, aux = model(x)
        loss = nn.NLLLoss()(log_probs, y) + nn.BCELoss()(attr, a) + smooth(aux, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        accuracy = (F.softmax(aux.detach(), dim=1).argmax(1) == y).float().mean().item()
