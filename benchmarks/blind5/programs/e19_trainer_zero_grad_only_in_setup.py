"""Hand-written Trainer with setup/fit/train_step phases for a text classifier (bag of embeddings)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class BagOfWords(nn.Module):
    def __init__(self, vocab=100, d=32, classes=2):
        super().__init__()
        self.emb = nn.EmbeddingBag(vocab, d, mode="mean")
        self.fc = nn.Linear(d, classes)

    def forward(self, ids):
        return self.fc(self.emb(ids))


class Trainer:
    def __init__(self, model, lr=0.05, max_epochs=3):
        self.model = model
        self.lr = lr
        self.max_epochs = max_epochs

    def setup(self):
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=self.lr, momentum=0.9)
        self.optimizer.zero_grad()
        self.model.train()

    def train_step(self, batch):
        ids, labels = batch
        loss = F.cross_entropy(self.model(ids), labels)
        loss.backward()
        self.optimizer.step()
        return loss.item()

    def fit(self, loader):
        self.setup()
        for epoch in range(self.max_epochs):
            losses = [self.train_step(batch) for batch in loader]
            print(f"epoch {epoch}: {sum(losses) / len(losses):.4f}")


def make_loader(n=320, length=12):
    ids = torch.randint(0, 100, (n, length))
    labels = (ids < 20).sum(1).gt(2).long()
    ds = torch.utils.data.TensorDataset(ids, labels)
    return torch.utils.data.DataLoader(ds, batch_size=32, shuffle=True)


Trainer(BagOfWords()).fit(make_loader())
