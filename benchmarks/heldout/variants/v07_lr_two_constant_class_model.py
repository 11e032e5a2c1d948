# heldout: expect=GD305|GD303 line=27 alt_lines=20,26 static=no
# A regressor class predicting a constant calibration value with SGD lr=2.0.
import torch
import torch.nn as nn

torch.manual_seed(1)


class Calibrator(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(3, 12)
        self.fc2 = nn.Linear(12, 1)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


model = Calibrator()
optimizer = torch.optim.SGD(model.parameters(), lr=2.0)
x = torch.randn(48, 3)
target = torch.full((48, 1), 0.7)
for step in range(50):
    loss = nn.functional.mse_loss(model(x), target)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if step % 10 == 0:
        print(step, loss.item())
