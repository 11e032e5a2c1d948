# Knowledge distillation: the teacher's forward is under no_grad, and the
# student's forward ended up in the same block.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
teacher = nn.Sequential(nn.Linear(32, 256), nn.ReLU(), nn.Linear(256, 10)).eval()
student = nn.Sequential(nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 10))
optimizer = torch.optim.Adam(student.parameters(), lr=1e-3)
T, alpha = 4.0, 0.7


def kd_loss(s_logits, t_logits, labels):
    soft = F.kl_div(F.log_softmax(s_logits / T, dim=1), F.softmax(t_logits / T, dim=1),
                    reduction="batchmean") * T * T
    return alpha * soft + (1 - alpha) * F.cross_entropy(s_logits, labels)


X = torch.randn(640, 32)
Y = torch.randint(0, 10, (640,))
for epoch in range(3):
    student.train()
    for i in range(0, 640, 64):
        x, y = X[i:i + 64], Y[i:i + 64]
        with torch.no_grad():
            t_logits = teacher(x)
            s_logits = student(x)
        loss = kd_loss(s_logits, t_logits, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(epoch, loss.item())
