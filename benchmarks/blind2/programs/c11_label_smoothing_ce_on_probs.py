# Image-classification style loop on random "images"; the softmax computed for the
# confidence metric is what goes into the label-smoothing loss.
import torch
import torch.nn as nn

torch.manual_seed(0)

model = nn.Sequential(
    nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(4), nn.Flatten(), nn.Linear(8 * 16, 10)
)
loss_fn = nn.CrossEntropyLoss(label_smoothing=0.1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)

for step in range(20):
    images = torch.randn(16, 3, 16, 16)
    labels = torch.randint(0, 10, (16,))
    logits = model(images)
    probs = logits.softmax(dim=-1)
    confidence = probs.max(dim=-1).values.mean()
    loss = loss_fn(probs, labels)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"step {step} loss {loss.item():.3f} confidence {confidence.item():.3f}")
