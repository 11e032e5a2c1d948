"""A pytorch/tutorials-style script in sections (nn_tutorial): a logistic regression by hand, then a hidden
layer by hand, then nn.Module and optim.

Each hand-written section keeps its tensors at module level and zeroes their gradients after its last
update; the later sections train other tensors. The first section's tensors keep zero gradients for the
rest of the run: nothing reaches them any more, and nothing is wrong.
"""
import math
import torch
from torch import nn, optim
import torch.nn.functional as F

torch.manual_seed(0)
x_train = torch.randn(512, 784)
y_train = torch.randint(0, 10, (512,))
n, bs, lr, epochs = 512, 64, 0.5, 2

# Section 1: neural net from scratch
weights = torch.randn(784, 10) / math.sqrt(784)
weights.requires_grad_()
bias = torch.zeros(10, requires_grad=True)


def log_softmax(x):
    return x - x.exp().sum(-1).log().unsqueeze(-1)


def model(xb):
    return log_softmax(xb @ weights + bias)


def nll(input, target):
    return -input[range(target.shape[0]), target].mean()


loss_func = nll
for epoch in range(epochs):
    for i in range((n - 1) // bs + 1):
        xb, yb = x_train[i * bs:i * bs + bs], y_train[i * bs:i * bs + bs]
        loss = loss_func(model(xb), yb)
        loss.backward()
        with torch.no_grad():
            weights -= weights.grad * lr
            bias -= bias.grad * lr
            weights.grad.zero_()
            bias.grad.zero_()

# Section 2: a hidden layer, still by hand
w1 = torch.randn(784, 32) / math.sqrt(784)
w1.requires_grad_()
w2 = torch.randn(32, 10) / math.sqrt(32)
w2.requires_grad_()


def model2(xb):
    return log_softmax(torch.relu(xb @ w1) @ w2)


for epoch in range(epochs * 3):
    for i in range((n - 1) // bs + 1):
        xb, yb = x_train[i * bs:i * bs + bs], y_train[i * bs:i * bs + bs]
        loss = nll(model2(xb), yb)
        loss.backward()
        with torch.no_grad():
            w1 -= w1.grad * lr
            w2 -= w2.grad * lr
            w1.grad.zero_()
            w2.grad.zero_()
