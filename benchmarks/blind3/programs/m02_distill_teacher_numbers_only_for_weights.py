"""Distillation where per-sample weights come from the teacher's confidence as plain numbers."""
import torch
import torch.nn as nn
import torch.nn.functional as F

teacher = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 5)).eval()
student = nn.Sequential(nn.Linear(20, 16), nn.ReLU(), nn.Linear(16, 5))
optimizer = torch.optim.SGD(student.parameters(), lr=0.05)
T = 4.0
for epoch in range(3):
    x = torch.randn(32, 20)
    y = torch.randint(0, 5, (32,))
    with torch.no_grad():
        t_logits = teacher(x)
    confidence = t_logits.softmax(-1).max(-1).values.mean().item()
    s_logits = student(x)
    soft = F.kl_div(F.log_softmax(s_logits / T, -1), F.softmax(t_logits / T, -1), reduction="batchmean") * T * T
    hard = F.cross_entropy(s_logits, y)
    loss = confidence * soft + (1 - confidence) * hard
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
