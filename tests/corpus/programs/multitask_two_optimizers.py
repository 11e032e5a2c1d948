"""Multitask: a shared encoder with a classification head and a regression head, each head with its own optimizer."""
import torch
from torch import nn
import torch.nn.functional as F

torch.manual_seed(0)
encoder = nn.Sequential(nn.Linear(12, 64), nn.ReLU(), nn.Linear(64, 32), nn.ReLU())
cls_head = nn.Linear(32, 4)
reg_head = nn.Linear(32, 1)
opt_main = torch.optim.Adam(list(encoder.parameters()) + list(cls_head.parameters()), lr=1e-3)
opt_reg = torch.optim.SGD(reg_head.parameters(), lr=1e-2, momentum=0.9)
w = torch.randn(12)
for step in range(70):
    x = torch.randn(32, 12)
    y_cls = (x[:, :4]).argmax(1)
    y_reg = (x @ w).unsqueeze(1) + 0.5 * torch.randn(32, 1)
    z = encoder(x)
    cls_loss = F.cross_entropy(cls_head(z), y_cls)
    reg_loss = F.mse_loss(reg_head(z), y_reg)
    opt_main.zero_grad()
    opt_reg.zero_grad()
    cls_loss.backward(retain_graph=True)
    reg_loss.backward()
    opt_main.step()
    opt_reg.step()
    if step % 20 == 0:
        print(step, cls_loss.item(), reg_loss.item())
