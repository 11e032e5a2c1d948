"""A training loop with an fp32 path and an AMP path in one if/else, clipping only where asked."""
import argparse

import torch
import torch.nn as nn


def train_one_epoch(model, loader, optimizer, scaler, use_amp, max_norm=None):
    model.train()
    total, batches = 0.0, 0
    for x, y in loader:
        optimizer.zero_grad(set_to_none=True)
        if not use_amp:
            loss = nn.functional.cross_entropy(model(x), y)
            loss.backward()
            if max_norm is not None:
                nn.utils.clip_grad_norm_(model.parameters(), max_norm)
            optimizer.step()
        else:
            with torch.autocast("cuda", dtype=torch.float16):
                loss = nn.functional.cross_entropy(model(x), y)
            scaler.scale(loss).backward()
            if max_norm is None:
                scaler.step(optimizer)
            else:
                scaler.unscale_(optimizer)
                nn.utils.clip_grad_norm_(model.parameters(), max_norm)
                scaler.step(optimizer)
            scaler.update()
        total += loss.item()
        batches += 1
    return total / max(batches, 1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--amp", action="store_true")
    parser.add_argument("--clip", type=float, default=None)
    args = parser.parse_args()
    model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 10))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    scaler = torch.amp.GradScaler("cuda", enabled=args.amp)
    loader = [(torch.randn(16, 32), torch.randint(0, 10, (16,))) for _ in range(20)]
    history = []
    for epoch in range(5):
        history.append(train_one_epoch(model, loader, optimizer, scaler, args.amp, args.clip))
    print(history)


if __name__ == "__main__":
    main()
