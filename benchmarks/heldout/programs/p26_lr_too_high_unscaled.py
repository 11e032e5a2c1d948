# heldout: expect=GD305|GD303 line=25 alt_lines=16,24 static=no
# House-price style regression on unnormalised features with SGD lr=0.01; the loss blows up.
import torch
import torch.nn as nn

torch.manual_seed(0)

n = 256
area = torch.rand(n, 1) * 200 + 50
rooms = torch.randint(1, 6, (n, 1)).float()
age = torch.rand(n, 1) * 50
X = torch.cat([area, rooms, age], dim=1)
price = 3.0 * area + 10.0 * rooms - 0.5 * age + torch.randn(n, 1) * 5

model = nn.Linear(3, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
criterion = nn.MSELoss()

for epoch in range(40):
    for i in range(0, n, 64):
        pred = model(X[i:i + 64])
        loss = criterion(pred, price[i:i + 64])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(epoch, loss.item())
