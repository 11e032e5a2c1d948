"""GD507: an instruction-tuning collator masks the prompt with -100, but truncation to 32 tokens cuts
every answer token off, so every label is -100 and the loss is NaN from the first step.

Built from a common fine-tuning report: "loss is nan from step 0 with DataCollatorForCompletionOnlyLM /
my SFT labels are all -100": prompts longer than max_length leave no answer tokens to learn from.
"""
# allow: GD301 GD304 GD306 GD111 GD204
import torch
from torch import nn

torch.manual_seed(0)
vocab, max_length = 64, 32
examples = [(torch.randint(3, vocab, (40,)), torch.randint(3, vocab, (8,))) for _ in range(64)]  # (prompt, answer)


def collate(batch):
    ids, labels = [], []
    for prompt, answer in batch:
        seq = torch.cat([prompt, answer])
        label = torch.cat([torch.full_like(prompt, -100), answer])  # learn the answer only
        ids.append(seq[:max_length])  # truncation keeps the first 32 tokens: prompt only
        labels.append(label[:max_length])
    return torch.stack(ids), torch.stack(labels)


loader = torch.utils.data.DataLoader(examples, batch_size=8, shuffle=True, collate_fn=collate)


class TinyLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(vocab, 32)
        self.rnn = nn.GRU(32, 32, batch_first=True)
        self.head = nn.Linear(32, vocab)

    def forward(self, ids):
        out, _ = self.rnn(self.embed(ids))
        return self.head(out)


model = TinyLM()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
criterion = nn.CrossEntropyLoss()
for epoch in range(2):
    for ids, labels in loader:
        logits = model(ids[:, :-1])
        loss = criterion(logits.reshape(-1, vocab), labels[:, 1:].reshape(-1))  # expect: GD507
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f"epoch {epoch}: loss {loss.item():.3f}")
