"""Two phases: a teacher is trained, then a smaller student is distilled from it with a new optimizer."""
import torch
from torch import nn
import torch.nn.functional as F

torch.manual_seed(0)
w_true = torch.randn(20, 5)


def batch(n=64):
    x = torch.randn(n, 20)
    return x, (x @ w_true).argmax(1)


def train(model, optimizer, steps, loss_of):
    for step in range(steps):
        x, y = batch()
        loss = loss_of(model, x, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return loss.item()


teacher = nn.Sequential(nn.Linear(20, 128), nn.ReLU(), nn.Linear(128, 5))
print("teacher", train(teacher, torch.optim.Adam(teacher.parameters(), lr=3e-3), 60,
                       lambda m, x, y: F.cross_entropy(m(x), y)))
teacher.eval()


def distill(student, x, y, T=3.0):
    with torch.no_grad():
        soft = F.softmax(teacher(x) / T, dim=1)
    logits = student(x)
    return 0.5 * F.kl_div(F.log_softmax(logits / T, dim=1), soft, reduction="batchmean") * T * T \
        + 0.5 * F.cross_entropy(logits, y)


student = nn.Sequential(nn.Linear(20, 16), nn.ReLU(), nn.Linear(16, 5))
print("student", train(student, torch.optim.SGD(student.parameters(), lr=0.05, momentum=0.9), 60, distill))
