# Correct: process_batch returns (outputs, losses); no_grad only around validation.
import torch
import torch.nn as nn

torch.manual_seed(0)


class DepthNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 1, 3, padding=1), nn.Sigmoid())

    def forward(self, x):
        return self.net(x)


class Trainer:
    def __init__(self):
        self.model = DepthNet()
        self.model_optimizer = torch.optim.Adam(self.model.parameters(), lr=1e-3)

    def process_batch(self, inputs):
        outputs = {"disp": self.model(inputs["color"])}
        losses = {"loss": (outputs["disp"] - inputs["depth_gt"]).abs().mean()}
        return outputs, losses

    def run_epoch(self, batches):
        self.model.train()
        for inputs in batches:
            outputs, losses = self.process_batch(inputs)
            self.model_optimizer.zero_grad()
            losses["loss"].backward()
            self.model_optimizer.step()
        return losses["loss"].item()

    def val(self, batch):
        self.model.eval()
        with torch.no_grad():
            outputs, losses = self.process_batch(batch)
        self.model.train()
        return losses["loss"].item()


trainer = Trainer()
batches = [{"color": torch.rand(2, 3, 16, 16), "depth_gt": torch.rand(2, 1, 16, 16)} for _ in range(4)]
for epoch in range(3):
    train_loss = trainer.run_epoch(batches)
    print(f"epoch {epoch} train {train_loss:.4f} val {trainer.val(batches[0]):.4f}")
