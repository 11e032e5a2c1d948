"""An Accelerate-style loop written by hand: fp16 autocast, a GradScaler, norm clipping."""
import torch
import torch.nn as nn
import torch.nn.functional as F

use_cuda = torch.cuda.is_available()
device = torch.device("cuda" if use_cuda else "cpu")
model = nn.Sequential(nn.Embedding(100, 16), nn.Flatten(), nn.Linear(16 * 8, 2)).to(device)
optimizer = torch.optim.AdamW(model.parameters(), lr=2e-5)
scaler = torch.amp.GradScaler("cuda", enabled=use_cuda)
grad_clip = 1.0

for step in range(4):
    input_ids = torch.randint(0, 100, (4, 8), device=device)
    labels = torch.randint(0, 2, (4,), device=device)
    with torch.autocast("cuda", dtype=torch.float16, enabled=use_cuda):
        logits = model(input_ids)
        loss = F.cross_entropy(logits, labels)
    optimizer.zero_grad()
    scaler.scale(loss).backward()
    grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), grad_clip)
    scaler.step(optimizer)
    scaler.update()
