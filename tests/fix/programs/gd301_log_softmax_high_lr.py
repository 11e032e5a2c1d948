"""Intent classifier on bag-of-words features: the cross-entropy written out by hand as the log of a
softmax, with sharp scores (temperature 0.005) and a learning rate copied from another project.

The log of a softmax that underflows to 0 is -inf, and 0 * -inf is NaN: the loss is NaN from the
first step, which hides that lr=3.0 is far too large for these scores."""
import torch
import torch.nn as nn

torch.manual_seed(3)
VOCAB, INTENTS, N = 200, 6, 256
features = (torch.rand(N, VOCAB) < 0.05).float() * 3.0
labels = torch.randint(0, INTENTS, (N,))
targets = torch.nn.functional.one_hot(labels, INTENTS).float()

model = nn.Sequential(nn.Linear(VOCAB, 64), nn.ReLU(), nn.Linear(64, INTENTS))
optimizer = torch.optim.SGD(model.parameters(), lr=3.0)
temperature = 0.005

for epoch in range(4):
    for start in range(0, N, 32):
        x, t = features[start:start + 32], targets[start:start + 32]
        scores = model(x) / temperature
        loss = -(t * torch.log(torch.softmax(scores, dim=-1))).sum(dim=-1).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f"epoch {epoch}: loss {loss.item():.4f}")
