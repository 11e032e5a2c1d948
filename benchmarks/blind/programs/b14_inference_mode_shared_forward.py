# A Lightning-free "LitModel" with a shared step; shared_step was marked inference_mode for predict (2025).
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class LitClassifier(nn.Module):
    def __init__(self, n_in=10, n_classes=3):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(n_in, 32), nn.GELU(), nn.Linear(32, n_classes))

    @torch.inference_mode()
    def shared_step(self, batch):
        x, y = batch
        logits = self.net(x)
        loss = F.cross_entropy(logits, y)
        acc = (logits.argmax(-1) == y).float().mean()
        return loss, acc

    def training_step(self, batch):
        loss, acc = self.shared_step(batch)
        return {"loss": loss, "acc": acc}

    def predict_step(self, batch):
        return self.shared_step(batch)


X = torch.randn(120, 10)
Y = (X[:, :3].argmax(1))
model = LitClassifier()
opt = torch.optim.Adam(model.parameters(), lr=1e-2)

for epoch in range(3):
    for i in range(0, 120, 40):
        out = model.training_step((X[i:i + 40], Y[i:i + 40]))
        opt.zero_grad()
        out["loss"].backward()
        opt.step()
    print(f"epoch {epoch} loss {out['loss'].item():.4f} acc {out['acc'].item():.3f}")
