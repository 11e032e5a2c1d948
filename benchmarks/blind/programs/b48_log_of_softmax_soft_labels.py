# Knowledge distillation with soft targets; log(softmax(...)) written out by hand (2024).
import torch
import torch.nn as nn

torch.manual_seed(0)
T = 1.0

teacher = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 10))
student = nn.Sequential(nn.Linear(16, 16), nn.ReLU(), nn.Linear(16, 10))
with torch.no_grad():
    teacher[2].weight.mul_(40.0)
teacher.eval()

X = torch.randn(128, 16) * 4
optimizer = torch.optim.SGD(student.parameters(), lr=0.5)

for epoch in range(6):
    for i in range(0, 128, 32):
        x = X[i:i + 32]
        with torch.no_grad():
            soft_targets = torch.softmax(teacher(x) / T, dim=1)
        student_logits = student(x) * 30
        loss = -(soft_targets * torch.log(torch.softmax(student_logits / T, dim=1))).sum(dim=1).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f"epoch {epoch} distill loss {loss.item():.4f}")
