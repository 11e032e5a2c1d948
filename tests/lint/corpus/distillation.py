"""Knowledge distillation: a frozen teacher under no_grad, temperature-scaled KL."""
import torch
import torch.nn as nn
import torch.nn.functional as F


def make(width):
    return nn.Sequential(nn.Flatten(), nn.Linear(784, width), nn.ReLU(), nn.Linear(width, 10))


teacher = make(1024)
teacher.load_state_dict(torch.load("teacher.pt"))
teacher.eval()
student = make(64)
optimizer = torch.optim.Adam(student.parameters(), lr=1e-3)
T, alpha = 4.0, 0.7


def distill_loss(s_logits, t_logits, labels):
    soft = F.kl_div(F.log_softmax(s_logits / T, dim=1), F.softmax(t_logits / T, dim=1), reduction="batchmean") * T * T
    hard = F.cross_entropy(s_logits, labels)
    return alpha * soft + (1 - alpha) * hard


for epoch in range(10):
    student.train()
    running = 0.0
    for images, labels in train_loader:
        with torch.no_grad():
            t_logits = teacher(images)
        s_logits = student(images)
        loss = distill_loss(s_logits, t_logits, labels)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        running += loss.item() * images.size(0)
    print(f"epoch {epoch}: {running / len(train_loader.dataset):.4f}")
