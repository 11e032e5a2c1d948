"""HF-style sequence classification model (config object, output dict, CrossEntropyLoss inside forward)."""
from dataclasses import dataclass

import torch
import torch.nn as nn


@dataclass
class ClsConfig:
    vocab_size: int = 100
    hidden_size: int = 48
    num_labels: int = 4
    classifier_dropout: float = 0.1


class Encoder(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.embeddings = nn.Embedding(config.vocab_size, config.hidden_size)
        layer = nn.TransformerEncoderLayer(config.hidden_size, 4, 2 * config.hidden_size, batch_first=True)
        self.layers = nn.TransformerEncoder(layer, 2)

    def forward(self, input_ids, attention_mask):
        return self.layers(self.embeddings(input_ids), src_key_padding_mask=attention_mask == 0)


class ClassificationHead(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.dense = nn.Linear(config.hidden_size, config.hidden_size)
        self.dropout = nn.Dropout(config.classifier_dropout)
        self.out_proj = nn.Linear(config.hidden_size, config.num_labels)

    def forward(self, pooled):
        x = torch.tanh(self.dense(self.dropout(pooled)))
        return torch.softmax(self.out_proj(self.dropout(x)), dim=-1)


class ForSequenceClassification(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.encoder = Encoder(config)
        self.classifier = ClassificationHead(config)

    def forward(self, input_ids, attention_mask, labels=None):
        hidden = self.encoder(input_ids, attention_mask)
        logits = self.classifier(hidden[:, 0])
        loss = None
        if labels is not None:
            loss_fct = nn.CrossEntropyLoss()
            loss = loss_fct(logits.view(-1, self.config.num_labels), labels.view(-1))
        return {"loss": loss, "logits": logits}


if __name__ == "__main__":
    torch.manual_seed(0)
    config = ClsConfig()
    model = ForSequenceClassification(config)
    optimizer = torch.optim.AdamW(model.parameters(), lr=5e-4)
    ids = torch.randint(1, config.vocab_size, (128, 10))
    mask = torch.ones_like(ids)
    labels = ids[:, 1] % config.num_labels
    model.train()
    for epoch in range(2):
        for i in range(0, 128, 16):
            out = model(ids[i:i + 16], mask[i:i + 16], labels=labels[i:i + 16])
            out["loss"].backward()
            optimizer.step()
            optimizer.zero_grad()
        print(epoch, out["loss"].item())
