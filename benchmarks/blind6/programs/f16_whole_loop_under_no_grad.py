# Text classifier with a bag-of-embeddings model; the batch loop was put under
# no_grad "to save memory" while copying the validation loop.
import torch
import torch.nn as nn

VOCAB, CLASSES = 500, 4


class BagOfWords(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.EmbeddingBag(VOCAB, 64, mode="mean")
        self.fc = nn.Linear(64, CLASSES)

    def forward(self, tokens):
        return self.fc(self.emb(tokens))


model = BagOfWords()
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
texts = torch.randint(0, VOCAB, (320, 20))
labels = torch.randint(0, CLASSES, (320,))

for epoch in range(3):
    model.train()
    with torch.no_grad():
        for i in range(0, 320, 32):
            optimizer.zero_grad()
            logits = model(texts[i:i + 32])
            loss = criterion(logits, labels[i:i + 32])
            loss.backward()
            optimizer.step()
    print(epoch, loss.item())
