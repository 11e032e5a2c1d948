"""Knowledge distillation with a frozen teacher; the epoch loss is accumulated detached and weighted by batch size."""
import torch
import torch.nn as nn
import torch.nn.functional as F

def distill(student, teacher, loader, optimizer, T=4.0, alpha=0.7, epochs=10, device="cpu"):
    teacher.eval()
    for p in teacher.parameters():
        p.requires_grad_(False)
    for epoch in range(epochs):
        student.train()
        epoch_loss = 0.0
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            with torch.no_grad():
                t_logits = teacher(x)
            s_logits = student(x)
            soft = F.kl_div(F.log_softmax(s_logits / T, dim=1), F.softmax(t_logits / T, dim=1), reduction="batchmean") * T * T
            hard = F.cross_entropy(s_logits, y)
            loss = alpha * soft + (1 - alpha) * hard
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            epoch_loss += loss.detach() * x.size(0)
        print(epoch, (epoch_loss / len(loader.dataset)).item())
