import torch

total_loss = 0.0
for epoch in range(3):
    for x, y in loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        total_loss += loss.item()
    print(f"epoch {epoch}: {total_loss / len(loader):.4f}")
    print("running", total_loss)
