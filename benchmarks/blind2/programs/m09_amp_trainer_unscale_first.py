# Mixed-precision trainer class that unscales before clipping.
import torch
import torch.nn as nn

torch.manual_seed(0)
device = "cuda" if torch.cuda.is_available() else "cpu"


class AmpTrainer:
    def __init__(self, model, lr=1e-3, clip=1.0):
        self.model = model.to(device)
        self.opt = torch.optim.AdamW(self.model.parameters(), lr=lr)
        self.scaler = torch.amp.GradScaler(device, enabled=device == "cuda")
        self.clip = clip
        self.loss_fn = nn.MSELoss()

    def fit_batch(self, x, y):
        self.opt.zero_grad(set_to_none=True)
        with torch.autocast(device_type=device, dtype=torch.float16 if device == "cuda" else torch.bfloat16):
            loss = self.loss_fn(self.model(x), y)
        self.scaler.scale(loss).backward()
        self.scaler.unscale_(self.opt)
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.clip)
        self.scaler.step(self.opt)
        self.scaler.update()
        return loss.item()


trainer = AmpTrainer(nn.Sequential(nn.Linear(10, 64), nn.GELU(), nn.Linear(64, 1)))
for step in range(20):
    x = torch.randn(32, 10, device=device)
    print(step, trainer.fit_batch(x, x.sum(dim=1, keepdim=True)))
