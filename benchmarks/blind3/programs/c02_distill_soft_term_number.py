"""Knowledge distillation: the student learns from the teacher's soft targets and the hard labels."""
import torch
import torch.nn as nn
import torch.nn.functional as F

teacher = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 5)).eval()
student = nn.Sequential(nn.Linear(20, 16), nn.ReLU(), nn.Linear(16, 5))
optimizer = torch.optim.SGD(student.parameters(), lr=0.05, momentum=0.9)
T, alpha = 4.0, 0.7


def distillation_loss(student_logits, teacher_logits, temperature):
    kl = F.kl_div(F.log_softmax(student_logits / temperature, dim=-1),
                  F.softmax(teacher_logits / temperature, dim=-1), reduction="batchmean")
    return kl.item() * temperature ** 2


for epoch in range(3):
    x = torch.randn(32, 20)
    y = torch.randint(0, 5, (32,))
    with torch.no_grad():
        t_logits = teacher(x)
    s_logits = student(x)
    soft = distillation_loss(s_logits, t_logits, T)
    hard = F.cross_entropy(s_logits, y)
    loss = alpha * soft + (1 - alpha) * hard
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(epoch, float(loss))
