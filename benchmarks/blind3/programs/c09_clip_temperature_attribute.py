"""CLIP-style contrastive training with a learnable temperature."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class TinyCLIP(nn.Module):
    def __init__(self, d_img=24, d_txt=12, d=16):
        super().__init__()
        self.image_proj = nn.Linear(d_img, d)
        self.text_proj = nn.Linear(d_txt, d)
        self.logit_scale = torch.full((), math.log(1 / 0.07), requires_grad=True)

    def forward(self, images, texts):
        img = F.normalize(self.image_proj(images), dim=-1)
        txt = F.normalize(self.text_proj(texts), dim=-1)
        return self.logit_scale.exp() * img @ txt.t()


model = TinyCLIP()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.1)
for step in range(4):
    images, texts = torch.randn(8, 24), torch.randn(8, 12)
    logits = model(images, texts)
    labels = torch.arange(8)
    loss = (F.cross_entropy(logits, labels) + F.cross_entropy(logits.t(), labels)) / 2
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
