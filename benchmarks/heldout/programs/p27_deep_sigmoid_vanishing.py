# heldout: expect=GD304 line=12 alt_lines=14,27 static=no
# A 12-layer sigmoid MLP: the first layers receive vanishing gradients.
import torch
import torch.nn as nn

torch.manual_seed(0)


def make_mlp(d_in, width, depth, d_out):
    layers = [nn.Linear(d_in, width), nn.Sigmoid()]
    for _ in range(depth - 1):
        layers += [nn.Linear(width, width), nn.Sigmoid()]
    layers.append(nn.Linear(width, d_out))
    return nn.Sequential(*layers)


x = torch.randn(256, 10)
y = (x[:, 0] * x[:, 1] > 0).long()
model = make_mlp(10, 32, 12, 2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
criterion = nn.CrossEntropyLoss()

for epoch in range(30):
    for i in range(0, 256, 64):
        optimizer.zero_grad()
        loss = criterion(model(x[i:i + 64]), y[i:i + 64])
        loss.backward()
        optimizer.step()
    if epoch % 10 == 0:
        print(epoch, loss.item())
