# Self-supervised depth-style trainer: process_batch returns (outputs, losses) (GitHub issue, 2025).
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class DepthNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU())
        self.decoder = nn.Sequential(nn.Conv2d(8, 1, 3, padding=1), nn.Sigmoid())

    def forward(self, x):
        return self.decoder(self.encoder(x))


class Trainer:
    def __init__(self, opt):
        self.opt = opt
        self.model = DepthNet()
        self.model_optimizer = torch.optim.Adam(self.model.parameters(), lr=1e-3)
        self.step = 0

    def compute_losses(self, inputs, outputs):
        losses = {}
        target = inputs["depth_gt"]
        l1 = (outputs["disp"] - target).abs().mean()
        ssim_like = 1 - F.cosine_similarity(outputs["disp"].flatten(1), target.flatten(1)).mean()
        losses["l1"] = l1
        losses["loss"] = 0.85 * ssim_like + 0.15 * l1
        return losses

    def process_batch(self, inputs):
        outputs = {"disp": self.model(inputs["color"])}
        losses = self.compute_losses(inputs, outputs)
        return outputs, losses

    def run_epoch(self, batches):
        self.model.train()
        for batch_idx, inputs in enumerate(batches):
            with torch.no_grad():
                outputs, losses = self.process_batch(inputs)
            self.model_optimizer.zero_grad()
            losses["loss"].backward()
            self.model_optimizer.step()
            if batch_idx % 2 == 0:
                print(f"step {self.step} loss {losses['loss'].item():.4f}")
            self.step += 1

    def train(self):
        for epoch in range(self.opt["num_epochs"]):
            batches = [
                {"color": torch.rand(2, 3, 16, 16), "depth_gt": torch.rand(2, 1, 16, 16)}
                for _ in range(4)
            ]
            self.run_epoch(batches)


if __name__ == "__main__":
    Trainer({"num_epochs": 3}).train()
