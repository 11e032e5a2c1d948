"""GPT training loop in the style of nanoGPT: gradient accumulation, AMP GradScaler, clipping, cosine LR."""
import math
import time
from contextlib import nullcontext

import torch
from transformers import GPT2Config, GPT2LMHeadModel

batch_size, block_size = 12, 64
gradient_accumulation_steps = 5
learning_rate, min_lr = 6e-4, 6e-5
warmup_iters, lr_decay_iters, max_iters = 200, 5000, 5000
grad_clip = 1.0
eval_interval, eval_iters = 250, 20
device_type = "cpu"
ctx = nullcontext() if device_type == "cpu" else torch.autocast(device_type=device_type, dtype=torch.float16)

model = GPT2LMHeadModel(GPT2Config(n_layer=2, n_head=2, n_embd=64, vocab_size=256, n_positions=block_size))
scaler = torch.cuda.amp.GradScaler(enabled=(device_type == "cuda"))
optimizer = torch.optim.AdamW(model.parameters(), lr=learning_rate, betas=(0.9, 0.95), weight_decay=0.1)


def get_batch(split):
    data = torch.randint(0, 256, (batch_size, block_size + 1))
    return data[:, :-1], data[:, 1:]


@torch.no_grad()
def estimate_loss():
    out = {}
    model.eval()
    for split in ["train", "val"]:
        losses = torch.zeros(eval_iters)
        for k in range(eval_iters):
            X, Y = get_batch(split)
            with ctx:
                loss = model(X, labels=Y).loss
            losses[k] = loss.item()
        out[split] = losses.mean()
    model.train()
    return out


def get_lr(it):
    if it < warmup_iters:
        return learning_rate * it / warmup_iters
    if it > lr_decay_iters:
        return min_lr
    decay_ratio = (it - warmup_iters) / (lr_decay_iters - warmup_iters)
    coeff = 0.5 * (1.0 + math.cos(math.pi * decay_ratio))
    return min_lr + coeff * (learning_rate - min_lr)


X, Y = get_batch("train")
t0 = time.time()
iter_num = 0
while True:
    lr = get_lr(iter_num)
    for param_group in optimizer.param_groups:
        param_group["lr"] = lr
    if iter_num % eval_interval == 0:
        losses = estimate_loss()
        print(f"step {iter_num}: train loss {losses['train']:.4f}, val loss {losses['val']:.4f}")
    for micro_step in range(gradient_accumulation_steps):
        with ctx:
            logits = model(X, labels=Y)
            loss = logits.loss / gradient_accumulation_steps
        X, Y = get_batch("train")
        scaler.scale(loss).backward()
    if grad_clip != 0.0:
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), grad_clip)
    scaler.step(optimizer)
    scaler.update()
    optimizer.zero_grad(set_to_none=True)
    t1 = time.time()
    dt, t0 = t1 - t0, t1
    lossf = loss.item() * gradient_accumulation_steps
    print(f"iter {iter_num}: loss {lossf:.4f}, time {dt * 1000:.2f}ms")
    iter_num += 1
    if iter_num > max_iters:
        break
