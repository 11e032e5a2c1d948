"""Training loop with a small callback system; a GradientClipper callback guards against spikes."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class GradientClipper:
    def __init__(self, max_norm=1.0):
        self.max_norm = max_norm
        self.norms = []

    def after_optimizer_step(self, model):
        norm = torch.nn.utils.clip_grad_norm_(model.parameters(), self.max_norm)
        self.norms.append(norm.item())


class LossLogger:
    def __init__(self, every=10):
        self.every = every
        self.step = 0

    def after_optimizer_step(self, model):
        self.step += 1


class CharRNN(nn.Module):
    def __init__(self, vocab=30, d=32):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.rnn = nn.LSTM(d, d, batch_first=True)
        self.out = nn.Linear(d, vocab)

    def forward(self, x):
        h, _ = self.rnn(self.emb(x))
        return self.out(h)


def run(model, text, callbacks, steps=30, seq=20, bs=8):
    opt = torch.optim.Adam(model.parameters(), lr=2e-3)
    for step in range(steps):
        starts = torch.randint(0, len(text) - seq - 1, (bs,))
        x = torch.stack([text[s:s + seq] for s in starts])
        y = torch.stack([text[s + 1:s + seq + 1] for s in starts])
        logits = model(x)
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        for cb in callbacks:
            cb.after_optimizer_step(model)
        if step % 10 == 0:
            print(step, loss.item())


text = torch.randint(0, 30, (3000,))
clipper = GradientClipper(max_norm=0.5)
run(CharRNN(), text, [clipper, LossLogger()])
print("max grad norm seen", max(clipper.norms))
