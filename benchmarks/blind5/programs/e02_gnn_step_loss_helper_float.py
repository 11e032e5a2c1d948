"""Two-layer GCN on a random graph, node classification with a train mask."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
N, FEAT, CLASSES = 120, 16, 4


def normalized_adjacency(n, p=0.05):
    a = (torch.rand(n, n) < p).float()
    a = ((a + a.t()) > 0).float() + torch.eye(n)
    d = a.sum(1).pow(-0.5)
    return d[:, None] * a * d[None, :]


class GCN(nn.Module):
    def __init__(self, fin, hidden, fout, dropout=0.5):
        super().__init__()
        self.lin1 = nn.Linear(fin, hidden)
        self.lin2 = nn.Linear(hidden, fout)
        self.dropout = dropout

    def forward(self, x, adj):
        h = F.relu(adj @ self.lin1(x))
        h = F.dropout(h, self.dropout, self.training)
        return adj @ self.lin2(h)


def step_loss(model, criterion, data, mask):
    out = model(data["x"], data["adj"])
    return float(criterion(out[mask], data["y"][mask]))


def accuracy(model, data, mask):
    model.eval()
    with torch.no_grad():
        pred = model(data["x"], data["adj"]).argmax(1)
    model.train()
    return (pred[mask] == data["y"][mask]).float().mean().item()


def main():
    data = {
        "x": torch.randn(N, FEAT),
        "adj": normalized_adjacency(N),
        "y": torch.randint(0, CLASSES, (N,)),
    }
    train_mask = torch.rand(N) < 0.6
    model = GCN(FEAT, 32, CLASSES)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01, weight_decay=5e-4)
    for epoch in range(50):
        optimizer.zero_grad()
        loss = step_loss(model, criterion, data, train_mask)
        loss.backward()
        optimizer.step()
        if epoch % 10 == 0:
            print(epoch, loss, accuracy(model, data, ~train_mask))


if __name__ == "__main__":
    main()
