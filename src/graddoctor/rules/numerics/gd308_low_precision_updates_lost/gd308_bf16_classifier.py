"""GD308: a sentiment head fine-tuned with its parameters cast to bfloat16 and AdamW at lr=1e-5.

Built from a forum report: "model.to(torch.bfloat16) to save memory; after 100 steps 0 of the 768
weights of my classifier changed, although the loss moves a little". Adam's updates are about the
learning rate, 1e-5, far below bfloat16's resolution at the weights' size (about 1e-4 near 0.02).
"""
# allow: GD306
import torch
from torch import nn

torch.manual_seed(0)
embeddings = torch.randn(512, 768)  # sentence embeddings from a frozen encoder
labels = (embeddings[:, :16].sum(1) > 0).long()

head = nn.Sequential(nn.Linear(768, 256), nn.GELU(), nn.Linear(256, 2)).to(torch.bfloat16)
optimizer = torch.optim.AdamW(head.parameters(), lr=1e-5, weight_decay=0.01)
for epoch in range(3):
    for i in range(0, len(embeddings), 32):
        x, y = embeddings[i:i + 32].to(torch.bfloat16), labels[i:i + 32]
        loss = nn.functional.cross_entropy(head(x).float(), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()  # expect: GD308
    print(f"epoch {epoch}: loss {loss.item():.4f}")
