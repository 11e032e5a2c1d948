"""GD113: LoRA fine-tuning with frozen embeddings and reentrant checkpointing: the adapters never train."""
import warnings

import torch
from torch import nn
from torch.utils.checkpoint import checkpoint

# Like many fine-tuning scripts, this one silences library warnings, torch's "None of the inputs have
# requires_grad=True" among them: the adapters' missing gradients must be found without it.
warnings.filterwarnings("ignore", category=UserWarning)


class LoRALinear(nn.Module):
    """A frozen pretrained projection plus a trainable low-rank update."""

    def __init__(self, d: int, rank: int = 4) -> None:
        super().__init__()
        self.base = nn.Linear(d, d)
        self.base.requires_grad_(False)
        self.down = nn.Linear(d, rank, bias=False)
        self.up = nn.Linear(rank, d, bias=False)
        nn.init.zeros_(self.up.weight)

    def forward(self, x):
        return self.base(x) + self.up(self.down(x))


class Block(nn.Module):
    def __init__(self, d: int) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(d)
        self.proj = LoRALinear(d)

    def forward(self, x):
        return x + torch.relu(self.proj(self.norm(x)))


class TinyLM(nn.Module):
    def __init__(self, vocab: int = 40, d: int = 32, layers: int = 2) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        self.blocks = nn.ModuleList(Block(d) for _ in range(layers))
        self.head = nn.Linear(d, vocab)

    def forward(self, ids):
        h = self.embed(ids)  # frozen below: h does not require grad
        for block in self.blocks:
            h = checkpoint(block, h, use_reentrant=True)  # expect: GD113
        return self.head(h)


torch.manual_seed(0)
model = TinyLM()
model.embed.requires_grad_(False)  # the pretrained embeddings stay fixed
for block in model.blocks:
    block.norm.requires_grad_(False)
optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-3)
data = torch.randint(0, 40, (8, 17))
for step in range(5):
    logits = model(data[:, :-1])
    loss = nn.functional.cross_entropy(logits.reshape(-1, 40), data[:, 1:].reshape(-1))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
