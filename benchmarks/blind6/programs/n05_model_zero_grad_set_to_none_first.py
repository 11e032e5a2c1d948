# Trainer that clears gradients through the model (set_to_none) at the start of
# each step, and an encoder/decoder pair with one optimizer over both.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Trainer:
    def __init__(self):
        self.encoder = nn.Sequential(nn.Linear(40, 16), nn.ReLU())
        self.decoder = nn.Linear(16, 40)
        params = list(self.encoder.parameters()) + list(self.decoder.parameters())
        self.opt = torch.optim.SGD(params, lr=0.05, momentum=0.9)

    def step(self, x):
        self.encoder.zero_grad(set_to_none=True)
        self.decoder.zero_grad(set_to_none=True)
        loss = F.mse_loss(self.decoder(self.encoder(x)), x)
        loss.backward()
        self.opt.step()
        return loss.item()


trainer = Trainer()
data = torch.randn(256, 40)
for epoch in range(3):
    for i in range(0, 256, 32):
        loss = trainer.step(data[i:i + 32])
    print(epoch, loss)
