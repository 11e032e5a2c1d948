# Salary regression, plain script in the style of a forum post: the model
# outputs (N, 1) and the targets are (N,).
import torch
import torch.nn as nn

torch.manual_seed(0)
years = torch.rand(500) * 30
level = torch.randint(0, 5, (500,)).float()
X = torch.stack([years / 30, level / 4], dim=1)
salary = 30 + 2.0 * years + 8.0 * level + torch.randn(500) * 3
salary = (salary - salary.mean()) / salary.std()

model = nn.Sequential(nn.Linear(2, 32), nn.ReLU(), nn.Linear(32, 1))
criterion = nn.MSELoss()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)

for epoch in range(100):
    optimizer.zero_grad()
    outputs = model(X)
    loss = criterion(outputs, salary)
    loss.backward()
    optimizer.step()
    if epoch % 20 == 0:
        print(f"epoch {epoch}, loss {loss.item():.4f}")
