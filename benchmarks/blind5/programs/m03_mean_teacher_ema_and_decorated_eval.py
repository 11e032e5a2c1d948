"""Mean-teacher semi-supervised training: EMA teacher, consistency loss, evaluation helpers."""
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


def make_model():
    return nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Dropout(0.2), nn.Linear(64, 3))


class MeanTeacher:
    def __init__(self, decay=0.99, lr=1e-3):
        self.student = make_model()
        self.teacher = copy.deepcopy(self.student).eval()
        for p in self.teacher.parameters():
            p.requires_grad_(False)
        self.decay = decay
        self.opt = torch.optim.Adam(self.student.parameters(), lr=lr)

    @torch.no_grad()
    def update_teacher(self):
        for t, s in zip(self.teacher.parameters(), self.student.parameters()):
            t.mul_(self.decay).add_(s, alpha=1 - self.decay)

    def train_step(self, x_lab, y_lab, x_unlab):
        self.student.train()
        with torch.no_grad():
            target = F.softmax(self.teacher(x_unlab + 0.1 * torch.randn_like(x_unlab)), dim=-1)
        sup = F.cross_entropy(self.student(x_lab), y_lab)
        cons = F.mse_loss(F.softmax(self.student(x_unlab), dim=-1), target)
        loss = sup + 2.0 * cons
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        self.update_teacher()
        return loss.item()

    @torch.no_grad()
    def evaluate(self, x, y):
        self.teacher.eval()
        self.student.eval()
        acc_t = (self.teacher(x).argmax(1) == y).float().mean().item()
        acc_s = (self.student(x).argmax(1) == y).float().mean().item()
        self.student.train()
        return acc_t, acc_s


x = torch.randn(600, 16)
y = (x[:, 0] > 0).long() + (x[:, 1] > 0.5).long()
mt = MeanTeacher()
for epoch in range(3):
    for i in range(0, 100, 20):
        loss = mt.train_step(x[i:i + 20], y[i:i + 20], x[100 + 5 * i:100 + 5 * i + 100])
    print(epoch, round(loss, 4), mt.evaluate(x[500:], y[500:]))
