# heldout: expect=GD112 line=18 alt_lines=17,27 static=no
# Linear probe: features cached once under inference_mode, then a head is trained on them.
import torch
import torch.nn as nn

torch.manual_seed(0)

backbone = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 16), nn.ReLU())
backbone.requires_grad_(False)
backbone.eval()

images = torch.randn(200, 32)
labels = torch.randint(0, 5, (200,))


def extract_features(net, data):
    with torch.inference_mode():
        return net(data)


feats = extract_features(backbone, images)
head = nn.Linear(16, 5)
optimizer = torch.optim.Adam(head.parameters(), lr=1e-2)
criterion = nn.CrossEntropyLoss()

for epoch in range(10):
    logits = head(feats)
    loss = criterion(logits, labels)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print(loss.item())
