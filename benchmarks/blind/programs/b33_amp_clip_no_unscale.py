# Mixed-precision training of a tiny ViT-ish patch classifier with clipping (2025 thread).
import torch
import torch.nn as nn

torch.manual_seed(0)
device = "cuda" if torch.cuda.is_available() else "cpu"
amp_dtype = torch.float16 if device == "cuda" else torch.bfloat16


class PatchClassifier(nn.Module):
    def __init__(self, patch=4, dim=32, n_cls=4):
        super().__init__()
        self.patchify = nn.Conv2d(3, dim, patch, stride=patch)
        layer = nn.TransformerEncoderLayer(dim, 4, 64, dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 1)
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, n_cls)

    def forward(self, x):
        tokens = self.patchify(x).flatten(2).transpose(1, 2)
        return self.head(self.norm(self.encoder(tokens).mean(1)))


model = PatchClassifier().to(device)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
scaler = torch.amp.GradScaler(device)
criterion = nn.CrossEntropyLoss()
images = torch.randn(64, 3, 16, 16)
labels = torch.randint(0, 4, (64,))

for epoch in range(4):
    for i in range(0, 64, 16):
        x, y = images[i:i + 16].to(device), labels[i:i + 16].to(device)
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast(device_type=device, dtype=amp_dtype):
            loss = criterion(model(x), y)
        scaler.scale(loss).backward()
        grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        scaler.step(optimizer)
        scaler.update()
    print(f"epoch {epoch} loss {loss.item():.4f} grad_norm {grad_norm.item():.2f}")
