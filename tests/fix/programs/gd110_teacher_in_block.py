"""Distillation with the teacher's and the student's forward both under torch.no_grad(): moving the whole
block out of no_grad (the GD110 edit) lets gradients flow into the teacher too, which no optimizer holds;
the re-run shows it, so the edit is reported as failed and not written. The right fix keeps the teacher
under no_grad and moves only the student out."""
import torch
from torch import nn

torch.manual_seed(0)
teacher = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 1))
student = nn.Sequential(nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 1))
optimizer = torch.optim.Adam(student.parameters(), lr=1e-2)

for step in range(20):
    x = torch.randn(64, 8)
    with torch.no_grad():
        target = teacher(x)
        loss = nn.functional.mse_loss(student(x), target)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
