"""HF-style Trainer subclass overriding compute_loss; numbers only for logging."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self, d=16, n_cls=3):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(d, 32), nn.ReLU(), nn.Dropout(0.1))
        self.head = nn.Linear(32, n_cls)

    def forward(self, x, labels=None):
        logits = self.head(self.body(x))
        return {"logits": logits}


class MiniTrainer:
    def __init__(self, model, lr=1e-3):
        self.model = model
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=lr)
        self.log_history = []

    def compute_loss(self, model, inputs, return_outputs=False):
        outputs = model(inputs["x"])
        loss = F.cross_entropy(outputs["logits"], inputs["labels"])
        return (loss, outputs) if return_outputs else loss

    def training_step(self, inputs):
        self.model.train()
        loss = self.compute_loss(self.model, inputs)
        loss.backward()
        return loss.detach()


class WeightedTrainer(MiniTrainer):
    def __init__(self, model, class_weights, **kw):
        super().__init__(model, **kw)
        self.class_weights = class_weights

    def compute_loss(self, model, inputs, return_outputs=False):
        outputs = model(inputs["x"])
        loss = F.cross_entropy(outputs["logits"], inputs["labels"], weight=self.class_weights)
        self.log_history.append({"loss": loss.item(), "max_logit": outputs["logits"].max().item()})
        return (loss, outputs) if return_outputs else loss

    def train(self, data, epochs=2, bs=32):
        for epoch in range(epochs):
            for i in range(0, len(data["x"]), bs):
                self.optimizer.zero_grad()
                self.training_step({k: v[i:i + bs] for k, v in data.items()})
                self.optimizer.step()
            print(epoch, self.log_history[-1])


if __name__ == "__main__":
    torch.manual_seed(0)
    x = torch.randn(256, 16)
    data = {"x": x, "labels": (x[:, 0] > 0.5).long() + (x[:, 1] > 1.0).long()}
    counts = torch.bincount(data["labels"], minlength=3).float()
    WeightedTrainer(Model(), class_weights=counts.sum() / (3 * counts)).train(data)
