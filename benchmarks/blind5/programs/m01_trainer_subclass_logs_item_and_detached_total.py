"""HF-Trainer-like subclass with a custom compute_loss; losses are logged as numbers."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class BaseTrainer:
    def __init__(self, model, lr=1e-3, log_every=5):
        self.model = model
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=lr)
        self.log_every = log_every
        self.log_history = []

    def compute_loss(self, model, inputs, return_outputs=False):
        raise NotImplementedError

    def training_step(self, inputs):
        self.model.train()
        loss, outputs = self.compute_loss(self.model, inputs, return_outputs=True)
        loss.backward()
        return loss.detach(), outputs

    def train(self, batches, epochs=2):
        for epoch in range(epochs):
            tr_loss = torch.zeros(())
            for step, inputs in enumerate(batches):
                loss, outputs = self.training_step(inputs)
                self.optimizer.step()
                self.optimizer.zero_grad()
                tr_loss += loss
                if step % self.log_every == 0:
                    self.log_history.append({"loss": float(loss), "lr": self.optimizer.param_groups[0]["lr"]})
            print(epoch, (tr_loss / len(batches)).item(), self.log_history[-1])


class WeightedLossTrainer(BaseTrainer):
    def __init__(self, model, class_weights, **kw):
        super().__init__(model, **kw)
        self.class_weights = class_weights

    def compute_loss(self, model, inputs, return_outputs=False):
        logits = model(inputs["input"])
        loss = F.cross_entropy(logits, inputs["labels"], weight=self.class_weights)
        acc = (logits.argmax(-1) == inputs["labels"]).float().mean().item()
        outputs = {"logits": logits.detach(), "acc": acc}
        return (loss, outputs) if return_outputs else loss


def batches(n=12, bs=32):
    out = []
    for _ in range(n):
        x = torch.randn(bs, 10)
        out.append({"input": x, "labels": (x[:, 0] + x[:, 1] > 1.0).long()})
    return out


model = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 2))
WeightedLossTrainer(model, torch.tensor([1.0, 3.0])).train(batches())
