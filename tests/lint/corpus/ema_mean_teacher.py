"""Mean-teacher semi-supervised training: the EMA teacher is updated under no_grad."""
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F

student = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 10))
teacher = copy.deepcopy(student)
for p in teacher.parameters():
    p.requires_grad_(False)
optimizer = torch.optim.SGD(student.parameters(), lr=0.05, momentum=0.9, nesterov=True)


@torch.no_grad()
def update_ema(teacher, student, decay):
    for t_param, s_param in zip(teacher.parameters(), student.parameters()):
        t_param.mul_(decay).add_(s_param, alpha=1 - decay)
    for t_buf, s_buf in zip(teacher.buffers(), student.buffers()):
        t_buf.copy_(s_buf)


def consistency_weight(step, ramp=1000):
    return min(1.0, step / ramp)


global_step = 0
for epoch in range(30):
    for (x_l, y_l), x_u in zip(labeled_loader, unlabeled_loader):
        logits_l = student(x_l)
        logits_u = student(x_u)
        with torch.no_grad():
            teacher_u = F.softmax(teacher(x_u), dim=1)
        class_loss = F.cross_entropy(logits_l, y_l)
        cons_loss = F.mse_loss(F.softmax(logits_u, dim=1), teacher_u)
        loss = class_loss + consistency_weight(global_step) * cons_loss
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        global_step += 1
        update_ema(teacher, student, decay=0.99)
    print(f"epoch {epoch} loss {loss.item():.4f}")
