"""CLIP-style training with the temperature registered as an nn.Parameter and clipped under no_grad."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class TinyCLIP(nn.Module):
    def __init__(self, d_img=24, d_txt=12, d=16):
        super().__init__()
        self.image_proj = nn.Linear(d_img, d)
        self.text_proj = nn.Linear(d_txt, d)
        self.logit_scale = nn.Parameter(torch.tensor(math.log(1 / 0.07)))

    def forward(self, images, texts):
        img = F.normalize(self.image_proj(images), dim=-1)
        txt = F.normalize(self.text_proj(texts), dim=-1)
        return self.logit_scale.exp() * img @ txt.t()


model = TinyCLIP()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
for step in range(4):
    logits = model(torch.randn(8, 24), torch.randn(8, 12))
    labels = torch.arange(8)
    loss = (F.cross_entropy(logits, labels) + F.cross_entropy(logits.t(), labels)) / 2
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    with torch.no_grad():
        model.logit_scale.clamp_(0, math.log(100))
