"""A BERT-style encoder fine-tuned for classification with AdamW, as HF's `run_glue_no_trainer.py` does.

Written by hand (self-attention with separate query/key/value layers, post-LayerNorm, GELU, a pooler),
initialised like BERT (normal, std 0.02). With that initialisation the attention scores start near 0,
so the query and key layers get raw gradients orders of magnitude below the rest; AdamW rescales each
element, and they move like every other layer.
"""
import math

import torch
from torch import nn

torch.manual_seed(0)
VOCAB, HIDDEN, HEADS, LAYERS, SEQ, LABELS = 100, 32, 4, 2, 16, 3


class SelfAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.query = nn.Linear(HIDDEN, HIDDEN)
        self.key = nn.Linear(HIDDEN, HIDDEN)
        self.value = nn.Linear(HIDDEN, HIDDEN)
        self.dropout = nn.Dropout(0.1)

    def split(self, x):
        b, t, _ = x.shape
        return x.view(b, t, HEADS, HIDDEN // HEADS).transpose(1, 2)

    def forward(self, hidden, mask):
        q, k, v = self.split(self.query(hidden)), self.split(self.key(hidden)), self.split(self.value(hidden))
        scores = q @ k.transpose(-1, -2) / math.sqrt(HIDDEN // HEADS) + mask
        probs = self.dropout(scores.softmax(dim=-1))
        context = (probs @ v).transpose(1, 2).reshape(hidden.shape)
        return context


class Layer(nn.Module):
    def __init__(self):
        super().__init__()
        self.attention = SelfAttention()
        self.attention_output = nn.Linear(HIDDEN, HIDDEN)
        self.attention_norm = nn.LayerNorm(HIDDEN)
        self.intermediate = nn.Linear(HIDDEN, 4 * HIDDEN)
        self.output = nn.Linear(4 * HIDDEN, HIDDEN)
        self.output_norm = nn.LayerNorm(HIDDEN)
        self.dropout = nn.Dropout(0.1)

    def forward(self, hidden, mask):
        attended = self.attention_norm(hidden + self.dropout(self.attention_output(self.attention(hidden, mask))))
        feed = self.output(nn.functional.gelu(self.intermediate(attended)))
        return self.output_norm(attended + self.dropout(feed))


class BertForSequenceClassification(nn.Module):
    def __init__(self):
        super().__init__()
        self.word_embeddings = nn.Embedding(VOCAB, HIDDEN)
        self.position_embeddings = nn.Embedding(SEQ, HIDDEN)
        self.embeddings_norm = nn.LayerNorm(HIDDEN)
        self.layers = nn.ModuleList(Layer() for _ in range(LAYERS))
        self.pooler = nn.Linear(HIDDEN, HIDDEN)
        self.classifier = nn.Linear(HIDDEN, LABELS)
        self.apply(self._init_weights)

    @staticmethod
    def _init_weights(module):
        if isinstance(module, (nn.Linear, nn.Embedding)):
            module.weight.data.normal_(mean=0.0, std=0.02)
        if isinstance(module, nn.Linear) and module.bias is not None:
            module.bias.data.zero_()

    def forward(self, input_ids, attention_mask):
        positions = torch.arange(input_ids.shape[1])
        hidden = self.embeddings_norm(self.word_embeddings(input_ids) + self.position_embeddings(positions))
        mask = (1.0 - attention_mask[:, None, None, :].float()) * torch.finfo(hidden.dtype).min
        for layer in self.layers:
            hidden = layer(hidden, mask)
        pooled = torch.tanh(self.pooler(hidden[:, 0]))
        return self.classifier(pooled)


model = BertForSequenceClassification()
no_decay = ["bias", "norm"]
groups = [
    {"params": [p for n, p in model.named_parameters() if not any(nd in n for nd in no_decay)], "weight_decay": 0.01},
    {"params": [p for n, p in model.named_parameters() if any(nd in n for nd in no_decay)], "weight_decay": 0.0},
]
optimizer = torch.optim.AdamW(groups, lr=5e-4)
steps = 60
scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: 1.0 if s < steps // 2 else 0.5)

# synthetic task: the label is which third of the vocabulary the first real token falls in
data = torch.randint(1, VOCAB, (512, SEQ))
lengths = torch.randint(SEQ // 2, SEQ + 1, (512,))
attention = (torch.arange(SEQ)[None, :] < lengths[:, None]).long()
data = data * attention
labels = (data[:, 1] * LABELS) // VOCAB

model.train()
for step in range(steps):
    idx = torch.randint(0, 512, (32,))
    logits = model(data[idx], attention[idx])
    loss = nn.functional.cross_entropy(logits, labels[idx])
    loss.backward()
    optimizer.step()
    scheduler.step()
    optimizer.zero_grad()
    if step % 20 == 0:
        print(f"step {step} loss {loss.item():.4f}")
