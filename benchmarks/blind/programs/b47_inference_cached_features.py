# Caching frozen-encoder features once with inference_mode to speed up probe training (2025 issue).
import torch
import torch.nn as nn

torch.manual_seed(0)

encoder = nn.Sequential(nn.Linear(20, 64), nn.GELU(), nn.Linear(64, 32))
encoder.eval()
for p in encoder.parameters():
    p.requires_grad_(False)

raw = torch.randn(200, 20)
labels = (raw[:, 0] + raw[:, 1] > 0).long()

with torch.inference_mode():
    cached_features = encoder(raw)

probe = nn.Sequential(nn.Linear(32, 16), nn.ReLU(), nn.Linear(16, 2))
optimizer = torch.optim.Adam(probe.parameters(), lr=1e-2)
criterion = nn.CrossEntropyLoss()

for epoch in range(5):
    for i in range(0, 200, 50):
        logits = probe(cached_features[i:i + 50])
        loss = criterion(logits, labels[i:i + 50])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f"epoch {epoch} loss {loss.item():.4f}")
