# Knowledge distillation with only the teacher under no_grad; the backward is
# called inside a no_grad block for logging (correct: the loss was built outside).
import torch
import torch.nn as nn
import torch.nn.functional as F

teacher = nn.Sequential(nn.Linear(32, 128), nn.ReLU(), nn.Linear(128, 10)).eval()
student = nn.Sequential(nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 10))
optimizer = torch.optim.Adam(student.parameters(), lr=1e-3)
T = 3.0

X, Y = torch.randn(320, 32), torch.randint(0, 10, (320,))
for epoch in range(3):
    for i in range(0, 320, 32):
        x, y = X[i:i + 32], Y[i:i + 32]
        with torch.no_grad():
            t_logits = teacher(x)
        s_logits = student(x)
        loss = 0.5 * F.cross_entropy(s_logits, y) + 0.5 * T * T * F.kl_div(
            F.log_softmax(s_logits / T, 1), F.softmax(t_logits / T, 1), reduction="batchmean")
        optimizer.zero_grad()
        with torch.no_grad():
            agree = (s_logits.argmax(1) == t_logits.argmax(1)).float().mean()
            loss.backward()
        optimizer.step()
    print(epoch, loss.item(), agree.item())
