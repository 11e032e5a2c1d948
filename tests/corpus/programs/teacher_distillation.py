"""Knowledge distillation: the teacher runs under torch.no_grad()."""
import torch
from torch import nn

torch.manual_seed(0)
teacher = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 10)).eval()
student = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 10))
optimizer = torch.optim.AdamW(student.parameters(), lr=3e-3)
T = 2.0
for step in range(40):
    x = torch.randn(32, 16)
    with torch.no_grad():
        soft = torch.softmax(teacher(x) / T, dim=-1)
    logits = student(x)
    loss = nn.functional.kl_div(torch.log_softmax(logits / T, dim=-1), soft, reduction="batchmean") * T * T
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()
