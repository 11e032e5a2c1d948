"""A Trainer class with optional AMP and optional clipping, evaluation helpers that return floats, loss histories."""
import numpy as np
import torch
import torch.nn as nn

class Trainer:
    def __init__(self, model, train_loader, val_loader, lr=1e-3, device="cpu", clip=None, use_amp=False):
        self.model = model.to(device)
        self.train_loader = train_loader
        self.val_loader = val_loader
        self.device = device
        self.clip = clip
        self.criterion = nn.CrossEntropyLoss()
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=lr)
        self.scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(self.optimizer, patience=2)
        self.scaler = torch.cuda.amp.GradScaler(enabled=use_amp)
        self.history = {"train_loss": [], "val_loss": [], "val_acc": []}
        self.train_losses = []
        self.val_losses = []

    def _step(self, x, y):
        with torch.autocast(device_type=self.device, enabled=self.scaler.is_enabled()):
            logits = self.model(x)
            loss = self.criterion(logits, y)
        self.optimizer.zero_grad(set_to_none=True)
        self.scaler.scale(loss).backward()
        if self.clip is not None:
            self.scaler.unscale_(self.optimizer)
            nn.utils.clip_grad_norm_(self.model.parameters(), self.clip)
        self.scaler.step(self.optimizer)
        self.scaler.update()
        return loss.detach()

    def train_epoch(self):
        self.model.train()
        losses = []
        for x, y in self.train_loader:
            x, y = x.to(self.device), y.to(self.device)
            losses.append(self._step(x, y).item())
        return float(np.mean(losses))

    @torch.no_grad()
    def validate_model(self):
        self.model.eval()
        total, correct, loss_sum = 0, 0, 0.0
        for x, y in self.val_loader:
            x, y = x.to(self.device), y.to(self.device)
            logits = self.model(x)
            loss_sum += self.criterion(logits, y).item() * y.size(0)
            correct += (logits.argmax(1) == y).sum().item()
            total += y.size(0)
        return loss_sum / total, correct / total

    def fit(self, epochs):
        for epoch in range(epochs):
            train_loss = self.train_epoch()
            val_loss, val_acc = self.validate_model()
            self.scheduler.step(val_loss)
            self.train_losses.append(train_loss)
            self.val_losses.append(val_loss)
            self.history["val_acc"].append(val_acc)
        return self.history
