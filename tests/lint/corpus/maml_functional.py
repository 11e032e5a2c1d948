"""MAML with functional forwards: inner-loop graphs live within one outer step; the step helper returns a float."""
import torch
import torch.nn as nn
import torch.nn.functional as F

def functional_forward(x, params):
    x = F.relu(F.linear(x, params["w1"], params["b1"]))
    return F.linear(x, params["w2"], params["b2"])

def maml_step(model_params, meta_opt, tasks, inner_lr=0.01, inner_steps=1):
    meta_opt.zero_grad()
    meta_loss = 0.0
    for x_s, y_s, x_q, y_q in tasks:
        fast = dict(model_params)
        for _ in range(inner_steps):
            loss = F.mse_loss(functional_forward(x_s, fast), y_s)
            grads = torch.autograd.grad(loss, list(fast.values()), create_graph=True)
            fast = {k: v - inner_lr * g for (k, v), g in zip(fast.items(), grads)}
        meta_loss += F.mse_loss(functional_forward(x_q, fast), y_q)
    meta_loss = meta_loss / len(tasks)
    meta_loss.backward()
    meta_opt.step()
    return meta_loss.item()

params = {
    "w1": nn.Parameter(torch.randn(40, 1) * 0.1), "b1": nn.Parameter(torch.zeros(40)),
    "w2": nn.Parameter(torch.randn(1, 40) * 0.1), "b2": nn.Parameter(torch.zeros(1)),
}
meta_opt = torch.optim.Adam(params.values(), lr=1e-3)
history = []
for it in range(1000):
    tasks = sample_tasks(8)
    history.append(maml_step(params, meta_opt, tasks))
