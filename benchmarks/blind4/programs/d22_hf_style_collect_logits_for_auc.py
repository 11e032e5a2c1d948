"""Binary sequence classifier with an HF-style ModelOutput dict; epoch ROC-AUC from collected logits."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class SeqClassifier(nn.Module):
    def __init__(self, vocab=50, d=32):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.lstm = nn.LSTM(d, d, batch_first=True)
        self.classifier = nn.Linear(d, 1)

    def forward(self, input_ids, labels=None):
        _, (h, _) = self.lstm(self.emb(input_ids))
        logits = self.classifier(h[-1]).squeeze(-1)
        out = {"logits": logits}
        if labels is not None:
            out["loss"] = F.binary_cross_entropy_with_logits(logits, labels)
        return out


def roc_auc(scores, labels):
    order = scores.argsort()
    ranks = torch.empty_like(order, dtype=torch.float)
    ranks[order] = torch.arange(1, len(scores) + 1, dtype=torch.float)
    pos = labels == 1
    n_pos, n_neg = pos.sum(), (~pos).sum()
    return ((ranks[pos].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)).item()


if __name__ == "__main__":
    torch.manual_seed(0)
    ids = torch.randint(0, 50, (320, 12))
    labels = ((ids == 7).any(1)).float()
    model = SeqClassifier()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    for epoch in range(3):
        all_logits, all_labels = [], []
        for i in range(0, 320, 32):
            batch = {"input_ids": ids[i:i + 32], "labels": labels[i:i + 32]}
            outputs = model(**batch)
            outputs["loss"].backward()
            optimizer.step()
            optimizer.zero_grad()
            all_logits.append(outputs["logits"])
            all_labels.append(batch["labels"])
        print(epoch, roc_auc(torch.cat(all_logits), torch.cat(all_labels)))
