"""Knowledge distillation: a small student mimics a frozen teacher through a KL loss module."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


def mlp(din, hidden, dout):
    return nn.Sequential(nn.Linear(din, hidden), nn.ReLU(), nn.Linear(hidden, dout))


class DistillLoss(nn.Module):
    def __init__(self, temperature=4.0):
        super().__init__()
        self.t = temperature

    def soft_targets(self, teacher_logits):
        return F.softmax(teacher_logits / self.t, dim=-1)

    def forward(self, student_logits, teacher_logits):
        log_p = torch.tensor(F.log_softmax(student_logits / self.t, dim=-1))
        return F.kl_div(log_p, self.soft_targets(teacher_logits), reduction="batchmean") * self.t ** 2


class Distiller:
    def __init__(self, teacher, student, lr=1e-3):
        self.teacher = teacher.eval()
        for p in self.teacher.parameters():
            p.requires_grad_(False)
        self.student = student
        self.criterion = DistillLoss()
        self.optimizer = torch.optim.Adam(student.parameters(), lr=lr)

    def step(self, x):
        with torch.no_grad():
            t_logits = self.teacher(x)
        s_logits = self.student(x)
        loss = self.criterion(s_logits, t_logits)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item()


teacher = mlp(20, 128, 5)
student = mlp(20, 16, 5)
distiller = Distiller(teacher, student)
X = torch.randn(512, 20)
for epoch in range(3):
    perm = torch.randperm(512)
    for i in range(0, 512, 64):
        idx = perm[i:i + 64]
        loss = distiller.step(X[idx])
    print("epoch", epoch, "loss", round(loss, 4))
