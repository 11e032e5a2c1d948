# Knowledge distillation with the student's optimizer cleared every step.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

teacher = nn.Sequential(nn.Linear(20, 128), nn.ReLU(), nn.Linear(128, 5))
student = nn.Sequential(nn.Linear(20, 32), nn.ReLU(), nn.Linear(32, 5))
optimizer = torch.optim.SGD(student.parameters(), lr=0.05, momentum=0.9)
T, alpha = 4.0, 0.7

teacher.eval()
for step in range(30):
    x = torch.randn(32, 20)
    y = torch.randint(0, 5, (32,))
    with torch.no_grad():
        t_logits = teacher(x)
    s_logits = student(x)
    kd = F.kl_div(F.log_softmax(s_logits / T, -1), F.softmax(t_logits / T, -1), reduction="batchmean") * T * T
    loss = alpha * kd + (1 - alpha) * F.cross_entropy(s_logits, y)
    student.zero_grad()
    loss.backward()
    optimizer.step()
    print(step, loss.item())
