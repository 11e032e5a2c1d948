# heldout: expect=none
# Correct two-phase script: a teacher is trained, then a student distilled from it (teacher under no_grad, soft targets).
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

x = torch.randn(400, 12)
y = (x[:, :4].sum(1) > 0).long() + (x[:, 4] > 1).long()


def fit(model, optimizer, loss_fn, epochs):
    for epoch in range(epochs):
        for i in range(0, 400, 50):
            optimizer.zero_grad()
            loss = loss_fn(model, x[i:i + 50], y[i:i + 50])
            loss.backward()
            optimizer.step()
        print(epoch, round(loss.item(), 4))


teacher = nn.Sequential(nn.Linear(12, 64), nn.ReLU(), nn.Linear(64, 3))
fit(teacher, torch.optim.Adam(teacher.parameters(), lr=1e-2),
    lambda m, xb, yb: F.cross_entropy(m(xb), yb), epochs=3)
teacher.eval()

student = nn.Sequential(nn.Linear(12, 16), nn.ReLU(), nn.Linear(16, 3))
T = 2.0


def distill_loss(model, xb, yb):
    with torch.no_grad():
        soft = F.softmax(teacher(xb) / T, dim=1)
    logits = model(xb)
    return 0.5 * F.cross_entropy(logits / T, soft) + 0.5 * F.cross_entropy(logits, yb)


fit(student, torch.optim.Adam(student.parameters(), lr=1e-2), distill_loss, epochs=3)
