# Magnitude pruning during training: the mask is re-applied through .data right
# after the forward pass, before backward.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(30, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 4))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
prunable = [m for m in model if isinstance(m, nn.Linear)][:2]


def magnitude_masks(layers, sparsity):
    masks = []
    for layer in layers:
        k = int(layer.weight.numel() * sparsity)
        threshold = layer.weight.abs().flatten().kthvalue(max(k, 1)).values
        masks.append((layer.weight.abs() > threshold).float())
    return masks


X, Y = torch.randn(512, 30), torch.randint(0, 4, (512,))
for epoch in range(4):
    masks = magnitude_masks(prunable, sparsity=0.2 * (epoch + 1))
    for i in range(0, 512, 64):
        logits = model(X[i:i + 64])
        loss = F.cross_entropy(logits, Y[i:i + 64])
        for layer, mask in zip(prunable, masks):
            layer.weight.data.mul_(mask)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(epoch, loss.item())
