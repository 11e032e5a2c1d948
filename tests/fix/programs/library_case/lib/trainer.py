"""A training helper installed next to the project, not part of it: its loop never clears gradients."""
from torch import nn


def fit(model, optimizer, batches):
    for x, y in batches:
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
