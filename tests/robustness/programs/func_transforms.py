"""Per-sample gradients with torch.func (vmap over grad), then a manual SGD update."""
import torch
from torch import nn
from torch.func import functional_call, grad, vmap

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(6, 12), nn.Tanh(), nn.Linear(12, 1))
params = {k: v.detach() for k, v in model.named_parameters()}
x, y = torch.randn(32, 6), torch.randn(32, 1)


def sample_loss(p, xi, yi):
    out = functional_call(model, p, (xi.unsqueeze(0),))
    return nn.functional.mse_loss(out, yi.unsqueeze(0))


per_sample = vmap(grad(sample_loss), in_dims=(None, 0, 0))
for step in range(5):
    grads = per_sample(params, x, y)
    clipped = {k: g.clamp(-1.0, 1.0).mean(0) for k, g in grads.items()}
    params = {k: params[k] - 0.1 * clipped[k] for k in params}
with torch.no_grad():
    final = nn.functional.mse_loss(functional_call(model, params, (x,)), y)
print("per-sample grads", tuple(grads["0.weight"].shape), round(final.item(), 4))
