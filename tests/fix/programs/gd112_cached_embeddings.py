"""Sentence embeddings from a frozen encoder cached once under torch.inference_mode(), then a classifier trained
on them: autograd cannot save inference tensors, so backward() fails."""
import torch
from torch import nn

torch.manual_seed(0)
encoder = nn.Sequential(nn.Linear(16, 48), nn.GELU(), nn.Linear(48, 24)).eval()
sentences = torch.randn(300, 16)
labels = (sentences[:, 0] - sentences[:, 3] > 0).long()

with torch.inference_mode():
    embeddings = encoder(sentences)

classifier = nn.Sequential(nn.Linear(24, 16), nn.ReLU(), nn.Linear(16, 2))
optimizer = torch.optim.Adam(classifier.parameters(), lr=3e-2)

for epoch in range(10):
    for i in range(0, 300, 60):
        loss = nn.functional.cross_entropy(classifier(embeddings[i:i + 60]), labels[i:i + 60])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f"epoch {epoch}: loss {loss.item():.3f}")
