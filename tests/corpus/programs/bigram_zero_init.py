"""A character bigram language model in the style of ng-video-lecture's bigram.py, its table zero-initialised.

The model is one logits table (`nn.Embedding(vocab, vocab)`), started at zero so that the
first prediction is uniform. While a weight is still zero its update/weight ratio is
infinite, and right after it is about 1 for any learning rate: it measures nothing yet.
"""
import torch
import torch.nn as nn
from torch.nn import functional as F

torch.manual_seed(1337)
batch_size, block_size, max_iters, eval_interval, eval_iters = 32, 8, 300, 100, 10
learning_rate = 1e-2

# Text stand-in: characters drawn from a fixed sparse Markov chain, so there is something to learn
chars = list("abcdefghijklmnopqrstuvwxyz ")
vocab_size = len(chars)
gen = torch.Generator().manual_seed(0)
transitions = torch.rand(vocab_size, vocab_size, generator=gen).pow(8)
text = [0]
for _ in range(20000):
    text.append(int(torch.multinomial(transitions[text[-1]], 1, generator=gen)))
data = torch.tensor(text, dtype=torch.long)
n = int(0.9 * len(data))
train_data, val_data = data[:n], data[n:]


def get_batch(split):
    data = train_data if split == 'train' else val_data
    ix = torch.randint(len(data) - block_size, (batch_size,))
    x = torch.stack([data[i:i + block_size] for i in ix])
    y = torch.stack([data[i + 1:i + block_size + 1] for i in ix])
    return x, y


@torch.no_grad()
def estimate_loss():
    out = {}
    model.eval()
    for split in ['train', 'val']:
        losses = torch.zeros(eval_iters)
        for k in range(eval_iters):
            X, Y = get_batch(split)
            logits, loss = model(X, Y)
            losses[k] = loss.item()
        out[split] = losses.mean()
    model.train()
    return out


class BigramLanguageModel(nn.Module):
    def __init__(self, vocab_size):
        super().__init__()
        self.token_embedding_table = nn.Embedding(vocab_size, vocab_size)
        nn.init.zeros_(self.token_embedding_table.weight)  # uniform first prediction

    def forward(self, idx, targets=None):
        logits = self.token_embedding_table(idx)  # (B, T, C)
        if targets is None:
            return logits, None
        B, T, C = logits.shape
        logits = logits.view(B * T, C)
        targets = targets.view(B * T)
        return logits, F.cross_entropy(logits, targets)

    def generate(self, idx, max_new_tokens):
        for _ in range(max_new_tokens):
            logits, _ = self(idx)
            probs = F.softmax(logits[:, -1, :], dim=-1)
            idx = torch.cat((idx, torch.multinomial(probs, num_samples=1)), dim=1)
        return idx


model = BigramLanguageModel(vocab_size)
optimizer = torch.optim.AdamW(model.parameters(), lr=learning_rate)
for iter in range(max_iters):
    if iter % eval_interval == 0:
        losses = estimate_loss()
        print(f"step {iter}: train loss {losses['train']:.4f}, val loss {losses['val']:.4f}")
    xb, yb = get_batch('train')
    logits, loss = model(xb, yb)
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()
print(f"final train loss {estimate_loss()['train']:.4f}")
print(''.join(chars[i] for i in model.generate(torch.zeros((1, 1), dtype=torch.long), max_new_tokens=40)[0].tolist()))
